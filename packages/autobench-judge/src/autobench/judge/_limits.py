"""Rate limits of a judge's own calls: ``judge: {..., limits: {max_concurrency,
requests_per_minute, tokens_per_minute}}``.

The rules are those of the spec's ``limits:`` (:mod:`autobench.core.runtime._limits`,
whose :class:`~autobench.core.runtime._limits.LocalLimits` holds the budgets here too):
every attempt of a judge call, retries included, takes one request and one concurrency
slot of the judge's budget before it is sent, gives the slot back when it returns, raises
or times out, and is then charged the tokens its responses reported (input plus output).
The judge's ``timeout`` bounds the call only, not the wait before it.

**Where the budgets live.** Scoring does not see the session's limit coordinator (its
budgets are keyed by the application's factors), so the judge package holds its own: one
:class:`LocalLimits` per event loop and judge *budget*, a budget being the judge's model
identity (the model string, the endpoint's ``base_url`` and ``name``, or the ``python``
target) together with its ``limits``. Judges that declare the same model and the same
limits share a budget, whichever scorer, run, ``autobench rescore`` or ``autobench judge
pairwise`` calls them, for as long as the process's event loop lives (one per command).
Other processes (Ray workers, a second command) hold budgets of their own.

Calls answered by a cassette in ``replay`` mode reach no provider and are not limited.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from autobench.abp._cassette import RunCassette
from autobench.core.runtime._limits import LimitKey, LocalLimits
from autobench.judge._fields import JudgeEndpoint, JudgeFields, JudgeModelTarget

_FACTOR = "judge"
"""The budget name of every judge :class:`LocalLimits` (its key is ``(judge, identity)``)."""


def model_identity(judge: JudgeFields) -> str:
    """The text naming the judge's model in its budget key: the model string, the
    endpoint as ``<base_url>#<name>``, or ``python:<target>``."""
    model = judge.model
    if isinstance(model, JudgeEndpoint):
        return f"{model.base_url}#{model.name}"
    if isinstance(model, JudgeModelTarget):
        return f"python:{model.python}"
    return model


class JudgeBudgets:
    """The judges' budgets of one process: a :class:`LocalLimits` per event loop and per
    (model identity, limits). ``clock`` (seconds, monotonic) and ``sleep`` are those of
    the waits (a test or a simulation passes a fake pair)."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self.clock = clock
        self.sleep = sleep
        self._held: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[tuple[str, str], LocalLimits]
        ] = weakref.WeakKeyDictionary()

    def budget(self, judge: JudgeFields) -> tuple[LocalLimits, LimitKey] | None:
        """The limiter and key of ``judge``'s budget on the running loop; ``None`` when
        the judge has no ``limits``."""
        if judge.limits is None:
            return None
        identity = model_identity(judge)
        settings = json.dumps(judge.limits.model_dump(mode="json"), sort_keys=True)
        loop = asyncio.get_running_loop()
        held = self._held.setdefault(loop, {})
        limits = held.get((identity, settings))
        if limits is None:
            limits = held[identity, settings] = LocalLimits(
                {_FACTOR: judge.limits}, clock=self.clock, sleep=self.sleep
            )
        return limits, (_FACTOR, identity)


_budgets = JudgeBudgets()


@contextlib.contextmanager
def judge_budgets(budgets: JudgeBudgets) -> Iterator[JudgeBudgets]:
    """Use ``budgets`` for every judge call made inside the block (for instance budgets
    on a fake clock); the previous ones are used again after it."""
    global _budgets
    previous, _budgets = _budgets, budgets
    try:
        yield budgets
    finally:
        _budgets = previous


@dataclass
class JudgeSlot:
    """One admitted judge call: the seconds it ``waited`` for its budget, and the
    ``tokens`` to charge once it returns (set by the caller)."""

    waited: float = 0.0
    tokens: int = 0


@contextlib.asynccontextmanager
async def judge_slot(judge: JudgeFields, cassette: RunCassette | None) -> AsyncIterator[JudgeSlot]:
    """Hold one request and one concurrency slot of ``judge``'s budget for the block, and
    charge ``slot.tokens`` after it (see the module docstring)."""
    slot = JudgeSlot()
    found = None if cassette is not None and not cassette.records else _budgets.budget(judge)
    if found is None:
        yield slot
        return
    limits, key = found
    slot.waited = await limits.acquire(key)
    try:
        yield slot
    finally:
        await limits.release(key)
        await limits.charge(key, slot.tokens)
