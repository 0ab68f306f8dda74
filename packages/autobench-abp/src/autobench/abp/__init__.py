"""Autobench instrumentation protocol (ABP).

ABP is the one evidence protocol for spans in Autobench. Instrumentation code
emits *signals* (a span started, a span ended) into the *collector* of the
active run; the collector materialises them into one immutable :class:`Trace`.
The active run and the active parent span live on :mod:`contextvars`, so every
asyncio task and worker thread sees its own parent.

This package depends on pydantic only: a replay-only worker can read traces
without any instrumented SDK installed.
"""

from autobench.abp._collector import TraceCollector
from autobench.abp._context import (
    MANUAL_SCOPE,
    ActiveSpan,
    active_collector,
    active_span,
    bind_collector,
    start_span,
)
from autobench.abp._ids import new_span_id, new_trace_id
from autobench.abp._model import (
    PROTOCOL_NAME,
    PROTOCOL_VERSION,
    InstrumentationScope,
    SpanError,
    SpanKind,
    SpanRecord,
    SpanStatus,
    Trace,
    TraceEnvelope,
)
from autobench.abp._signals import Signal, SpanEndSignal, SpanStartSignal

__all__ = [
    "MANUAL_SCOPE",
    "PROTOCOL_NAME",
    "PROTOCOL_VERSION",
    "ActiveSpan",
    "InstrumentationScope",
    "Signal",
    "SpanEndSignal",
    "SpanError",
    "SpanKind",
    "SpanRecord",
    "SpanStartSignal",
    "SpanStatus",
    "Trace",
    "TraceCollector",
    "TraceEnvelope",
    "active_collector",
    "active_span",
    "bind_collector",
    "new_span_id",
    "new_trace_id",
    "start_span",
]
