"""Rate limits across every Ray worker: one coordinator actor per experiment.

The budgets of ``limits:`` (``autobench.core.runtime._limits``) must be shared by every
run, whichever worker process executes it. :func:`start_limits` starts one Ray async
actor (:class:`LimitsActor`) holding a :class:`~autobench.core.runtime._limits.LocalLimits`
of the spec's ``limits`` and returns a :class:`RayLimits` client for it; the driver
puts that client in the shipped ``RunSetup.limits``, so every worker's runs take their
budgets from the same actor. The client's three coroutines await the actor's
(``actor.<method>.remote(...)``): an async run awaits them on its ``asyncio.run`` loop,
a sync run on the worker's background loop (``_bridge.run_on_loop``), as locally.

* The actor has a high ``max_concurrency`` (:data:`ACTOR_CONCURRENCY`), so callers
  waiting for a budget do not block one another or the ``release`` that admits them,
  and asks Ray for no CPU (it must not take a slot of the runs it coordinates).
* The wait a run records (``time.queue``) is measured by the client around the call:
  the actor's wait plus the round trip to it (about a millisecond on a local Ray).
* The actor lives as long as the experiment: the driver kills it when its runs end.
  A worker that dies while holding a concurrency slot does not give the slot back
  (the actor cannot tell); the runs that follow have one slot fewer of that budget.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import ray

from autobench.core.runtime._limits import LimitKey, LocalLimits
from autobench.core.spec._models import LimitSpec

ACTOR_CONCURRENCY = 10_000
"""How many calls the coordinator actor serves at once (waiters included)."""


class LimitsActor:
    """The budgets of one experiment, in one Ray async actor (forwards to a
    :class:`~autobench.core.runtime._limits.LocalLimits`)."""

    def __init__(self, limit_specs: Mapping[str, LimitSpec]) -> None:
        self._limits = LocalLimits(limit_specs)

    async def acquire(self, key: LimitKey) -> float:
        return await self._limits.acquire(tuple(key))  # type: ignore[arg-type]

    async def release(self, key: LimitKey) -> None:
        await self._limits.release(tuple(key))  # type: ignore[arg-type]

    async def charge(self, key: LimitKey, tokens: int) -> None:
        await self._limits.charge(tuple(key), tokens)  # type: ignore[arg-type]


class RayLimits:
    """A :class:`~autobench.core.runtime._limits.LimitCoordinator` whose budgets live in a
    :class:`LimitsActor` (picklable: it holds the actor's handle)."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    async def acquire(self, key: LimitKey) -> float:
        asked = time.monotonic()
        await self.actor.acquire.remote(key)
        return max(0.0, time.monotonic() - asked)

    async def release(self, key: LimitKey) -> None:
        await self.actor.release.remote(key)

    async def charge(self, key: LimitKey, tokens: int) -> None:
        await self.actor.charge.remote(key, tokens)


def start_limits(limit_specs: Mapping[str, LimitSpec]) -> RayLimits:
    """Start the coordinator actor of ``limit_specs`` on the connected Ray; its client."""
    actor_class: Any = ray.remote(LimitsActor)
    actor = actor_class.options(
        num_cpus=0, max_concurrency=ACTOR_CONCURRENCY, max_restarts=0
    ).remote(dict(limit_specs))
    return RayLimits(actor)


def stop_limits(limits: RayLimits) -> None:
    """End the coordinator actor (its budgets go with it)."""
    ray.kill(limits.actor, no_restart=True)
