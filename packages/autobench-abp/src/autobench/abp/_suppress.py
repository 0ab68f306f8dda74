"""Scoped, task-local suppression of instrumentation.

A suppression scope is a :mod:`contextvars` value, so it covers the current
asyncio task or thread (and tasks created inside it) without touching global
process state. Keys name an instrumentor id (``"autobench.method"``) or an
operation family (``"search.request"``); a key also covers every dotted
family below it (``"search"`` covers ``"search.request"``). A scope with no
keys suppresses all instrumentation.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

ALL_KEYS = "*"
"""The key an empty :func:`suppress_instrumentation` scope stands for."""

_suppressed: ContextVar[frozenset[str] | None] = ContextVar(
    "autobench_abp_suppressed", default=None
)


@contextmanager
def suppress_instrumentation(*keys: str) -> Iterator[None]:
    """Suppress instrumentation in the current task inside the block.

    ``keys`` are instrumentor ids or operation families; no keys suppresses
    everything. Scopes nest (an inner scope adds to the outer one) and the
    previous state comes back when the block exits, also when it raises.
    """
    for key in keys:
        if not isinstance(key, str) or not key:
            raise ValueError(f"suppression keys are non-empty strings, got {key!r}")
    current = _suppressed.get()
    added = frozenset(keys) if keys else frozenset((ALL_KEYS,))
    token = _suppressed.set(added if current is None else current | added)
    try:
        yield
    finally:
        _suppressed.reset(token)


def suppressed_keys() -> frozenset[str]:
    """The keys suppressed in the current task (``{"*"}`` when everything is)."""
    return _suppressed.get() or frozenset()


def is_suppressed(instrumentor_id: str, family: str | None = None) -> bool:
    """Whether instrumentation by ``instrumentor_id`` of operation ``family`` is suppressed here."""
    keys = _suppressed.get()
    if keys is None:
        return False
    if ALL_KEYS in keys or instrumentor_id in keys:
        return True
    if family is None:
        return False
    if family in keys:
        return True
    prefix, _, _ = family.rpartition(".")
    while prefix:
        if prefix in keys:
            return True
        prefix, _, _ = prefix.rpartition(".")
    return False
