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
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar, Token
from types import TracebackType
from typing import Any

from autobench.abp._collector import TraceCollector
from autobench.abp._facts import AccountingScope, Severity
from autobench.abp._ids import _generator
from autobench.abp._model import (
    InstrumentationScope,
    SpanError,
    SpanKind,
    SpanStatus,
)
from autobench.abp._signals import (
    DiagnosticSignal,
    EventSignal,
    LinkSignal,
    MeasurementSignal,
    ReferenceSignal,
)

_VERSION = "0.1.0"

MANUAL_SCOPE = InstrumentationScope(
    name="autobench.manual", version=_VERSION, package="autobench", package_version=_VERSION
)
"""Scope of spans opened by hand through ``ctx.span(...)``."""

_KIND_VALUES: dict[str, str] = {kind: kind.value for kind in SpanKind}
"""Plain-string values of the standard kinds (``str()`` of an enum member is slow)."""

_OK = SpanStatus.OK
_getrandbits = _generator.getrandbits
_perf_counter_ns = time.perf_counter_ns

_new_signal: Any = tuple.__new__
"""Builds a span signal from the tuple of all its fields (see :func:`open_span_handle`)."""

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

    def record_measurement(
        self,
        name: str,
        value: int | float,
        *,
        semantic_type: str | None = None,
        unit: str | None = None,
        accounting: str = AccountingScope.DIRECT,
        layer: str | None = None,
        operation_id: str | None = None,
        attributes: Mapping[str, Any] | None = None,
    ) -> None:
        """Record a numeric ``value`` (in ``unit``) this span measured.

        ``accounting`` is ``direct`` (this operation alone) or ``aggregate``
        (a roll-up of nested work); ``operation_id`` names the logical
        operation so layers measuring the same call can be deduplicated.
        """
        collector = self.collector
        collector.emit(
            MeasurementSignal(
                span_id=self.id,
                name=name,
                value=value,
                semantic_type=semantic_type,
                unit=unit,
                accounting=str(accounting),
                layer=layer,
                operation_id=operation_id,
                offset=collector.now(),
                attributes=collector.capture.apply_mapping(dict(attributes or {})),
            )
        )

    def add_event(self, name: str, attributes: Mapping[str, Any] | None = None) -> None:
        """Record a named point in time in this span (attributes pass the capture policy)."""
        collector = self.collector
        collector.emit(
            EventSignal(
                span_id=self.id,
                name=name,
                offset=collector.now(),
                attributes=collector.capture.apply_mapping(dict(attributes or {})),
            )
        )

    def add_link(
        self,
        relation: str,
        *,
        span: str | None = None,
        trace: str | None = None,
        attributes: Mapping[str, Any] | None = None,
    ) -> None:
        """Link this span to another span and/or trace. Raises ``ValueError`` without a target."""
        if span is None and trace is None:
            raise ValueError("a link needs a target span or trace")
        self.collector.emit(
            LinkSignal(
                span_id=self.id,
                relation=str(relation),
                target_span=span,
                target_trace=trace,
                attributes=dict(attributes or {}),
            )
        )

    def add_reference(
        self,
        kind: str,
        ref_id: str,
        *,
        name: str | None = None,
        uri: str | None = None,
        media_type: str | None = None,
        attributes: Mapping[str, Any] | None = None,
    ) -> None:
        """Reference an artifact (``kind="artifact"``, ``ref_id`` its id) or an external id."""
        self.collector.emit(
            ReferenceSignal(
                span_id=self.id,
                kind=kind,
                ref_id=ref_id,
                name=name,
                uri=uri,
                media_type=media_type,
                attributes=dict(attributes or {}),
            )
        )

    def add_diagnostic(
        self,
        code: str,
        message: str,
        *,
        severity: str = Severity.WARNING,
        attributes: Mapping[str, Any] | None = None,
    ) -> None:
        """Record a diagnostic about this span (it goes to the trace's ``diagnostics``)."""
        emit_diagnostic(
            code,
            message,
            severity=severity,
            span_id=self.id,
            attributes=attributes,
            collector=self.collector,
        )

    @property
    def ended(self) -> bool:
        return self._ended

    def end(self, status: SpanStatus = SpanStatus.OK, error: BaseException | None = None) -> float:
        """End the span once; return its duration in seconds (monotonic).

        The output passes the collector's capture policy here; the attributes are handed
        over as they are (the span keeps an empty mapping, so later changes are not
        recorded) and pass the policy when the trace is materialized, off the span path.
        """
        duration = (_perf_counter_ns() - self.start_ns) / 1e9
        if self._ended:
            return duration
        self._ended = True
        collector = self.collector
        output = self.output
        if output is not None:
            output = collector.capture_payload(
                output, name=f"{self.operation}.output", span_id=self.id
            )
        attributes: Mapping[str, Any] | None = self.attributes
        if attributes:
            self.attributes = {}
        else:
            attributes = None
        collector.emit_end(  # a plain tuple: see TraceCollector.emit_end
            (
                self.id,  # span_id
                "ok" if status is _OK else getattr(status, "value", status),
                duration,
                output,
                attributes,
                dict(self.usage) if self.usage else None,
                None
                if error is None
                else SpanError(
                    type=type(error).__name__, message=collector.capture.text(str(error))
                ),
                False,  # partial
            )
        )
        return duration


def active_collector() -> TraceCollector | None:
    """The collector of the run active in this task, or ``None`` outside a run."""
    return _collector.get()


def active_span() -> ActiveSpan | None:
    """The innermost open span of this task, or ``None``."""
    return _span.get()


current_span: Callable[[], ActiveSpan | None] = _span.get
""":func:`active_span` as the context variable's own method, for per-call paths (one
Python frame fewer)."""


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


