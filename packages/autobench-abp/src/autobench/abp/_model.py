"""The immutable trace model: one :class:`Trace` holding :class:`SpanRecord` values.

There is exactly one span model in Autobench. Manual ``ctx.span(...)`` calls,
method instrumentation and SDK instrumentors all produce ``SpanRecord`` values
inside a ``Trace``; ``TraceEnvelope`` is the same class under the name older
adapters import.

Field names are the ones written to ``run.yaml``. Times: ``started_at`` is a
UTC wall-clock timestamp, ``offset`` and ``duration`` are seconds measured on
the monotonic clock (``offset`` from the start of the trace), so durations are
never affected by wall-clock adjustments.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from autobench.abp._facts import (
    DiagnosticRecord,
    EventRecord,
    LinkRecord,
    MeasurementRecord,
    ReferenceRecord,
)

PROTOCOL_NAME = "abp"
PROTOCOL_VERSION = 1


class SpanKind(StrEnum):
    """Standard span kinds. Kinds are selectors, not a closed set: any string is accepted."""

    TASK = "task"
    AGENT = "agent"
    LLM = "llm"
    TOOL = "tool"
    RETRIEVER = "retriever"
    PARSER = "parser"
    WORKFLOW = "workflow"
    CUSTOM = "custom"


class SpanStatus(StrEnum):
    """How a span ended: ``ok``, ``error`` (its body raised) or ``cancelled``."""

    OK = "ok"
    ERROR = "error"
    CANCELLED = "cancelled"


class InstrumentationScope(BaseModel):
    """Provenance of a span: which instrumentor produced it, and how.

    ``mechanism`` is one of ``manual``, ``hook``, ``wrapper``, ``patch``;
    ``layer`` one of ``application``, ``framework``, ``client``, ``transport``.
    ``target_package``/``target_version`` name the instrumented library when
    there is one (an SDK), and ``source_convention`` the attribute naming the
    instrumentor's source facts follow (``openai``, ``gen_ai``, ...).
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    name: str
    version: str
    package: str = "autobench"
    package_version: str | None = None
    mechanism: str = "manual"
    layer: str = "application"
    target_package: str | None = None
    target_version: str | None = None
    source_convention: str | None = None


class SpanError(BaseModel):
    """The exception that ended a span: its type name and message."""

    model_config = ConfigDict(frozen=True, extra="allow")

    type: str
    message: str = ""


class SpanRecord(BaseModel):
    """One completed (or, with ``partial``, interrupted) operation of a trace.

    ``scope`` names an entry of :attr:`Trace.scopes`. ``parent`` is ``None``
    for a root span. ``usage`` holds token or request counts as the producer
    reported them (for example ``{"input_tokens": 420}``). ``measurements``,
    ``events``, ``links`` and ``references`` are the facts emitted for this
    span, in emission order (empty tuples are left out of the YAML).
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    id: str = Field(validation_alias=AliasChoices("id", "span_id"))
    operation: str = Field(validation_alias=AliasChoices("operation", "name"))
    kind: str = SpanKind.CUSTOM.value
    parent: str | None = Field(default=None, validation_alias=AliasChoices("parent", "parent_id"))
    scope: str = "autobench.manual"
    started_at: datetime | None = None
    offset: float = Field(default=0.0, description="Seconds from the trace start (monotonic).")
    duration: float | None = Field(
        default=None,
        description="Seconds (monotonic); None if partial.",
        validation_alias=AliasChoices("duration", "duration_seconds"),
    )
    status: SpanStatus = SpanStatus.OK
    input: Any = None
    output: Any = None
    attributes: dict[str, Any] = Field(default_factory=dict)
    usage: dict[str, Any] = Field(default_factory=dict)
    tags: dict[str, str] = Field(default_factory=dict)
    error: SpanError | None = None
    partial: bool = False
    measurements: tuple[MeasurementRecord, ...] = ()
    events: tuple[EventRecord, ...] = ()
    links: tuple[LinkRecord, ...] = ()
    references: tuple[ReferenceRecord, ...] = ()

    @property
    def name(self) -> str:
        """The operation name (``ctx.span(name)``)."""
        return self.operation

    @property
    def span_id(self) -> str:
        return self.id

    @property
    def parent_id(self) -> str | None:
        return self.parent

    @property
    def duration_seconds(self) -> float | None:
        return self.duration


class Trace(BaseModel):
    """An immutable, materialised trace: spans in start order plus their scopes.

    Unknown fields are kept (``extra="allow"``) so a record written by a newer
    protocol revision survives a load-save round trip. ``links``,
    ``references`` and ``diagnostics`` here are the trace-level ones (emitted
    without a span); diagnostics about a span carry its id in ``span``.
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    id: str = Field(validation_alias=AliasChoices("id", "trace_id"))
    protocol: str = PROTOCOL_NAME
    protocol_version: int = PROTOCOL_VERSION
    name: str | None = None
    scopes: dict[str, InstrumentationScope] = Field(default_factory=dict)
    spans: tuple[SpanRecord, ...] = ()
    partial: bool = False
    links: tuple[LinkRecord, ...] = ()
    references: tuple[ReferenceRecord, ...] = ()
    diagnostics: tuple[DiagnosticRecord, ...] = ()

    @property
    def trace_id(self) -> str:
        return self.id

    @property
    def root_spans(self) -> tuple[SpanRecord, ...]:
        """Spans without a parent, in start order."""
        return tuple(span for span in self.spans if span.parent is None)

    def span(self, span_id: str) -> SpanRecord:
        """Return the span with ``span_id``; raise ``KeyError`` when absent."""
        for candidate in self.spans:
            if candidate.id == span_id:
                return candidate
        raise KeyError(span_id)

    def children(self, span_id: str) -> tuple[SpanRecord, ...]:
        """Direct children of ``span_id``, in start order."""
        return tuple(span for span in self.spans if span.parent == span_id)

    def path(self, span_id: str) -> tuple[str, ...]:
        """Operation names from the root down to ``span_id`` (inclusive)."""
        by_id = {span.id: span for span in self.spans}
        names: list[str] = []
        current: str | None = span_id
        while current is not None and current in by_id:
            names.append(by_id[current].operation)
            current = by_id[current].parent
        return tuple(reversed(names))


TraceEnvelope = Trace
"""Compatibility name: older adapters build ``TraceEnvelope(...)``; it is :class:`Trace`."""
