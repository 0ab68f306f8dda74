"""``SpanExtractor``: topology, timing and workflow evidence from a trace's spans.

Rules (observations have source ``derived``, role ``diagnostic``; ids are
``span.<semantic type>`` or ``span.latency.<span id>``):

Operations (always emitted)

* ``operation.count``: every span of the trace, partial ones included.
* ``time.latency``, one per completed span (``<operation>.latency``, linked to
  the span): its own monotonic ``duration`` (direct, never a sum of children).
* ``operation.depth.max``: the deepest nesting (a root is depth 1; a span
  whose parent is not in the trace counts as a root).
* ``operation.fanout.max``: the most direct children of one span.
* ``operation.incomplete``: spans that never ended (``partial`` or no
  duration); when any, a ``partial_trace`` diagnostic.
* ``time.critical_path``: the observed makespan, ``max(offset + duration) -
  min(offset)`` over completed spans with valid clock evidence (monotonic
  offsets only; wall-clock ``started_at`` is never used). Spans with a
  negative or non-finite offset or duration are left out and reported as
  ``invalid_clock_evidence``; a child starting before its parent is reported
  the same way but kept.
* ``operation.parallelism``: completed leaf work (summed durations of valid
  completed spans without children) divided by the makespan; only when the
  makespan is positive.
* ``operation.retries``: spans that are retries, i.e. attribute or tag
  ``retry`` true, or attribute ``attempt``/``retry.attempt`` above 1.
  ``operation.retries.recovered``: those retries that ended ``ok``.
  ``operation.first_attempt.success``: no retry and no span ended in
  ``error`` or ``cancelled``.

Workflow (emitted only when the trace has spans of that family)

* ``workflow.validation.failures``: validation spans (kind ``validation``,
  attribute ``validation``, or an operation name containing ``validat``)
  that ended in ``error`` or carry ``valid``/``passed`` false.
* ``workflow.approval.count`` and ``workflow.approval.wait`` (summed
  durations, s): approval spans (kind ``approval`` or attribute ``approval``).
* ``workflow.tool_call.success`` / ``workflow.tool_call.failure``: spans of
  kind ``tool`` that ended ``ok`` / in ``error`` or ``cancelled``.
* ``workflow.message.growth``: the last minus the first ``message_count``
  attribute, in start order, when at least two spans carry one.
* ``workflow.evidence.references``: items of ``references`` on the trace and
  its spans (each also returned as an evidence reference).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from autobench.abp import SpanRecord, SpanStatus, Trace
from autobench.records._enums import ObservationRole
from autobench.records._evidence import Observation
from autobench.records._extraction import (
    EvidenceReference,
    ExtractionDiagnostic,
    ExtractionResult,
    derived_observation,
    item_field,
    signal_items,
)
from autobench.records._records import RunRecord
from autobench.records._semantics import Semantic

_UNITS = {
    Semantic.OPERATION_COUNT: "operations",
    Semantic.OPERATION_INCOMPLETE: "operations",
    Semantic.OPERATION_RETRIES: "operations",
    Semantic.OPERATION_RETRIES_RECOVERED: "operations",
    Semantic.OPERATION_PARALLELISM: "ratio",
    Semantic.TIME_CRITICAL_PATH: "s",
    Semantic.TIME_LATENCY: "s",
    Semantic.WORKFLOW_APPROVAL_WAIT: "s",
    Semantic.WORKFLOW_VALIDATION_FAILURES: "events",
    Semantic.WORKFLOW_APPROVAL_COUNT: "events",
    Semantic.WORKFLOW_TOOL_CALL_SUCCESS: "operations",
    Semantic.WORKFLOW_TOOL_CALL_FAILURE: "operations",
    Semantic.WORKFLOW_MESSAGE_GROWTH: "messages",
    Semantic.WORKFLOW_EVIDENCE_REFERENCES: "references",
}
_FAILED = (SpanStatus.ERROR, SpanStatus.CANCELLED)


class SpanExtractor:
    """Generic operation and workflow evidence from span topology and timing (rules above)."""

    name = "span"
    version = "1"

    def extract(self, trace: Trace, run: RunRecord) -> ExtractionResult:
        """Observations, diagnostics and references for ``trace`` (see the module docstring)."""
        builder = _Builder(run)
        spans = trace.spans
        ids = {span.id for span in spans}
        children = Counter(span.parent for span in spans if span.parent in ids)
        builder.metric(Semantic.OPERATION_COUNT, "operations", len(spans))
        for span in spans:
            if _completed(span):
                builder.metric(
                    Semantic.TIME_LATENCY,
                    f"{span.operation}.latency",
                    span.duration,
                    span_id=span.id,
                    observation_id=f"span.latency.{span.id}",
                )
        builder.metric(Semantic.OPERATION_DEPTH_MAX, "depth_max", _max_depth(spans, ids))
        builder.metric(
            Semantic.OPERATION_FANOUT_MAX, "fanout_max", max(children.values(), default=0)
        )
        incomplete = [span for span in spans if not _completed(span)]
        builder.metric(Semantic.OPERATION_INCOMPLETE, "incomplete", len(incomplete))
        if incomplete:
            builder.diagnose(
                "partial_trace",
                f"{len(incomplete)} span(s) never ended; their work is not in the timing figures",
                details={"spans": [span.id for span in incomplete]},
            )
        _timing(builder, spans, children)
        _retries(builder, spans)
        _workflow(builder, trace, spans)
        return builder.result()


class _Builder:
    """Collects one extraction's observations, diagnostics and references."""

    def __init__(self, run: RunRecord) -> None:
        self.run = run
        self.observations: list[Observation] = []
        self.diagnostics: list[ExtractionDiagnostic] = []
        self.references: list[EvidenceReference] = []

    def metric(
        self,
        semantic: str,
        name: str,
        value: Any,
        *,
        span_id: str | None = None,
        observation_id: str | None = None,
    ) -> None:
        self.observations.append(
            derived_observation(
                self.run,
                observation_id or f"span.{semantic}",
                name,
                value,
                semantic=semantic,
                unit=_UNITS.get(semantic),
                role=ObservationRole.DIAGNOSTIC,
                span=span_id,
            )
        )

    def diagnose(self, code: str, message: str, **fields: Any) -> None:
        self.diagnostics.append(ExtractionDiagnostic(code=code, message=message, **fields))

    def result(self) -> ExtractionResult:
        return ExtractionResult(
            observations=tuple(self.observations),
            diagnostics=tuple(self.diagnostics),
            references=tuple(self.references),
        )


