"""Autobench instrumentation protocol (ABP).

ABP is the one evidence protocol for spans in Autobench. Instrumentation code
emits *signals* (a span started, a span ended) into the *collector* of the
active run; the collector materialises them into one immutable :class:`Trace`.
The active run and the active parent span live on :mod:`contextvars`, so every
asyncio task and worker thread sees its own parent.

This package depends on pydantic and packaging only: a replay-only worker can read traces
without any instrumented SDK installed.
"""

from autobench.abp._capture import ARTIFACT_MARKER_KEY as ARTIFACT_MARKER_KEY
from autobench.abp._capture import DEFAULT_CAPTURE_POLICY, CapturePolicy, PayloadRef
from autobench.abp._capture import DEFAULT_MAX_STRING as DEFAULT_MAX_STRING
from autobench.abp._capture import DEFAULT_SECRET_KEYS as DEFAULT_SECRET_KEYS
from autobench.abp._capture import DEFAULT_SECRET_PATTERNS as DEFAULT_SECRET_PATTERNS
from autobench.abp._capture import REDACTED as REDACTED
from autobench.abp._capture import CaptureMode as CaptureMode
from autobench.abp._capture import hash_value as hash_value
from autobench.abp._collector import TraceCollector
from autobench.abp._context import MANUAL_SCOPE as MANUAL_SCOPE
from autobench.abp._context import ActiveSpan as ActiveSpan
from autobench.abp._context import SpanScope as SpanScope
from autobench.abp._context import active_collector as active_collector
from autobench.abp._context import active_span as active_span
from autobench.abp._context import bind_collector, start_span
from autobench.abp._context import current_span as current_span
from autobench.abp._context import emit_diagnostic as emit_diagnostic
from autobench.abp._errors import AutobenchError
from autobench.abp._extract import InstrumentCall as InstrumentCall
from autobench.abp._extract import InstrumentFactorSpec as InstrumentFactorSpec
from autobench.abp._extract import InstrumentMetricSpec as InstrumentMetricSpec
from autobench.abp._extract import ValuePathError as ValuePathError
from autobench.abp._extract import resolve_value_path as resolve_value_path
from autobench.abp._facts import NESTED_RUN as NESTED_RUN
from autobench.abp._facts import USAGE_UNMEASURED as USAGE_UNMEASURED
from autobench.abp._facts import AccountingScope as AccountingScope
from autobench.abp._facts import (
    DiagnosticRecord,
    EventRecord,
    LinkRecord,
    MeasurementRecord,
    ReferenceRecord,
)
from autobench.abp._facts import LinkRelation as LinkRelation
from autobench.abp._facts import Severity as Severity
from autobench.abp._gc import gc_paused as gc_paused
from autobench.abp._gc import gc_paused_for as gc_paused_for
from autobench.abp._gc import settle_long_lived as settle_long_lived
from autobench.abp._ids import new_span_id as new_span_id
from autobench.abp._ids import new_trace_id as new_trace_id
from autobench.abp._instrumentor import AbstractionLayer as AbstractionLayer
from autobench.abp._instrumentor import CaptureMechanism as CaptureMechanism
from autobench.abp._instrumentor import Compatibility as Compatibility
from autobench.abp._instrumentor import CompatibilityState as CompatibilityState
from autobench.abp._instrumentor import InstrumentationHandle as InstrumentationHandle
from autobench.abp._instrumentor import InstrumentorInfo as InstrumentorInfo
from autobench.abp._instrumentor import check_target as check_target
from autobench.abp._manager import InstrumentationError as InstrumentationError
from autobench.abp._manager import InstrumentationManager as InstrumentationManager
from autobench.abp._measure import InstrumentMeasurement as InstrumentMeasurement
from autobench.abp._measure import MeasurementSink as MeasurementSink
from autobench.abp._measure import measurement_sink as measurement_sink
from autobench.abp._measure import set_measurement_sink as set_measurement_sink
from autobench.abp._method import instrument_method as instrument_method
from autobench.abp._model import PROTOCOL_NAME as PROTOCOL_NAME
from autobench.abp._model import PROTOCOL_VERSION as PROTOCOL_VERSION
from autobench.abp._model import InstrumentationScope, SpanKind, SpanRecord, Trace, TraceEnvelope
from autobench.abp._model import SpanError as SpanError
from autobench.abp._model import SpanStatus as SpanStatus
from autobench.abp._provider import PROVIDER as PROVIDER
from autobench.abp._provider import SERVER_ADDRESS as SERVER_ADDRESS
from autobench.abp._runtime import InstrumentationRuntime as InstrumentationRuntime
from autobench.abp._runtime import Instrumentor as Instrumentor
from autobench.abp._sdk import DeferredInstrumentor
from autobench.abp._secrets import DEFAULT_SECRET_QUERY_PARAMS as DEFAULT_SECRET_QUERY_PARAMS
from autobench.abp._secrets import RedactionAdditions as RedactionAdditions
from autobench.abp._secrets import extend_redaction as extend_redaction
from autobench.abp._secrets import normalise_key as normalise_key
from autobench.abp._secrets import pattern_problem as pattern_problem
from autobench.abp._secrets import redaction_additions as redaction_additions
from autobench.abp._signals import DiagnosticSignal as DiagnosticSignal
from autobench.abp._signals import EventSignal as EventSignal
from autobench.abp._signals import LinkSignal as LinkSignal
from autobench.abp._signals import MeasurementSignal as MeasurementSignal
from autobench.abp._signals import ReferenceSignal as ReferenceSignal
from autobench.abp._signals import Signal as Signal
from autobench.abp._signals import SpanEndSignal as SpanEndSignal
from autobench.abp._signals import SpanFactSignal as SpanFactSignal
from autobench.abp._signals import SpanStartSignal as SpanStartSignal
from autobench.abp._streams import END_REASON as END_REASON
from autobench.abp._streams import FIRST_ITEM as FIRST_ITEM
from autobench.abp._streams import ITEMS as ITEMS
from autobench.abp._streams import OPEN_AT_RUN_END as OPEN_AT_RUN_END
from autobench.abp._streams import STREAM_NOT_CONSUMED as STREAM_NOT_CONSUMED
from autobench.abp._suppress import is_suppressed as is_suppressed
from autobench.abp._suppress import suppress_instrumentation as suppress_instrumentation

__all__ = [
    "DEFAULT_CAPTURE_POLICY",
    "AutobenchError",
    "CapturePolicy",
    "DeferredInstrumentor",
    "DiagnosticRecord",
    "EventRecord",
    "InstrumentationScope",
    "LinkRecord",
    "MeasurementRecord",
    "PayloadRef",
    "ReferenceRecord",
    "SpanKind",
    "SpanRecord",
    "Trace",
    "TraceCollector",
    "TraceEnvelope",
    "bind_collector",
    "start_span",
]
