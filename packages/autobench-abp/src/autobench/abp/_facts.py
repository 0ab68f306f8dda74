"""Facts attached to spans and traces: measurements, events, links, references, diagnostics.

Each is an immutable pydantic model that keeps unknown fields
(``extra="allow"``), so a record written by a newer protocol revision
survives a load-save round trip. They are materialised by the collector from
the matching signals (:mod:`autobench.abp._signals`): items emitted for a span
land on its :class:`~autobench.abp.SpanRecord`, items emitted without a span
on the :class:`~autobench.abp.Trace`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class AccountingScope(StrEnum):
    """Whether a measurement counts its own work only or also its children's.

    ``direct``: this operation alone (a model request's tokens). ``aggregate``:
    a roll-up of nested work (an agent run's total tokens); summing aggregate
    values with the direct values under them double counts.
    """

    DIRECT = "direct"
    AGGREGATE = "aggregate"


NESTED_RUN = "accounting.nested_run"
"""Span attribute (``True``) of the usage roll-up of an agent run started inside another run
(a guardrail or tool running its own agent): the enclosing run's roll-ups include its usage
only when the two runs share their usage, which the trace does not say, so the accounting
rules accept either (rule 5 of ``autobench.records._accounting``)."""

USAGE_UNMEASURED = "instrumentation.usage_unmeasured"
"""The diagnostic code of a model call whose provider reported no usage: the span
records the request (usage ``requests``) and no token counts, never zeros an SDK
filled in. Every native LLM instrumentor uses it, whichever layer it measures."""


class Severity(StrEnum):
    """Severity of a :class:`DiagnosticRecord`."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


class LinkRelation(StrEnum):
    """Standard link relations. Relations are open: any string is accepted."""

    FOLLOWS_FROM = "follows_from"
    CAUSED_BY = "caused_by"
    RETRY_OF = "retry_of"
    CHILD_OF = "child_of"


class MeasurementRecord(BaseModel):
    """A numeric value an operation measured.

    ``value`` is in ``unit`` (``None``: dimensionless or count).
    ``semantic_type`` names the quantity (``llm.tokens.input``); ``accounting``
    is ``direct`` or ``aggregate`` (:class:`AccountingScope`); ``layer`` is the
    abstraction layer that measured it (``framework``, ``client``, ...);
    ``operation_id`` identifies the logical operation across layers, so two
    direct measurements of the same operation can be deduplicated.
    ``offset`` is monotonic seconds from the trace start.
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    name: str
    value: int | float
    semantic_type: str | None = None
    unit: str | None = None
    accounting: str = AccountingScope.DIRECT.value
    layer: str | None = None
    operation_id: str | None = None
    offset: float | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)


class EventRecord(BaseModel):
    """A named point in time inside a span; ``offset`` is monotonic seconds from the trace start."""

    model_config = ConfigDict(frozen=True, extra="allow")

    name: str
    offset: float = 0.0
    attributes: dict[str, Any] = Field(default_factory=dict)


class LinkRecord(BaseModel):
    """A relation from a span (or the trace) to another span or trace.

    At least one of ``span`` (a span id) and ``trace`` (a trace id) names the
    target; ``relation`` is any string (:class:`LinkRelation` lists standard ones).
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    relation: str
    span: str | None = None
    trace: str | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)


class ReferenceRecord(BaseModel):
    """A pointer to evidence kept elsewhere: an artifact of the run or an external id.

    ``kind`` is ``artifact`` (``id`` is the artifact id in the run record) or
    any other string naming an external system (``id`` is its identifier, for
    example a provider request id). ``uri`` optionally locates it.
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    kind: str
    id: str
    name: str | None = None
    uri: str | None = None
    media_type: str | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)


class DiagnosticRecord(BaseModel):
    """Something the instrumentation wants a reader to know (an unsupported version,
    a dropped value, a failed extraction): a stable ``code``, a human ``message``,
    a ``severity`` and optionally the span it concerns."""

    model_config = ConfigDict(frozen=True, extra="allow")

    code: str
    message: str
    severity: str = Severity.WARNING.value
    span: str | None = None
    scope: str | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)
