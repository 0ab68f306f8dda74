"""Attaching an external trace to a run: :func:`attach_trace`.

An adapter converts a completed trace of another runtime into the one ABP
:class:`~autobench.abp.Trace` model (or the legacy ``TraceEnvelope`` mapping,
converted by :func:`autobench.records.upgrade_trace_document`) and hands it to
the run. The run keeps ONE trace: the external spans are merged into it at
the end of the task, under a separate root span of their own.

Rules:

* The external trace becomes one new root span (operation: the trace's
  ``name``, else ``imported.trace``; kind ``workflow``; tag ``imported_trace``
  = the external trace id) whose children are the external roots. The
  envelope's own ``input``, ``output`` and ``attributes`` go on that span, and
  its status is ``error`` when any external span errored.
* External spans keep their fields. A span whose ``scope`` the external trace
  does not declare gets the scope ``autobench.imported`` (mechanism
  ``import``); declared scopes are added to the run's (the run's own entry
  wins a name clash).
* Span ids are kept unless one clashes with a span already in the run; then
  every id of that external trace is prefixed with ``<trace id>:``.
* Inputs, outputs and attributes (the envelope's too) pass the run's capture
  policy, as live spans do (secrets redacted, large values truncated); the
  ``raw`` payload is stored as given.
* Offsets are moved onto the run's monotonic clock: the external trace was
  complete when it was attached, so it is placed to end at that moment (never
  before the run's start); durations are unchanged.
* Observations: :func:`autobench.records.trace_to_observations` (usage,
  model, provider, duration, errors, ``result.success``), recorded with
  source ``imported`` and linked to the (possibly renamed) spans; the
  trace-level ``result.success`` links to the new root.
* ``raw`` (the native payload, when given) is stored as the artifact
  ``<trace id>.raw`` and the root span's ``raw_artifact`` attribute names it.
  A merged trace too large for ``run.yaml`` is stored by the record writer as
  ``artifacts/<run>/trace.yaml`` like any large trace.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from autobench.abp import (
    CapturePolicy,
    InstrumentationScope,
    SpanKind,
    SpanRecord,
    SpanStatus,
    Trace,
    new_span_id,
)
from autobench.core.runtime._context import RunContext
from autobench.records import (
    ArtifactRef,
    Observation,
    ObservationSource,
    Semantic,
    trace_to_observations,
    upgrade_trace_document,
)

IMPORTED_SCOPE = InstrumentationScope(
    name="autobench.imported", version="1", mechanism="import", layer="application"
)
"""Scope of external spans that declare none, and of the root span of an attached trace."""


@dataclass(frozen=True, slots=True)
class AttachedTrace:
    """What :func:`attach_trace` added to the run."""

    trace: Trace
    """The external spans as merged: root span first, ids and offsets as stored."""
    root_span_id: str
    observations: tuple[Observation, ...]
    raw_artifact: ArtifactRef | None = None


def attach_trace(
    ctx: RunContext,
    trace: Trace | Mapping[str, Any],
    *,
    raw: Any = None,
    raw_media_type: str = "application/json",
) -> AttachedTrace:
    """Merge the completed external ``trace`` into the run of ``ctx`` (rules above).

    ``trace`` is a :class:`Trace` or a mapping in the current or legacy
    envelope shape. Returns the spans as merged and the observations recorded.
    Raises pydantic's ``ValidationError`` for a mapping that is not a trace.
    """
    if not isinstance(trace, Trace):
        trace = Trace.model_validate(upgrade_trace_document(dict(trace)))
    taken = {span.id for span in ctx._collector.materialize().spans}
    taken |= {span.id for attached in ctx._evidence.traces for span in attached.spans}
    prefix = f"{trace.id}:" if any(span.id in taken for span in trace.spans) else ""
    imported = _captured(_rebased(_renamed(trace, prefix), _clock_now(ctx)), ctx)
    root_id = new_span_id()
    while root_id in taken:
        root_id = new_span_id()
    artifact = None
    extra = trace.model_extra or {}
    attributes = _policy(ctx).apply_mapping(dict(extra.get("attributes") or {}))
    if raw is not None:
        artifact = ctx._evidence.add_artifact(
            f"{trace.id}.raw", raw, media_type=raw_media_type, tags=None, span_id=root_id
        )
        attributes["raw_artifact"] = artifact.id
    root = _root_span(imported, root_id, trace, attributes, _policy(ctx))
    spans = tuple(
        span.model_copy(update={"parent": root_id}) if span.parent is None else span
        for span in imported.spans
    )
    merged = imported.model_copy(update={"spans": (root, *spans)})
    ctx._evidence.traces.append(merged)
    observations = tuple(
        ctx._evidence.add_observation(
            observation.name,
            observation.value,
            kind=observation.kind,
            span_id=root_id
            if observation.semantic_type == Semantic.RESULT_SUCCESS
            else observation.span_id,
            semantic_type=observation.semantic_type,
            unit=observation.unit,
            direction=observation.direction,
            role=observation.role,
            reason=observation.reason,
            tags=observation.tags or None,
            source=ObservationSource.IMPORTED,
        )
        for observation in trace_to_observations(imported)
    )
    return AttachedTrace(
        trace=merged, root_span_id=root_id, observations=observations, raw_artifact=artifact
    )


def _policy(ctx: RunContext) -> CapturePolicy:
    return ctx._collector.capture


def _captured(trace: Trace, ctx: RunContext) -> Trace:
    """``trace`` with span inputs, outputs and attributes passed through the run's policy."""
    policy = _policy(ctx)
    spans = tuple(
        span.model_copy(
            update={
                "input": policy.apply(span.input),
                "output": policy.apply(span.output),
                "attributes": policy.apply_mapping(dict(span.attributes)),
            }
        )
        for span in trace.spans
    )
    return trace.model_copy(update={"spans": spans})