def emit_diagnostic(
    code: str,
    message: str,
    *,
    severity: str = Severity.WARNING,
    span_id: str | None = None,
    scope: str | None = None,
    attributes: Mapping[str, Any] | None = None,
    collector: TraceCollector | None = None,
) -> bool:
    """Record a diagnostic in the trace of ``collector`` (default: the active one).

    Returns ``False`` (and records nothing) when no collector is active, so
    instrumentation can report problems outside a run without failing.
    """
    target = collector or _collector.get()
    if target is None:
        return False
    target.emit(
        DiagnosticSignal(
            code=code,
            message=message,
            severity=str(severity),
            span_id=span_id,
            scope=scope,
            attributes=dict(attributes or {}),
        )
    )
    return True


def open_span_handle(
    operation: str,
    kind: str,
    scope: InstrumentationScope,
    input: Any,
    attributes: Mapping[str, Any] | None,
    tags: Mapping[str, str] | None,
    collector: TraceCollector | None,
    parent: ActiveSpan | None = None,
) -> ActiveSpan:
    """Start a span under the span active in the calling context and return its handle,
    without making it the active span (the caller decides: :class:`SpanScope` binds it for
    its block, a detached stream span is bound only while the stream runs).

    ``parent``, when given, replaces the active span as the parent (an SDK that reports its
    own parentage, such as a trace processor, names it); a parent of another trace than the
    collector's is ignored like an active span of another trace. Raises ``RuntimeError``
    when no collector is active and none is given.
    """
    target = collector or _collector.get()
    if target is None:
        raise RuntimeError("no active trace collector: spans can only be opened inside a run")
    if parent is None:
        parent = _span.get()
    # A span opened where no span of this trace is active (a thread started without the
    # task's context) belongs under the trace's adoptive parent, the run's root span.
    parent_id = (
        target.adoptive_parent if parent is None or parent.collector is not target else parent.id
    )
    scope_key = scope.name
    if target._scopes.get(scope_key) is not scope:
        target.register_scope(scope)
    start_ns = _perf_counter_ns()
    if kind.__class__ is not str:
        kind = _KIND_VALUES.get(kind) or str(kind)
    span_id = f"{_getrandbits(64):016x}"  # new_span_id(), inline: this is every span's path
    handle = ActiveSpan(target, span_id, operation, kind, parent_id, start_ns)
    if input is not None:
        input = target.capture_payload(input, name=f"{operation}.input", span_id=span_id)
    target.emit_start(  # a plain tuple: see TraceCollector.emit_start
        (
            span_id,
            parent_id,
            operation,
            kind,
            scope_key,  # scope
            None,  # started_at: derived from the offset
            (start_ns - target.origin_ns) / 1e9,  # offset
            input,
            target.capture.apply_mapping(dict(attributes)) if attributes else None,
            dict(tags) if tags else None,
        )
    )
    return handle


class SpanScope:
    """The context manager :func:`start_span` returns; entering it opens the span.

    A class rather than a generator-based context manager: it is on the path
    of every span. It is single use.
    """

    __slots__ = (
        "_attributes",
        "_collector",
        "_handle",
        "_input",
        "_kind",
        "_operation",
        "_scope",
        "_tags",
        "_token",
    )

    def __init__(
        self,
        operation: str,
        kind: str,
        scope: InstrumentationScope,
        input: Any,
        attributes: Mapping[str, Any] | None,
        tags: Mapping[str, str] | None,
        collector: TraceCollector | None,
    ) -> None:
        self._operation = operation
        self._kind = kind
        self._scope = scope
        self._input = input
        self._attributes = attributes
        self._tags = tags
        self._collector = collector
        self._handle: ActiveSpan | None = None
        self._token: Token[ActiveSpan | None] | None = None

    def __enter__(self) -> ActiveSpan:
        handle = open_span_handle(
            self._operation,
            self._kind,
            self._scope,
            self._input,
            self._attributes,
            self._tags,
            self._collector,
        )
        self._handle = handle
        self._token = _span.set(handle)
        return handle

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        handle, token = self._handle, self._token
        if handle is None or token is None:
            return
        try:
            if exc is None:
                handle.end(_OK)
            else:
                self._end(handle, exc)
        finally:
            _span.reset(token)

    @staticmethod
    def _end(handle: ActiveSpan, exc: BaseException | None) -> float:
        """End ``handle`` as leaving the block with ``exc`` does (``ok``; ``cancelled`` for
        :class:`asyncio.CancelledError`; else ``error``); return its duration in seconds."""
        if exc is None:
            return handle.end(SpanStatus.OK)
        if isinstance(exc, asyncio.CancelledError):
            return handle.end(SpanStatus.CANCELLED, exc)
        return handle.end(SpanStatus.ERROR, exc)


def start_span(
    operation: str,
    *,
    kind: str = SpanKind.CUSTOM,
    scope: InstrumentationScope = MANUAL_SCOPE,
    input: Any = None,
    attributes: Mapping[str, Any] | None = None,
    tags: Mapping[str, str] | None = None,
    collector: TraceCollector | None = None,
) -> SpanScope:
    """Open a span under the active span of this task (``with start_span(...) as span``).

    The span starts when the block is entered and ends when it is left. When
    the body raises, the span ends with status ``error`` (``cancelled`` for
    :class:`asyncio.CancelledError`) and the exception propagates unchanged.
    ``input`` and ``attributes`` (and later the output) pass the collector's
    :class:`~autobench.abp.CapturePolicy`. Entering raises ``RuntimeError``
    when no collector is active and none is given.
    """
    return SpanScope(operation, kind, scope, input, attributes, tags, collector)
