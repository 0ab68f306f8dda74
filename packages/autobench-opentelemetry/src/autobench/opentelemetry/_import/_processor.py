"""The span processor: each OpenTelemetry span started inside a run becomes an ABP span.

``on_start`` runs in the context that starts the span. Outside a run (no active ABP
collector) or while the ``opentelemetry`` instrumentor is suppressed it does nothing.
Inside a run it opens an ABP span of that run's collector, under:

* the ABP span of the OpenTelemetry parent, when the parent was started in the same run;
  but when an ABP span of the run is active in this context and started after that
  parent (a native span opened inside it), under that ABP span, so the finer nesting wins;
* otherwise the run's active ABP span (the run's root when none is active).

Concurrent runs never mix: the collector comes from the starting context (ABP's
contextvars), and a parent of another run's collector is never used. ``on_end`` maps the
attributes the span ended with (``_mapping``), its status and error, and ends the ABP span.

Native wins: when the native Autobench instrumentor of the library that emitted the span
(``_scopes.native_of``) has recorded spans in the same run, the span's usage is marked
``aggregate`` (validation evidence: accounting compares it, never adds it) and the span
says so with the attribute ``accounting.covered_by``; such a span is not made ABP's active
span either (``_context_bridge``), so the native spans keep their own nesting.

Whatever its scope, an imported model-request span of the client layer that measured the
same request as a native span (its parent or its child, same operation and model; see
``_pairing``) is evidence of that call too: its usage is marked ``aggregate`` and it names
the native scope in ``accounting.covered_by`` and the native span in
``accounting.paired_span``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from autobench.abp import (
    AbstractionLayer,
    ActiveSpan,
    InstrumentationScope,
    InstrumentorInfo,
    SpanError,
)
from autobench.abp._context import _collector, _span, open_span_handle
from autobench.abp._suppress import _suppressed, is_suppressed
from autobench.opentelemetry._import._mapping import map_attributes, span_kind
from autobench.opentelemetry._import._pairing import paired_native
from autobench.opentelemetry._import._scopes import abp_scope, native_of
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from opentelemetry.trace import StatusCode

_perf_counter_ns = time.perf_counter_ns
CLIENT = str(AbstractionLayer.CLIENT)


class AutobenchSpanProcessor(SpanProcessor):
    """Mirrors the OpenTelemetry spans of active runs as ABP spans (module docstring).

    ``info`` is the instrumentor's identity (its id is the suppression key);
    ``capture_content`` keeps the GenAI content attributes. ``enabled`` is ``False`` once
    the instrumentor is uninstalled: the processor stays on the provider (the SDK cannot
    remove one) and does nothing until it is enabled again.
    """

    def __init__(self, info: InstrumentorInfo, *, capture_content: bool = False) -> None:
        self.info = info
        self.capture_content = capture_content
        self.enabled = True
        self._open: dict[int, tuple[ActiveSpan, str | None, bool, ActiveSpan | None]] = {}
        """OpenTelemetry span id -> its open ABP span, the id of the native instrumentor of
        the library that emitted it, whether its scope is of the client layer, and the ABP
        span it was opened under (when known here)."""
        self._scopes: dict[int, tuple[Any, InstrumentationScope, str | None]] = {}
        """``id()`` of an OpenTelemetry scope -> (that scope, its ABP scope, native id)."""

    def on_start(self, span: Span, parent_context: Any = None) -> None:
        collector = _collector.get()
        if collector is None or not self.enabled:
            return
        if _suppressed.get() is not None and is_suppressed(self.info.id, span.name):
            return
        parent: ActiveSpan | None = None
        otel_parent = span.parent
        if otel_parent is not None:
            found = self._open.get(otel_parent.span_id)
            if found is not None:
                parent = found[0]
                active = _span.get()
                if parent.collector is not collector:
                    parent = None
                elif (
                    active is not None
                    and active.collector is collector
                    and active.start_ns > parent.start_ns
                    and not active._ended
                ):
                    parent = active
        scope, native = self._scope_of(span)
        handle = open_span_handle(
            span.name,
            span_kind(span.name, attributes_of(span)),
            scope,
            None,
            None,
            None,
            collector,
            parent,
        )
        if parent is None:
            parent = _span.get()
        self._open[span.context.span_id] = (handle, native, scope.layer == CLIENT, parent)

    def on_end(self, span: ReadableSpan) -> None:
        context = span.context
        if context is None:
            return
        found = self._open.pop(context.span_id, None)
        if found is None:
            return
        handle, native, client, parent = found
        if handle._ended:
            return
        attributes, usage = map_attributes(
            attributes_of(span), handle.kind, capture_content=self.capture_content
        )
        if usage:
            if covered(handle, native):
                usage["aggregate"] = True
                attributes["accounting.covered_by"] = native
            elif client and handle.kind == "llm":
                paired = paired_native(handle, parent, attributes)
                if paired is not None:
                    usage["aggregate"] = True
                    attributes["accounting.covered_by"] = paired[0]
                    attributes["accounting.paired_span"] = paired[1]
        # The ids the application's own exporter sent, to link both copies of the span.
        attributes["otel.trace_id"] = f"{context.trace_id:032x}"
        attributes["otel.span_id"] = f"{context.span_id:016x}"
        status, error = _outcome(span, attributes)
        _end(handle, status, error, attributes, usage)

    def _scope_of(self, span: ReadableSpan) -> tuple[InstrumentationScope, str | None]:
        otel_scope = span.instrumentation_scope
        found = self._scopes.get(id(otel_scope))
        if found is None or found[0] is not otel_scope:
            name = otel_scope.name if otel_scope is not None else "unknown"
            version = otel_scope.version if otel_scope is not None else None
            found = (otel_scope, abp_scope(self.info, name, version), native_of(name))
            self._scopes[id(otel_scope)] = found
        return found[1], found[2]

    def open_span(self, span_id: int) -> ActiveSpan | None:
        """The ABP span of the open OpenTelemetry span ``span_id``, if it was imported and is
        not covered by a native instrumentor recording in its run (see :func:`covered`)."""
        found = self._open.get(span_id)
        if found is None or covered(found[0], found[1]):
            return None
        return found[0]

    def forget(self) -> None:
        """Drop the spans still open (the instrumentor is being uninstalled)."""
        self._open.clear()

    def shutdown(self) -> None:
        self.forget()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def attributes_of(span: ReadableSpan) -> Mapping[str, Any]:
    """The attributes of ``span`` as a mapping: the plain dict inside the SDK's
    ``BoundedAttributes`` when there is one (``_attributes._dict``, opentelemetry-sdk 1.30 to
    1.45: iterating it costs no Python call per attribute), else ``span.attributes``."""
    inner = getattr(getattr(span, "_attributes", None), "_dict", None)
    if inner.__class__ is dict:
        return inner
    return span.attributes or {}


def covered(handle: ActiveSpan, native: str | None) -> bool:
    """Whether the native instrumentor ``native`` (of the library that emitted the span of
    ``handle``) has recorded spans in ``handle``'s run: its spans then win."""
    return native is not None and native in handle.collector._scopes