def _clock_now(ctx: RunContext) -> float:
    return (time.perf_counter_ns() - ctx._collector.origin_ns) / 1e9


def _renamed(trace: Trace, prefix: str) -> Trace:
    """``trace`` with ids prefixed by ``prefix`` and undeclared scopes made ``autobench.imported``."""
    ids = {span.id for span in trace.spans}
    scopes = {IMPORTED_SCOPE.name: IMPORTED_SCOPE, **trace.scopes}
    spans = tuple(
        span.model_copy(
            update={
                "id": prefix + span.id,
                "parent": None
                if span.parent is None or span.parent not in ids
                else prefix + span.parent,
                "scope": span.scope if span.scope in trace.scopes else IMPORTED_SCOPE.name,
            }
        )
        for span in trace.spans
    )
    return trace.model_copy(update={"spans": spans, "scopes": scopes})


def _rebased(trace: Trace, now: float) -> Trace:
    """``trace`` with offsets moved so that it ends at ``now`` (never before 0)."""
    if not trace.spans:
        return trace
    start = min(span.offset for span in trace.spans)
    end = max(span.offset + (span.duration or 0.0) for span in trace.spans)
    shift = max(0.0, now - (end - start)) - start
    return trace.model_copy(
        update={
            "spans": tuple(
                span.model_copy(update={"offset": span.offset + shift}) for span in trace.spans
            )
        }
    )


def _root_span(
    imported: Trace,
    root_id: str,
    original: Trace,
    attributes: dict[str, Any],
    policy: CapturePolicy,
) -> SpanRecord:
    spans = imported.spans
    start = min((span.offset for span in spans), default=0.0)
    end = max((span.offset + (span.duration or 0.0) for span in spans), default=start)
    failed = any(span.status != SpanStatus.OK for span in spans)
    extra = original.model_extra or {}
    return SpanRecord(
        id=root_id,
        operation=original.name or "imported.trace",
        kind=SpanKind.WORKFLOW,
        scope=IMPORTED_SCOPE.name,
        started_at=min(
            (span.started_at for span in spans if span.started_at is not None),
            default=datetime.now(UTC),
        ),
        offset=start,
        duration=end - start,
        status=SpanStatus.ERROR if failed else SpanStatus.OK,
        input=policy.apply(extra.get("input")),
        output=policy.apply(extra.get("output")),
        attributes=attributes,
        tags={"imported_trace": original.id},
    )


def merge_attached(trace: Trace, attached: list[Trace]) -> Trace:
    """The run's ``trace`` with the attached traces' spans and scopes merged in, in start
    order (the run's own scope entries win a name clash)."""
    if not attached:
        return trace
    spans = [*trace.spans, *(span for item in attached for span in item.spans)]
    spans.sort(key=lambda span: span.offset)
    scopes = dict(trace.scopes)
    for item in attached:
        for key, scope in item.scopes.items():
            scopes.setdefault(key, scope)
    return trace.model_copy(
        update={
            "spans": tuple(spans),
            "scopes": scopes,
            "partial": trace.partial or any(item.partial for item in attached),
        }
    )
