"""An experiment record as OpenTelemetry SDK spans (``ReadableSpan``), ready to encode.

* One :class:`~opentelemetry.sdk.resources.Resource` per experiment: ``service.name``
  ``autobench``, ``service.version`` (the Autobench that recorded it),
  ``service.instance.id``, ``autobench.experiment.id`` and ``autobench.benchmark.id``.
* One trace per run: the spans of its ABP trace with their ids (``_export_ids``),
  parentage, scope, times, status, events and links. A run without a trace at hand gets
  one span, ``autobench.run``, in a trace whose id derives from the run id.
* The run's root span (the trace's first span without a parent) carries the run's facts
  (``_export_attributes.run_attributes``); every observation becomes an
  ``autobench.observation`` event on its span (on the root span when it names none).

Times: a span starts at the trace's wall-clock start plus its monotonic ``offset`` and
ends ``duration`` later (a partial span ends where it starts), in Unix nanoseconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from autobench.abp import InstrumentationScope, SpanRecord, SpanStatus, Trace
from autobench.opentelemetry._export_attributes import (
    GENAI_USAGE,
    USAGE_SEMANTICS,
    Attributes,
    observation_attributes,
    put,
    run_attributes,
    span_attributes,
)
from autobench.opentelemetry._export_ids import nanos, span_id_of, trace_id_of, unix_nanos
from autobench.opentelemetry._export_redaction import redact_spans
from autobench.records import (
    ExperimentResult,
    Observation,
    ObservationKind,
    RunRecord,
    SemanticRegistry,
    SpanIndex,
    is_summary,
    output_policy,
    pool_of,
    pool_total,
    project_observations,
    run_observations,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.util.instrumentation import InstrumentationScope as OtelScope
from opentelemetry.trace import Link, SpanContext, SpanKind, Status, StatusCode, TraceFlags

RUN_SPAN = "autobench.run"
"""The name of the span of a run whose trace is not at hand."""

_CLIENT_KINDS = frozenset({"llm", "http", "retriever"})
_SAMPLED = TraceFlags(TraceFlags.SAMPLED)


def experiment_resource(result: ExperimentResult) -> Resource:
    """The resource of the experiment of ``result`` (attributes in the module docstring)."""
    experiment = result.experiment.experiment
    attributes: Attributes = {
        "service.name": "autobench",
        "service.instance.id": experiment.id,
        "autobench.experiment.id": experiment.id,
        "autobench.benchmark.id": experiment.benchmark,
    }
    put(attributes, "service.version", experiment.autobench)
    if experiment.started_at is not None:
        put(attributes, "autobench.experiment.started_at", experiment.started_at.isoformat())
    return Resource(cast(Any, attributes))


def experiment_spans(result: ExperimentResult) -> list[ReadableSpan]:
    """Every span of every run of ``result``, run after run in plan order, with every
    text redacted by the record's policy (:mod:`autobench.opentelemetry._export_redaction`):
    the spans both OTLP formats encode."""
    resource = experiment_resource(result)
    scopes: dict[tuple[str, str], OtelScope] = {}
    spans: list[ReadableSpan] = []
    for run in result.runs:
        spans.extend(_RunSpans(run, result, resource, scopes).build())
    return redact_spans(spans, output_policy(result))


class _RunSpans:
    """The spans of one run (one use: :meth:`build`)."""

    def __init__(
        self,
        run: RunRecord,
        result: ExperimentResult,
        resource: Resource,
        scopes: dict[tuple[str, str], OtelScope],
    ) -> None:
        self.run = run
        self.registry = result.registry
        self.resource = resource
        self.scopes = scopes
        self.trace = run.trace if isinstance(run.trace, Trace) else None
        key = self.trace.id if self.trace is not None else f"{run.experiment_id}/{run.run_id}"
        self.trace_id = trace_id_of(key)
        self.anchor = _anchor(
            self.trace, run.run.started_at or result.experiment.experiment.started_at
        )

    def build(self) -> list[ReadableSpan]:
        run, trace = self.run, self.trace
        records = trace.spans if trace is not None else ()
        known = {span.id for span in records}
        roots = [span for span in records if span.parent is None]
        root_id = roots[0].id if roots else None
        by_span: dict[str | None, list[Observation]] = {}
        for observation in run.observations:
            target = observation.span_id if observation.span_id in known else root_id
            by_span.setdefault(target, []).append(observation)
        usage = self._genai_usage(records)
        metrics = self._metrics()
        built = []
        for span in records:
            scope = trace.scopes.get(span.scope) if trace is not None else None
            attributes = span_attributes(span, scope, by_span.get(span.id, []))
            attributes.update(usage.get(span.id, {}))
            if span.id == root_id:
                attributes.update(run_attributes(run, metrics))
            built.append(self._span(span, scope, attributes, by_span.get(span.id, [])))
        if root_id is None:
            built.append(self._run_span(run_attributes(run, metrics), by_span.get(None, [])))
        return built

    def _span(
        self,
        span: SpanRecord,
        scope: InstrumentationScope | None,
        attributes: Attributes,
        observations: list[Observation],
    ) -> ReadableSpan:
        start = self.anchor + nanos(span.offset)
        end = start + (nanos(span.duration) if span.duration is not None else 0)
        events = [
            Event(
                event.name, cast(Any, _plain(event.attributes)), start_at(self.anchor, event.offset)
            )
            for event in span.events
        ]
        for measurement in span.measurements:
            fields: Attributes = {}
            for key in (
                "name",
                "value",
                "unit",
                "semantic_type",
                "accounting",
                "layer",
                "operation_id",
            ):
                put(fields, f"autobench.measurement.{key}", getattr(measurement, key))
            fields.update(_plain(measurement.attributes))
            at = (
                start_at(self.anchor, measurement.offset) if measurement.offset is not None else end
            )
            events.append(Event("autobench.measurement", cast(Any, fields), at))
        if span.error is not None:
            fields = {"exception.type": span.error.type, "exception.message": span.error.message}
            events.append(Event("exception", cast(Any, fields), end))
        events.extend(
            Event("autobench.observation", cast(Any, observation_attributes(o)), end)
            for o in observations
        )
        links = [
            Link(
                SpanContext(
                    trace_id_of(link.trace) if link.trace else self.trace_id,
                    span_id_of(link.span),
                    is_remote=False,
                    trace_flags=_SAMPLED,
                ),
                cast(Any, {"autobench.link.relation": link.relation, **_plain(link.attributes)}),
            )
            for link in span.links
            if link.span is not None
        ]
        return ReadableSpan(
            name=span.operation,
            context=self._context(span.id),
            parent=self._context(span.parent) if span.parent is not None else None,
            resource=self.resource,
            attributes=cast(Any, attributes),
            events=events,
            links=links,
            kind=SpanKind.CLIENT if span.kind in _CLIENT_KINDS else SpanKind.INTERNAL,
            status=_status(span),
            start_time=start,
            end_time=end,
            instrumentation_scope=self._scope(span.scope, scope),
        )

    def _run_span(self, attributes: Attributes, observations: list[Observation]) -> ReadableSpan:
        run = self.run
        start = self.anchor
        end = start + nanos(run.run.duration or 0.0)
        events = [
            Event("autobench.observation", cast(Any, observation_attributes(o)), end)
            for o in observations
        ]
        return ReadableSpan(
            name=RUN_SPAN,
            context=self._context(f"{run.experiment_id}/{run.run_id}"),
            resource=self.resource,
            attributes=cast(Any, {"autobench.span.kind": "task", **attributes}),
            events=events,
            start_time=start,
            end_time=end,
            instrumentation_scope=self._scope("autobench.manual", None),
        )

    def _context(self, span_id: str) -> SpanContext:
        return SpanContext(
            self.trace_id, span_id_of(span_id), is_remote=False, trace_flags=_SAMPLED
        )

    def _scope(self, key: str, scope: InstrumentationScope | None) -> OtelScope:
        version = (scope.package_version or scope.version) if scope is not None else None
        cached = self.scopes.get((key, version or ""))
        if cached is not None:
            return cached
        attributes: Attributes = {}
        if scope is not None:
            for field in (
                "package",
                "mechanism",
                "layer",
                "target_package",
                "target_version",
                "source_convention",
            ):
                put(attributes, f"autobench.scope.{field}", getattr(scope, field))
        made = OtelScope(key, version, None, cast(Any, attributes))
        self.scopes[(key, version or "")] = made
        return made

    def _metrics(self) -> dict[str, Any]:
        """One value per semantic type of the run, as a report shows it."""
        index = SpanIndex.of(self.trace) if self.trace is not None else SpanIndex()
        projected = project_observations(run_observations(self.run), self.registry, index)
        return {semantic: metric.value for semantic, metric in projected.items()}

    def _genai_usage(self, records: Sequence[SpanRecord]) -> dict[str, Attributes]:
        """GenAI usage attributes by span id: the token counts in the run's direct total,
        each on its span; for a token type the run has no observation of, the usage of
        its ``llm`` spans."""
        known = {span.id for span in records}
        index = SpanIndex.of(self.trace) if self.trace is not None else SpanIndex()
        placed: dict[str, Attributes] = {}
        for semantic, key in GENAI_USAGE.items():
            observations = _direct(self.run.observations, semantic, self.registry)
            if observations:
                total = pool_total(semantic, "direct", observations, self.registry, index)
                for observation in total.counted:
                    if observation.span_id in known and isinstance(observation.value, int | float):
                        _add(placed.setdefault(observation.span_id, {}), key, observation.value)
                continue
            for span in records:
                if span.kind != "llm":
                    continue
                for usage_key, value in span.usage.items():
                    if USAGE_SEMANTICS.get(usage_key) == semantic and isinstance(
                        value, int | float
                    ):
                        _add(placed.setdefault(span.id, {}), key, value)
        return placed


def _direct(
    observations: Sequence[Observation], semantic: str, registry: SemanticRegistry
) -> list[Observation]:
    return [
        observation
        for observation in observations
        if observation.kind is ObservationKind.METRIC
        and observation.semantic_type is not None
        and registry.normalize(observation.semantic_type) == semantic
        and pool_of(observation) == "direct"
        and not is_summary(observation)
    ]


def _add(attributes: Attributes, key: str, value: int | float) -> None:
    if isinstance(value, bool):
        return
    current = attributes.get(key, 0)
    total = current + value if isinstance(current, int | float) else value
    attributes[key] = int(total) if float(total).is_integer() else total


def _anchor(trace: Trace | None, fallback: datetime | None) -> int:
    """The wall-clock start of ``trace`` in Unix nanoseconds: its first span's
    ``started_at`` less that span's offset, else ``fallback``, else 0."""
    if trace is not None:
        for span in trace.spans:
            if span.started_at is not None:
                return unix_nanos(span.started_at) - nanos(span.offset)
    return unix_nanos(fallback) if fallback is not None else 0


def start_at(anchor: int, offset: float) -> int:
    """The Unix nanoseconds of ``offset`` seconds after the trace start ``anchor``."""
    return anchor + nanos(offset)


def _status(span: SpanRecord) -> Status:
    if span.status is SpanStatus.ERROR:
        message = f"{span.error.type}: {span.error.message}" if span.error is not None else None
        return Status(StatusCode.ERROR, message)
    if span.status is SpanStatus.OK:
        return Status(StatusCode.OK)
    return Status(StatusCode.UNSET)


def _plain(values: Mapping[str, Any]) -> Attributes:
    attributes: Attributes = {}
    for key, value in values.items():
        put(attributes, key, value)
    return attributes
