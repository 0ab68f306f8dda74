"""The part of a run's usage roll-up that is the run's own, when runs share a ``RunUsage``.

Pydantic AI's documented delegation passes the parent's usage to the delegate
(``await other.run(..., usage=ctx.usage)`` in a tool): both runs add to one ``RunUsage``
object. The delegate's roll-up then starts with what the parent had already spent, which no
request beneath the delegate's span accounts for, so it would disagree with them on every
run although the totals are right.

:class:`RunShare` tracks, per usage object, the agent runs open on it:

* a run whose usage object is also the one of an *enclosing* open run (same context, it was
  started while that run was running, e.g. from its tool) is a delegate: its roll-up is the
  difference between the usage at its end and at its start;
* a run that shared its usage object with a run that was *not* nested in it or around it
  (parallel delegates of one parent: Pydantic AI runs tool calls concurrently) cannot tell
  its additions from the other's: it records no roll-up, and the enclosing run's roll-up
  validates the whole subtree;
* a run started inside another run on a usage object of its own (a delegate not given
  ``ctx.usage``) is a *nested run*: Pydantic AI leaves its usage out of the enclosing run's,
  which :attr:`RunShare.nested` lets the span say (``accounting.nested_run``);
* any other run records the usage object's counts as they are, including usage the caller
  carried in (``usage=RunUsage(...)`` from an earlier conversation), which the accounting
  rules then report as a disagreement: nothing beneath the span measured it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from contextvars import ContextVar, Token
from typing import Any

_lock = threading.Lock()
_open: dict[int, list[RunShare]] = {}
_enclosing: ContextVar[tuple[RunShare, ...]] = ContextVar(
    "autobench_pydantic_ai_enclosing_runs", default=()
)


class RunShare:
    """One agent run's claim on its ``RunUsage`` object, from :meth:`start` to :meth:`end`."""

    __slots__ = ("delegated", "nested", "overlapped", "start_counts", "token", "usage")

    def __init__(self, usage: Any, counts: Callable[[Any], dict[str, int]]) -> None:
        self.usage = usage
        self.start_counts = counts(usage)
        self.delegated = False
        self.nested = False
        self.overlapped = False
        self.token: Token[tuple[RunShare, ...]] | None = None

    @classmethod
    def start(cls, usage: Any, counts: Callable[[Any], dict[str, int]]) -> RunShare:
        """Register a run on ``usage`` (``counts`` reads a usage object's roll-up counts) and
        make it enclose what runs in its context from now on."""
        share = cls(usage, counts)
        enclosing = _enclosing.get()
        if usage is not None:
            with _lock:
                sharing = _open.setdefault(id(usage), [])
                for other in sharing:
                    if other in enclosing:
                        share.delegated = True
                    else:
                        other.overlapped = share.overlapped = True
                sharing.append(share)
        # started inside another run, on a usage object of its own
        share.nested = bool(enclosing) and not share.delegated
        share.token = _enclosing.set((*enclosing, share))
        return share

    def end(self, counts: Callable[[Any], dict[str, int]]) -> dict[str, int] | None:
        """Unregister the run; its own roll-up counts, or ``None`` when they cannot be told
        apart from a concurrent run's (see the module docstring)."""
        if self.token is not None:
            # a run ended in another context than it started in keeps that context's value
            with contextlib.suppress(ValueError):
                _enclosing.reset(self.token)
            self.token = None
        if self.usage is None:
            return {}
        with _lock:
            sharing = _open.get(id(self.usage), [])
            if self in sharing:
                sharing.remove(self)
            if not sharing:
                _open.pop(id(self.usage), None)
        final = counts(self.usage)
        if self.overlapped:
            return None
        if not self.delegated:
            return final
        own = {key: value - self.start_counts.get(key, 0) for key, value in final.items()}
        return {key: value for key, value in own.items() if value}
