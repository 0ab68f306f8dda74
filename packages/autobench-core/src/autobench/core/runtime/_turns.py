"""Bounded work per turn of the event loop: runs ending together do not hold the loop.

An event loop runs, in one turn, every callback that was ready when the turn began, and
only then looks at its timers and sockets. When hundreds of runs wake in the same turn
(calls answered together, a wave of equal latencies), their synchronous work (starting a
run, scoring it, handing it to the record) all lands in that one turn: at 200 runs and
about 0.1 ms each, 20 ms in which no response is read, no timer fires and no other task
moves, so the calls being measured are delayed by the measuring.

:class:`LoopTurns` admits a bounded number of such steps per turn. A step asks for its
turn with :meth:`LoopTurns.take`: while fewer than ``per_turn`` steps were admitted in
this turn and nobody is waiting, it goes on at once (no await, no cost beyond a
counter); otherwise it waits, in arrival order, for a later turn. Between those turns
the loop serves its timers and sockets. The work done is the same; it is interleaved
with the loop's other callbacks instead of ahead of them.

Timings are unaffected: a run's start is taken after its turn to start, its duration is
measured when its task returns, before its turn to be finished.
"""

from __future__ import annotations

import asyncio
from collections import deque

PER_TURN = 8
"""Run steps admitted per turn of the loop. A recorded run's start or finish costs about
0.05-0.15 ms of the loop's time on the reference machine (docs/performance.md, "The
loop's turns"), so 8 keeps a turn near 1 ms while adding one loop turn per 8 steps
(about 10 us each)."""


class LoopTurns:
    """Admits at most ``per_turn`` steps per turn of the running event loop (see the module
    docstring). Use from the loop's thread only; one per experiment."""

    __slots__ = ("_left", "_loop", "_per_turn", "_turn_scheduled", "_waiting")

    def __init__(self, per_turn: int = PER_TURN) -> None:
        if per_turn < 1:
            raise ValueError(f"per_turn must be at least 1, got {per_turn}")
        self._per_turn = per_turn
        self._left = per_turn
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._turn_scheduled = False
        self._loop: asyncio.AbstractEventLoop | None = None

    def take(self) -> asyncio.Future[None] | None:
        """Ask for a step in this turn: ``None`` to go on now, or a future to await (done in
        a later turn). Call it from a task on the running loop."""
        if self._left > 0 and not self._waiting:
            self._left -= 1
            if not self._turn_scheduled:
                self._next_turn_soon()
            return None
        loop = self._loop or asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        self._waiting.append(waiter)
        if not self._turn_scheduled:
            self._next_turn_soon()
        return waiter

    def _next_turn_soon(self) -> None:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        self._turn_scheduled = True
        self._loop.call_soon(self._next_turn)

    def _next_turn(self) -> None:
        # Runs at the start of the next turn's callbacks: a new budget, handed first to
        # the steps that waited (their tasks resume in the turn after this one, behind the
        # timers and sockets due then).
        self._turn_scheduled = False
        left = self._per_turn
        waiting = self._waiting
        while left and waiting:
            waiter = waiting.popleft()
            if not waiter.done():  # a cancelled waiter gives its place up
                waiter.set_result(None)
                left -= 1
        self._left = left
        if waiting or left < self._per_turn:
            self._next_turn_soon()
