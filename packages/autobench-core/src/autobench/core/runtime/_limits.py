"""Rate limits: the budgets of ``limits:`` held across every run of a session.

Granularity: a run takes one *request* of each of its budgets before every call of its
task (every attempt, so retries count), holds one *concurrency slot* of each while the
call runs, gives the slots back as soon as the call returns or fails, and is *charged*
the tokens the call used (the usage its spans recorded, ``_run.tokens_used``) once they
are known. A run's budgets are those of the factors of ``limits:`` its variant has, keyed
``(factor, value)``: two variants with ``model: gpt-4o`` share one budget.

Every budget lives in one :class:`LimitCoordinator`, shared by all runs of a session:
:class:`LocalLimits` in this process (async runs await it on the event loop; sync runs in
worker threads hand the call to that loop, ``_bridge.run_on_loop``). An executor that
runs tasks elsewhere (a Ray cluster) replaces ``RunSetup.limits`` with its own
coordinator (for example one Ray actor holding a :class:`LocalLimits`) that implements
the same three coroutines.

The rules of one budget (:class:`LimitSpec`), exact rather than approximate:

* ``max_concurrency``: at most that many calls hold a slot at once.
* ``requests_per_minute`` (``r``): call starts are scheduled ``60 / r`` seconds apart
  (no burst; providers that quantise their per-minute limits per second see an even
  rate), so any window of ``w`` seconds holds at most ``floor(w * r / 60) + 1``
  scheduled starts. A start is scheduled from the previous one (or from its request,
  when the budget was idle), not from when its waiter woke: the wake-up delay of the
  event loop (about a millisecond) makes an actual start that much late without
  pushing the later ones back.
* ``tokens_per_minute`` (``t``): a token bucket holding up to ``t`` tokens, full at the
  start and refilled at ``t / 60`` tokens per second; a call may start while the bucket
  holds more than zero tokens, and the tokens it used are taken out when known (the
  bucket may go below zero: later calls then wait until it refills above zero). Over any
  window of ``w`` seconds the tokens charged stay within ``t + t * w / 60`` plus what the
  calls in flight at its end use.

Admission is first come, first served per budget (an :class:`asyncio.Lock` queues the
waiters); a run with several budgets takes them in sorted key order, so two runs never
hold parts of each other's budgets. Our own code rather than a library: the three rules
and the charge-after-the-call of tokens are a few lines each, and the wait a run spent
must be returned exactly (``time.queue``), which the libraries looked at (aiolimiter: a
leaky bucket of one rate, no concurrency or later charges) do not give together.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from autobench.core.spec._models import LimitSpec
from autobench.records import Variant

LimitKey = tuple[str, str]
"""A budget: ``(factor name, factor value as text)`` (JSON text for a non-string value)."""


@runtime_checkable
class LimitCoordinator(Protocol):
    """Holds the budgets of ``limits:`` for every run of a session (see the module
    docstring). Each call names one budget; unknown keys are budgets of no limit."""

    async def acquire(self, key: LimitKey) -> float:
        """Wait until the budget ``key`` admits one more call; take a concurrency slot and
        a request. Return the seconds waited (``0.0`` when admitted at once)."""
        ...

    async def release(self, key: LimitKey) -> None:
        """Give back the concurrency slot a call took with :meth:`acquire`."""
        ...

    async def charge(self, key: LimitKey, tokens: int) -> None:
        """Take ``tokens`` (>= 0) used by a call out of the budget ``key``'s tokens."""
        ...


def limit_keys(limits: Mapping[str, LimitSpec], variant: Variant) -> tuple[LimitKey, ...]:
    """The budgets of a run of ``variant``: one per factor of ``limits`` it has, sorted."""
    keys: list[LimitKey] = []
    for factor in variant.factors:
        if factor.name in limits:
            value = factor.value
            text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
            keys.append((factor.name, text))
    return tuple(sorted(keys))


