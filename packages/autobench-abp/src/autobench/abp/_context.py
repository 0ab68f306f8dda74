"""Task-local trace context on :mod:`contextvars`.

Two variables describe where new evidence goes: the collector of the active
run and the active span (the parent of the next span). Each asyncio task and
each worker thread started with :func:`contextvars.copy_context` sees the
values that were active when it was created, and a span resets its variable
token when it ends, so concurrent siblings never become each other's parent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from autobench.abp._collector import TraceCollector
from autobench.abp._ids import new_span_id
from autobench.abp._model import InstrumentationScope, SpanError, SpanKind, SpanStatus
from autobench.abp._signals import SpanEndSignal, SpanStartSignal

_VERSION = "0.1.0"

MANUAL_SCOPE = InstrumentationScope(
    name="autobench.manual", version=_VERSION, package="autobench", package_version=_VERSION
)
"""Scope of spans opened by hand through ``ctx.span(...)``."""

_collector: ContextVar[TraceCollector | None] = ContextVar("autobench_abp_collector", default=None)
_span: ContextVar[ActiveSpan | None] = ContextVar("autobench_abp_span", default=None)


class ActiveSpan:
    """The mutable handle of a span while it runs; its data is frozen when it ends."""

    __slots__ = (
        "_ended",
        "attributes",
        "collector",
        "id",
        "kind",
        "operation",
        "output",
        "parent_id",
        "start_ns",
        "usage",
    )

    def __init__(
        self,
        collector: TraceCollector,
        span_id: str,
        operation: str,
        kind: str,
        parent_id: str | None,
        start_ns: int,
    ) -> None:
        self.collector = collector
        self.id = span_id
        self.operation = operation
        self.kind = kind
        self.parent_id = parent_id
        self.start_ns = start_ns
        self.output: Any = None
        self.attributes: dict[str, Any] = {}
        self.usage: dict[str, Any] = {}
        self._ended = False

    def set_output(self, output: Any) -> None:
        """Set the value the span produced."""
        self.output = output

    def set_attribute(self, key: str, value: Any) -> None:
        """Set one attribute; later values replace earlier ones."""
        self.attributes[key] = value

    def set_usage(self, usage: Mapping[str, Any] | None = None, /, **values: Any) -> None:
        """Merge usage counts (for example ``input_tokens=420``) into the span."""
        if usage:
            self.usage.update(usage)
        self.usage.update(values)

    @property
    def ended(self) -> bool:
        return self._ended

    def end(self, status: SpanStatus = SpanStatus.OK, error: BaseException | None = None) -> float:
        """End the span once; return its duration in seconds (monotonic)."""
        duration = (time.perf_counter_ns() - self.start_ns) / 1e9
        if self._ended:
            return duration
        self._ended = True
        self.collector.emit(
            SpanEndSignal(
                span_id=self.id,
                status=status,
                duration=duration,
                output=self.output,
                attributes=self.attributes,
                usage=self.usage,
                error=None
                if error is None
                else SpanError(type=type(error).__name__, message=str(error)),
            )
        )
        return duration


def active_collector() -> TraceCollector | None:
    """The collector of the run active in this task, or ``None`` outside a run."""
    return _collector.get()


def active_span() -> ActiveSpan | None:
    """The innermost open span of this task, or ``None``."""
    return _span.get()


@contextmanager
def bind_collector(collector: TraceCollector) -> Iterator[TraceCollector]:
    """Make ``collector`` the active one (and clear the active span) inside the block."""
    collector_token = _collector.set(collector)
    span_token = _span.set(None)
    try:
        yield collector
    finally:
        _span.reset(span_token)
        _collector.reset(collector_token)


@contextmanager
def start_span(
    operation: str,
    *,
    kind: str = SpanKind.CUSTOM,
    scope: InstrumentationScope = MANUAL_SCOPE,
    input: Any = None,
    attributes: Mapping[str, Any] | None = None,
    tags: Mapping[str, str] | None = None,
    collector: TraceCollector | None = None,
) -> Iterator[ActiveSpan]:
    """Open a span under the active span of this task, and close it on exit.

    When the body raises, the span ends with status ``error`` (``cancelled``
    for :class:`asyncio.CancelledError`) and the exception propagates
    unchanged. Raises ``RuntimeError`` when no collector is active and none is
    given.
    """
    target = collector or _collector.get()
    if target is None:
        raise RuntimeError("no active trace collector: spans can only be opened inside a run")
    parent = _span.get()
    scope_key = target.register_scope(scope)
    start_ns = time.perf_counter_ns()
    handle = ActiveSpan(
        target, new_span_id(), operation, str(kind), None if parent is None else parent.id, start_ns
    )
    target.emit(
        SpanStartSignal(
            span_id=handle.id,
            parent_id=handle.parent_id,
            operation=operation,
            kind=str(kind),
            scope=scope_key,
            started_at=datetime.now(UTC),
            offset=(start_ns - target.origin_ns) / 1e9,
            input=input,
            attributes=dict(attributes or {}),
            tags=dict(tags or {}),
        )
    )
    token = _span.set(handle)
    try:
        yield handle
    except asyncio.CancelledError as exc:
        handle.end(SpanStatus.CANCELLED, exc)
        raise
    except BaseException as exc:
        handle.end(SpanStatus.ERROR, exc)
        raise
    else:
        handle.end(SpanStatus.OK)
    finally:
        _span.reset(token)