def _outcome(span: ReadableSpan, attributes: dict[str, Any]) -> tuple[str, SpanError | None]:
    """``(status, error)`` of the ABP span: ``error`` with the error type (``error.type``,
    else the recorded exception's type, else ``Error``) when the OpenTelemetry status is an
    error; ``ok`` otherwise."""
    status = span.status
    if status is None or status.status_code is not StatusCode.ERROR:
        return "ok", None
    error_type = attributes.get("error.type")
    message = status.description or ""
    for event in span.events:
        if event.name == "exception" and event.attributes:
            error_type = error_type or event.attributes.get("exception.type")
            message = message or str(event.attributes.get("exception.message") or "")
            break
    return "error", SpanError(type=str(error_type or "Error"), message=message)


def _end(
    handle: ActiveSpan,
    status: str,
    error: SpanError | None,
    attributes: dict[str, Any],
    usage: dict[str, Any],
) -> None:
    """End ``handle`` with the mapped facts (the span path of ``ActiveSpan.end``: the
    attributes pass the capture policy when the trace is materialized)."""
    handle._ended = True
    collector = handle.collector
    if error is not None and error.message:
        error = SpanError(type=error.type, message=collector.capture.text(error.message))
    collector.emit_end(
        (
            handle.id,
            status,
            (_perf_counter_ns() - handle.start_ns) / 1e9,
            None,
            attributes or None,
            usage or None,
            error,
            False,
        )
    )
