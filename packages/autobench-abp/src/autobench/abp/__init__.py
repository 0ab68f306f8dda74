"""Autobench instrumentation protocol (ABP).

ABP is the one evidence protocol for spans in Autobench. Instrumentation code
emits *signals* (a span started, a span ended) into the *collector* of the
active run; the collector materialises them into one immutable :class:`Trace`.
The active run and the active parent span live on :mod:`contextvars`, so every
asyncio task and worker thread sees its own parent.

This package depends on pydantic and packaging only: a replay-only worker can read traces
without any instrumented SDK installed.
"""

from autobench.abp._capture import (
    ARTIFACT_MARKER_KEY,
    DEFAULT_CAPTURE_POLICY,
    DEFAULT_MAX_STRING,
    DEFAULT_SECRET_KEYS,
    DEFAULT_SECRET_PATTERNS,
    REDACTED,
    CaptureMode,
    CapturePolicy,
    PayloadRef,
    hash_value,
)
from autobench.abp._collector import TraceCollector
from autobench.abp._context import (
    MANUAL_SCOPE,
    ActiveSpan,
    SpanScope,
    active_collector,
    active_span,
    bind_collector,
    current_span,
    emit_diagnostic,
    start_span,
)
from autobench.abp._errors import AutobenchError
from autobench.abp._extract import (
    InstrumentCall,
    InstrumentFactorSpec,
    InstrumentMetricSpec,
    ValuePathError,
    resolve_value_path,
)
from autobench.abp._facts import (
    AccountingScope,
    DiagnosticRecord,
    EventRecord,
    LinkRecord,
    LinkRelation,
    MeasurementRecord,
    ReferenceRecord,
    Severity,
)
from autobench.abp._gc import gc_paused, gc_paused_for
from autobench.abp._ids import new_span_id, new_trace_id
from autobench.abp._instrumentor import (
    AbstractionLayer,
    CaptureMechanism,
    Compatibility,
    CompatibilityState,
    InstrumentationHandle,
    InstrumentorInfo,
    check_target,
)
from autobench.abp._manager import InstrumentationError, InstrumentationManager
from autobench.abp._measure import (
    InstrumentMeasurement,
    MeasurementSink,
    measurement_sink,
    set_measurement_sink,
)
from autobench.abp._method import instrument_method
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
from autobench.abp._runtime import InstrumentationRuntime, Instrumentor
from autobench.abp._sdk import DeferredInstrumentor
from autobench.abp._signals import (
    DiagnosticSignal,
    EventSignal,
    LinkSignal,
    MeasurementSignal,
    ReferenceSignal,
    Signal,
    SpanEndSignal,
    SpanFactSignal,
    SpanStartSignal,
)
from autobench.abp._streams import END_REASON, FIRST_ITEM, ITEMS
from autobench.abp._suppress import is_suppressed, suppress_instrumentation

__all__ = [
    "ARTIFACT_MARKER_KEY",
    "DEFAULT_CAPTURE_POLICY",
    "DEFAULT_MAX_STRING",
    "DEFAULT_SECRET_KEYS",
    "DEFAULT_SECRET_PATTERNS",
    "END_REASON",
    "FIRST_ITEM",
    "ITEMS",
    "MANUAL_SCOPE",
    "PROTOCOL_NAME",
    "PROTOCOL_VERSION",
    "REDACTED",
    "AbstractionLayer",
    "AccountingScope",
    "ActiveSpan",
    "AutobenchError",
    "CaptureMechanism",
    "CaptureMode",
    "CapturePolicy",
    "Compatibility",
    "CompatibilityState",
    "DeferredInstrumentor",
    "DiagnosticRecord",
    "DiagnosticSignal",
    "EventRecord",
    "EventSignal",
    "InstrumentCall",
    "InstrumentFactorSpec",
    "InstrumentMeasurement",
    "InstrumentMetricSpec",
    "InstrumentationError",
    "InstrumentationHandle",
    "InstrumentationManager",
    "InstrumentationRuntime",
    "InstrumentationScope",
    "Instrumentor",
    "InstrumentorInfo",
    "LinkRecord",
    "LinkRelation",
    "LinkSignal",
    "MeasurementRecord",
    "MeasurementSignal",
    "MeasurementSink",
    "PayloadRef",
    "ReferenceRecord",
    "ReferenceSignal",
    "Severity",
    "Signal",
    "SpanEndSignal",
    "SpanError",
    "SpanFactSignal",
    "SpanKind",
    "SpanRecord",
    "SpanScope",
    "SpanStartSignal",
    "SpanStatus",
    "Trace",
    "TraceCollector",
    "TraceEnvelope",
    "ValuePathError",
    "active_collector",
    "active_span",
    "bind_collector",
    "check_target",
    "current_span",
    "emit_diagnostic",
    "gc_paused",
    "gc_paused_for",
    "hash_value",
    "instrument_method",
    "is_suppressed",
    "measurement_sink",
    "new_span_id",
    "new_trace_id",
    "resolve_value_path",
    "set_measurement_sink",
    "start_span",
    "suppress_instrumentation",
]