def _completed(span: SpanRecord) -> bool:
    return span.duration is not None and not span.partial


def _valid_clock(span: SpanRecord) -> bool:
    duration = span.duration
    return (
        duration is not None
        and math.isfinite(duration)
        and duration >= 0
        and math.isfinite(span.offset)
        and span.offset >= 0
    )


def _max_depth(spans: tuple[SpanRecord, ...], ids: set[str]) -> int:
    parents = {span.id: span.parent if span.parent in ids else None for span in spans}
    depths: dict[str, int] = {}
    for span in spans:
        chain: list[str] = []
        current: str | None = span.id
        while current is not None and current not in depths and current not in chain:
            chain.append(current)
            current = parents.get(current)
        base = depths.get(current, 0) if current is not None else 0
        for offset, span_id in enumerate(reversed(chain), start=1):
            depths[span_id] = base + offset
    return max(depths.values(), default=0)


def _timing(builder: _Builder, spans: tuple[SpanRecord, ...], children: Counter[Any]) -> None:
    completed = [span for span in spans if _completed(span)]
    valid = [span for span in completed if _valid_clock(span)]
    invalid = [span.id for span in completed if not _valid_clock(span)]
    by_id = {span.id: span for span in spans}
    early = [
        span.id
        for span in spans
        if span.parent in by_id and span.offset + 1e-9 < by_id[span.parent].offset
    ]
    if invalid or early:
        builder.diagnose(
            "invalid_clock_evidence",
            "spans with unusable monotonic timing (negative or non-finite offset or duration, "
            "or a child starting before its parent)",
            details={"excluded": invalid, "starts_before_parent": early},
        )
    if not valid:
        return
    start = min(span.offset for span in valid)
    makespan = max(span.offset + (span.duration or 0.0) for span in valid) - start
    builder.metric(Semantic.TIME_CRITICAL_PATH, "critical_path", makespan)
    if makespan > 0:
        leaf_work = sum(span.duration or 0.0 for span in valid if span.id not in children)
        builder.metric(Semantic.OPERATION_PARALLELISM, "parallelism", leaf_work / makespan)


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in {"true", "1", "yes"}
    return bool(value)


