"""Signals: the facts instrumentation emits while a trace is being recorded.

A span is described by :class:`SpanStartSignal` and :class:`SpanEndSignal`;
the collector joins them into a :class:`SpanRecord`. Measurement, event,
link, reference and diagnostic signals name the span they belong to in
``span_id`` (``None``: the trace itself) and become the matching records
(:mod:`autobench.abp._facts`). Offsets are monotonic seconds from the trace
start.

Signals are immutable named tuples (build them with keyword arguments)
rather than pydantic models: they are built on the hot path of every span,
and their values were already checked (or produced) by the code that emits
them; the records they materialise into are validated. Each carries its
``type`` and the protocol version so a stream of them can be stored or
shipped on its own (``signal._asdict()`` gives the plain form). Mapping fields
default to an empty read-only mapping.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from autobench.abp._facts import AccountingScope, Severity
from autobench.abp._model import PROTOCOL_VERSION, SpanError, SpanStatus

EMPTY: Mapping[str, Any] = MappingProxyType({})
"""The default of mapping fields: empty and read-only, so it is safe to share."""


class SpanStartSignal(NamedTuple):
    """A span began. ``offset`` is monotonic seconds from the trace start.

    ``started_at`` (UTC) may be ``None``: the collector then derives it from
    its own wall-clock origin plus ``offset``, which keeps a clock read off
    the span path and start times consistent with offsets."""

    span_id: str
    parent_id: str | None
    operation: str
    kind: str
    scope: str
    started_at: datetime | None
    offset: float
    input: Any = None
    attributes: Mapping[str, Any] = EMPTY
    tags: Mapping[str, str] = EMPTY
    type: Literal["span_start"] = "span_start"
    protocol_version: int = PROTOCOL_VERSION


class SpanEndSignal(NamedTuple):
    """A span ended after ``duration`` monotonic seconds, with its final data."""

    span_id: str
    status: SpanStatus
    duration: float | None
    output: Any = None
    attributes: Mapping[str, Any] = EMPTY
    usage: Mapping[str, Any] = EMPTY
    error: SpanError | None = None
    partial: bool = False
    type: Literal["span_end"] = "span_end"
    protocol_version: int = PROTOCOL_VERSION


class MeasurementSignal(NamedTuple):
    """A numeric value measured by the span ``span_id`` (see :class:`MeasurementRecord`)."""

    span_id: str | None
    name: str
    value: int | float
    semantic_type: str | None = None
    unit: str | None = None
    accounting: str = AccountingScope.DIRECT.value
    layer: str | None = None
    operation_id: str | None = None
    offset: float | None = None
    attributes: Mapping[str, Any] = EMPTY
    type: Literal["measurement"] = "measurement"
    protocol_version: int = PROTOCOL_VERSION


class EventSignal(NamedTuple):
    """A named point in time inside the span ``span_id``."""

    span_id: str | None
    name: str
    offset: float
    attributes: Mapping[str, Any] = EMPTY
    type: Literal["event"] = "event"
    protocol_version: int = PROTOCOL_VERSION


class LinkSignal(NamedTuple):
    """A ``relation`` from the span ``span_id`` (or the trace) to ``target_span`` and/or
    ``target_trace``."""

    span_id: str | None
    relation: str
    target_span: str | None = None
    target_trace: str | None = None
    attributes: Mapping[str, Any] = EMPTY
    type: Literal["link"] = "link"
    protocol_version: int = PROTOCOL_VERSION


class ReferenceSignal(NamedTuple):
    """A reference from the span ``span_id`` (or the trace) to an artifact (``kind``
    ``artifact``) or an external id."""

    span_id: str | None
    kind: str
    ref_id: str
    name: str | None = None
    uri: str | None = None
    media_type: str | None = None
    attributes: Mapping[str, Any] = EMPTY
    type: Literal["reference"] = "reference"
    protocol_version: int = PROTOCOL_VERSION


class DiagnosticSignal(NamedTuple):
    """A diagnostic about the span ``span_id`` or the whole trace."""

    code: str
    message: str
    severity: str = Severity.WARNING.value
    span_id: str | None = None
    scope: str | None = None
    attributes: Mapping[str, Any] = EMPTY
    type: Literal["diagnostic"] = "diagnostic"
    protocol_version: int = PROTOCOL_VERSION


SpanFactSignal = MeasurementSignal | EventSignal | LinkSignal | ReferenceSignal
"""Signals that attach a fact to a span (or, with ``span_id`` ``None``, to the trace)."""

Signal = (
    SpanStartSignal
    | SpanEndSignal
    | MeasurementSignal
    | EventSignal
    | LinkSignal
    | ReferenceSignal
    | DiagnosticSignal
)
"""Any ABP signal."""