class _Budget:
    """The state of one budget (all of it touched only on the coordinator's loop)."""

    __slots__ = ("active", "freed", "interval", "level", "limit", "lock", "next_start", "refilled")

    def __init__(self, limit: LimitSpec, now: float) -> None:
        self.limit = limit
        self.lock = asyncio.Lock()
        self.freed = asyncio.Event()
        self.active = 0
        rpm = limit.requests_per_minute
        self.interval = 0.0 if rpm is None else 60.0 / rpm
        self.next_start = -math.inf
        self.level = float(limit.tokens_per_minute or 0)
        self.refilled = now

    def refill(self, now: float) -> None:
        per_minute = self.limit.tokens_per_minute
        if per_minute is not None:
            self.level = min(
                float(per_minute), self.level + (now - self.refilled) * per_minute / 60
            )
        self.refilled = now


class LocalLimits:
    """The :class:`LimitCoordinator` of one process: the budgets of ``limits`` (keyed by
    factor name) in memory, used from one event loop. ``clock`` (seconds, monotonic) and
    ``sleep`` are those of the wait (a test or a simulation passes a fake pair)."""

    def __init__(
        self,
        limits: Mapping[str, LimitSpec],
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self.limits = dict(limits)
        self._clock = clock
        self._sleep = sleep
        self._budgets: dict[LimitKey, _Budget] = {}

    def _budget(self, key: LimitKey) -> _Budget | None:
        budget = self._budgets.get(key)
        if budget is None:
            limit = self.limits.get(key[0])
            if limit is None:
                return None
            budget = self._budgets[key] = _Budget(limit, self._clock())
        return budget

    async def acquire(self, key: LimitKey) -> float:
        budget = self._budget(key)
        if budget is None:
            return 0.0
        clock = self._clock
        asked = clock()
        async with budget.lock:  # first come, first served
            limit = budget.limit
            if limit.max_concurrency is not None:
                while budget.active >= limit.max_concurrency:
                    budget.freed.clear()
                    await budget.freed.wait()
            if limit.tokens_per_minute is not None:
                budget.refill(clock())
                while budget.level <= 0:
                    await self._sleep(-budget.level * 60 / limit.tokens_per_minute + 1e-3)
                    budget.refill(clock())
            if budget.interval:
                # The start is scheduled on the budget's timeline, not at the moment the
                # waiter wakes: a late wake-up (the loop's timer resolution, a thread
                # hand-over) does not push every later start back.
                now = clock()
                start = max(now, budget.next_start)
                budget.next_start = start + budget.interval
                if start > now:
                    await self._sleep(start - now)
            budget.active += 1
        return max(0.0, clock() - asked)

    async def release(self, key: LimitKey) -> None:
        budget = self._budgets.get(key)
        if budget is not None and budget.active > 0:
            budget.active -= 1
            budget.freed.set()

    async def charge(self, key: LimitKey, tokens: int) -> None:
        budget = self._budgets.get(key)
        if budget is not None and budget.limit.tokens_per_minute is not None and tokens > 0:
            budget.refill(self._clock())
            budget.level -= tokens


async def acquire_all(coordinator: LimitCoordinator, keys: Sequence[LimitKey]) -> float:
    """Take every budget of ``keys`` (in their sorted order); return the seconds waited.
    When the wait is cancelled, the slots already taken are given back."""
    waited = 0.0
    taken: list[LimitKey] = []
    try:
        for key in keys:
            waited += await coordinator.acquire(key)
            taken.append(key)
    except BaseException:
        for key in taken:
            await coordinator.release(key)
        raise
    return waited


async def release_all(coordinator: LimitCoordinator, keys: Sequence[LimitKey]) -> None:
    for key in keys:
        await coordinator.release(key)


async def charge_all(coordinator: LimitCoordinator, keys: Sequence[LimitKey], tokens: int) -> None:
    if tokens > 0:
        for key in keys:
            await coordinator.charge(key, tokens)