def is_retry(span: SpanRecord) -> bool:
    """Whether ``span`` is a retry: ``retry`` true (attribute or tag), or attempt above 1."""
    if _truthy(span.attributes.get("retry")) or _truthy(span.tags.get("retry")):
        return True
    attempt = span.attributes.get("attempt", span.attributes.get("retry.attempt"))
    return isinstance(attempt, int) and not isinstance(attempt, bool) and attempt > 1


def _retries(builder: _Builder, spans: tuple[SpanRecord, ...]) -> None:
    retries = [span for span in spans if is_retry(span)]
    recovered = [span for span in retries if span.status == SpanStatus.OK and _completed(span)]
    builder.metric(Semantic.OPERATION_RETRIES, "retries", len(retries))
    builder.metric(Semantic.OPERATION_RETRIES_RECOVERED, "retries_recovered", len(recovered))
    clean = not retries and not any(span.status in _FAILED for span in spans)
    builder.metric(Semantic.OPERATION_FIRST_ATTEMPT_SUCCESS, "first_attempt_success", clean)


def _is_validation(span: SpanRecord) -> bool:
    return (
        span.kind == "validation"
        or "validation" in span.attributes
        or "validat" in span.operation.lower()
    )


def _validation_failed(span: SpanRecord) -> bool:
    if span.status in _FAILED:
        return True
    return any(span.attributes.get(key) is False for key in ("valid", "passed"))


def _workflow(builder: _Builder, trace: Trace, spans: tuple[SpanRecord, ...]) -> None:
    validations = [span for span in spans if _is_validation(span)]
    if validations:
        failures = sum(1 for span in validations if _validation_failed(span))
        builder.metric(Semantic.WORKFLOW_VALIDATION_FAILURES, "validation_failures", failures)
    approvals = [span for span in spans if span.kind == "approval" or "approval" in span.attributes]
    if approvals:
        builder.metric(Semantic.WORKFLOW_APPROVAL_COUNT, "approvals", len(approvals))
        wait = sum(span.duration or 0.0 for span in approvals if _completed(span))
        builder.metric(Semantic.WORKFLOW_APPROVAL_WAIT, "approval_wait", wait)
    tools = [span for span in spans if span.kind == "tool"]
    if tools:
        ok = sum(1 for span in tools if span.status == SpanStatus.OK and _completed(span))
        failed = sum(1 for span in tools if span.status in _FAILED)
        builder.metric(Semantic.WORKFLOW_TOOL_CALL_SUCCESS, "tool_calls_succeeded", ok)
        builder.metric(Semantic.WORKFLOW_TOOL_CALL_FAILURE, "tool_calls_failed", failed)
    counts = [
        span.attributes["message_count"]
        for span in sorted(spans, key=lambda span: span.offset)
        if isinstance(span.attributes.get("message_count"), int)
    ]
    if len(counts) >= 2:
        builder.metric(Semantic.WORKFLOW_MESSAGE_GROWTH, "message_growth", counts[-1] - counts[0])
    owners: list[tuple[Any, str | None]] = [(trace, None), *((span, span.id) for span in spans)]
    for owner, span_id in owners:
        for item in signal_items(owner, "references"):
            reference_id = item_field(item, "id", "uri", "target", "name")
            builder.references.append(
                EvidenceReference(
                    kind=str(item_field(item, "kind", "type") or "reference"),
                    id=str(reference_id if reference_id is not None else len(builder.references)),
                    span_id=span_id,
                )
            )
    if builder.references:
        builder.metric(
            Semantic.WORKFLOW_EVIDENCE_REFERENCES, "evidence_references", len(builder.references)
        )
