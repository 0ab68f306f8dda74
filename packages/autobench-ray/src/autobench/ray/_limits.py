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
  the actor's wait plus the round trip to it (2.5 ms median on a local Ray of 2 CPUs).
* The actor lives as long as the experiment: the driver kills it when its runs end.
* Each remote call of the driver has a token; the worker runs the call's runs with it
  as their *holder* (:data:`holder`, a context variable the client reads), and the actor
  counts the slots each holder has. When a call's worker dies, the driver calls
  :meth:`RayLimits.free` with its token: the slots its runs held are given back (a dead
  worker never releases them), and an ``acquire`` of that holder still waiting gives
  its slot back as soon as it is granted.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from typing import Any

import ray

from autobench.core.runtime._limits import LimitKey, LocalLimits
from autobench.core.spec._models import LimitSpec

ACTOR_CONCURRENCY = 10_000
"""How many calls the coordinator actor serves at once (waiters included)."""

holder: ContextVar[str | None] = ContextVar("autobench_ray_limits_holder", default=None)
"""The token of the remote call whose run is taking budgets (set by the worker)."""


class LimitsActor:
    """The budgets of one experiment, in one Ray async actor (forwards to a
    :class:`~autobench.core.runtime._limits.LocalLimits`, counting the concurrency slots
    each holder has)."""

    def __init__(self, limit_specs: Mapping[str, LimitSpec]) -> None:
        self._limits = LocalLimits(limit_specs)
        self._held: dict[str, dict[LimitKey, int]] = {}
        self._freed: set[str] = set()

    async def acquire(self, key: LimitKey, owner: str | None = None) -> float:
        key = (key[0], key[1])
        waited = await self._limits.acquire(key)
        if owner is not None:
            if owner in self._freed:  # its worker died while it waited
                await self._limits.release(key)
            else:
                held = self._held.setdefault(owner, {})
                held[key] = held.get(key, 0) + 1
        return waited

    async def release(self, key: LimitKey, owner: str | None = None) -> None:
        key = (key[0], key[1])
        if owner is not None:
            held = self._held.get(owner, {})
            if not held.get(key):
                return  # already given back by free()
            held[key] -= 1
        await self._limits.release(key)

    async def charge(self, key: LimitKey, tokens: int) -> None:
        await self._limits.charge((key[0], key[1]), tokens)

    async def free(self, owners: Sequence[str]) -> int:
        """Give back every slot the ``owners`` hold; later grants to them are given back
        at once. Returns the slots given back."""
        count = 0
        for owner in owners:
            self._freed.add(owner)
            for key, held in self._held.pop(owner, {}).items():
                for _ in range(held):
                    await self._limits.release(key)
                    count += 1
        return count


class RayLimits:
    """A :class:`~autobench.core.runtime._limits.LimitCoordinator` whose budgets live in a
    :class:`LimitsActor` (picklable: it holds the actor's handle)."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    async def acquire(self, key: LimitKey) -> float:
        asked = time.monotonic()
        await self.actor.acquire.remote(key, holder.get())
        return max(0.0, time.monotonic() - asked)

    async def release(self, key: LimitKey) -> None:
        await self.actor.release.remote(key, holder.get())

    async def charge(self, key: LimitKey, tokens: int) -> None:
        await self.actor.charge.remote(key, tokens)

    async def free(self, owners: Sequence[str]) -> int:
        """Give back the slots of the runs of the calls ``owners`` (their worker died)."""
        return int(await self.actor.free.remote(list(owners)))


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
