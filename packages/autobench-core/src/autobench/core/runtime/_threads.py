"""Worker threads for sync tasks: each executes whole runs, off the event loop thread.

* Up to ``concurrency_limit`` threads take the next planned run from the
  shared plan iterator, so at most that many sync runs are active at once.
  Threads start on demand: one at once, and one more (up to the limit, while
  planned runs remain) whenever the event loop thread sees that every
  running thread has been inside its current run for over a millisecond.
  Runs that wait (I/O, sleeps, a model API) so get up to the limit of
  threads within a few milliseconds, while short runs, which would only take
  turns on the GIL, stay on few threads: every call that releases the GIL
  briefly (``os.urandom`` for span ids, a write) would otherwise hand the
  GIL to another thread, and those hand-overs made concurrency slower.
* A thread executes the whole run (``_run.execute_sync_run``): context, task
  call with no event loop running in the thread, scoring, record. Each run
  gets its own copy of the :mod:`contextvars` context the experiment was
  started in.
* While :data:`BACKLOG` finished runs wait (in the outbox, or for a durable sink to
  store them: ``backlog``), the threads take no new run, so a disk slower than the runs
  holds memory bounded.
* Finished runs (and, when progress is reported, started runs) go to an
  outbox that the event loop thread empties, in order, on a timer: every
  millisecond while it finds something (or may start a thread), backing off
  to every 16 ms while it finds nothing. Threads never wake the loop per run
  (that costs a self-pipe write and a GIL hand-over each time); each wakes
  it once, with ``call_soon_threadsafe``, when it stops. The cross-thread
  cost is shared by a batch of runs, and the sink and progress callbacks are
  only ever called on the loop thread, a few milliseconds after the fact.
* An exception escaping a run (not an ``Exception`` of the task, which gives
  an errored run) stops the threads taking new runs and is raised by
  :meth:`RunThreads.run`. When :meth:`RunThreads.run` is cancelled, the
  threads take no new runs; sync runs already active cannot be interrupted:
  they get up to :data:`CANCEL_GRACE` seconds to end (those that do are
  handed on as finished), the others finish in the background and are dropped.
* A task that raises ``KeyboardInterrupt`` ends the same way: its run is handed on
  as finished (``_run.RunInterrupted`` holds its record), then the other active runs
  get the same grace, and :meth:`RunThreads.run` raises the ``RunInterrupted``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from autobench.core.planning import MatrixRunSpec
from autobench.core.runtime._run import RunInterrupted, RunOutput, RunSetup, execute_sync_run

StartedHandler = Callable[[MatrixRunSpec], None]
FinishedHandler = Callable[[int, MatrixRunSpec, RunOutput], None]

_POLL_FIRST = 0.001
_POLL_LAST = 0.016
"""Outbox polling interval bounds (seconds)."""

_BUSY = 0.001
"""A run in progress for longer than this (seconds) may be waiting: start another thread."""

BACKLOG = 1024
"""Finished runs (in the outbox, or handed to a durable sink and not stored yet) past which
the threads take no new run (``backlog``: the latter count)."""

CANCEL_GRACE = 5.0
"""Seconds a cancelled experiment waits for its active sync runs to end."""

_STARTED, _FINISHED, _RAISED, _INTERRUPTED = "started", "finished", "raised", "interrupted"
"""Kinds of outbox items: ``(_STARTED, planned)``, ``(_FINISHED, position, planned, output)``,
``(_RAISED, exception)`` and ``(_INTERRUPTED, position, planned, output, RunInterrupted)``."""


class RunThreads:
    """Executes the runs of a sync task in worker threads (see the module docstring).

    The outbox is shared without a lock (``deque.append``/``popleft`` are single
    operations under the GIL); the plan iterator, which may be a generator, is read
    under one (two threads in a generator's ``next`` at once raise ``ValueError``).
    """

    def __init__(
        self,
        setup: RunSetup,
        pending: Iterator[tuple[int, MatrixRunSpec]],
        *,
        threads: int,
        runs: int,
        on_started: StartedHandler | None,
        on_finished: FinishedHandler,
        backlog: Callable[[], int] | None = None,
    ) -> None:
        self._setup = setup
        self._backlog = backlog
        self._pending = pending
        # The plan's iterator may be a generator: two threads in next() at once raise
        # "generator already executing" (seen in the suite), so they take turns.
        self._pending_lock = threading.Lock()
        self._limit = threads
        self._remaining = runs
        self._on_started = on_started
        self._on_finished = on_finished
        self._outbox: deque[tuple[Any, ...]] = deque()
        self._workers: list[threading.Thread] = []
        self._run_started: list[float] = []
        self._exhausted = False
        self._stopped = False
        self._interval = _POLL_FIRST

    async def run(self) -> None:
        """Execute every pending run; return once the loop thread has handled them all."""
        if self._remaining == 0:
            return
        self._loop = asyncio.get_running_loop()
        self._done: asyncio.Future[None] = self._loop.create_future()
        self._context = contextvars.copy_context()
        self._start_worker()
        self._timer = self._loop.call_later(self._interval, self._poll)
        try:
            await self._done
        except (asyncio.CancelledError, RunInterrupted):
            self._stopped = True
            await self._settle()
            raise
        finally:
            self._stopped = True
            self._timer.cancel()
        for worker in self._workers:
            worker.join()

    async def _settle(self) -> None:
        # Cancelled or interrupted: wait (bounded) for the active runs, then hand on what finished.
        deadline = time.monotonic() + CANCEL_GRACE
        while any(worker.is_alive() for worker in self._workers) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        outbox = self._outbox
        while outbox:
            item = outbox.popleft()
            if item[0] is _FINISHED:
                self._on_finished(*item[1:])
            elif item[0] is _INTERRUPTED:
                self._on_finished(*item[1:4])

    def _start_worker(self) -> None:
        slot = len(self._workers)
        self._run_started.append(time.perf_counter())
        worker = threading.Thread(
            target=self._work, args=(slot,), name=f"autobench-run-{slot}", daemon=True
        )
        self._workers.append(worker)
        worker.start()

    def _work(self, slot: int) -> None:
        try:
            self._execute_runs(slot)
        finally:
            # RuntimeError: the loop is closed, the experiment was abandoned.
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._drain)

    def _execute_runs(self, slot: int) -> None:
        setup, loop, context, outbox = self._setup, self._loop, self._context, self._outbox
        run_started, clock = self._run_started, time.perf_counter
        report_started = self._on_started is not None
        backlog = self._backlog
        while not self._stopped:
            # Held back while BACKLOG runs wait for the loop thread or the sink: a disk slower
            # than the runs would otherwise leave every finished run (record and rendered
            # files) in the outbox, memory growing with the experiment.
            while backlog is not None and len(outbox) + backlog() >= BACKLOG:
                if self._stopped:
                    return
                time.sleep(_POLL_FIRST)
            with self._pending_lock:
                item = next(self._pending, None)
            if item is None:
                self._exhausted = True
                return
            position, planned = item
            run_started[slot] = clock()
            if report_started:
                outbox.append((_STARTED, planned))
            try:
                output = context.copy().run(execute_sync_run, setup, planned, loop)
            except RunInterrupted as stop:
                self._stopped = True  # no thread takes another run
                output = stop.output
                if setup.prepare is not None:
                    output = _prepared(setup.prepare, output)
                outbox.append((_INTERRUPTED, position, planned, output, stop))
                return
            except BaseException as exc:
                outbox.append((_RAISED, exc))
                return
            if setup.prepare is not None:
                output = _prepared(setup.prepare, output)
            outbox.append((_FINISHED, position, planned, output))

    def _poll(self) -> None:
        # On the loop thread, on the timer: drain, start a thread if all are busy, and
        # come back sooner while busy or while more threads may be needed.
        found = self._drain()
        if self._done.done():
            return
        growing = not self._exhausted and len(self._workers) < self._limit
        if growing and time.perf_counter() - max(self._run_started) > _BUSY:
            self._start_worker()
        self._interval = _POLL_FIRST if found or growing else min(self._interval * 2, _POLL_LAST)
        self._timer = self._loop.call_later(self._interval, self._poll)

    def _drain(self) -> bool:
        # On the loop thread: handle everything posted so far, in posting order.
        outbox = self._outbox
        found = bool(outbox)
        while outbox and not self._done.done():
            try:
                self._handle(outbox.popleft())
            except BaseException as exc:
                self._done.set_exception(exc)
        return found

    def _handle(self, item: tuple[Any, ...]) -> None:
        kind = item[0]
        if kind is _FINISHED:
            self._on_finished(*item[1:])
            self._remaining -= 1
            if self._remaining == 0:
                self._done.set_result(None)
        elif kind is _INTERRUPTED:
            self._on_finished(*item[1:4])
            self._remaining -= 1
            raise item[4]
        elif kind is _RAISED:
            raise item[1]
        elif self._on_started is not None:
            self._on_started(item[1])


def _prepared(prepare: Callable[[Any, Any], Any], output: RunOutput) -> RunOutput:
    """``output`` with what the sink's ``prepare_run`` made of it; unchanged when that
    raised (the loop thread's ``run_finished`` then raises the same error where it would
    have without this step)."""
    try:
        prepared = prepare(output.record, output.payloads)
    except Exception:
        return output
    return dataclasses.replace(output, prepared=prepared)
