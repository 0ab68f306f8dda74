"""Run totals: one accounting-safe summary per additive semantic type and source.

What a run spent is the sum of its operations, each counted once. For every
semantic type the registry calls additive (tokens, requests, cost, counts,
bytes: :meth:`SemanticRegistry.is_additive`) and every source among
:data:`ACCOUNTED_SOURCES`, the metric observations of exactly that type are
totalled by the rules of :mod:`autobench.records._accounting`, read from the
observations like this:

* value: a number (not a boolean, not NaN or infinite), converted to the
  type's canonical unit (else to the first unit the group uses; a value
  without a unit is taken to be in it already); other values, and units that
  do not convert, are left out with an ``accounting_value_skipped`` diagnostic;
* span and parentage: the observation's span in the run's trace;
* layer: tag ``layer``, else the layer of the span's instrumentation scope
  (``application`` for manual spans and for observations linked to no span);
* logical operation id: tag ``operation_id`` (or ``logical_operation_id``),
  else the span's ``operation_id`` attribute, else the span itself (implied:
  several observations of one type on one span without an operation id are
  ambiguous, even with equal values), else the observation's own id;
* aggregate: tag ``accounting: aggregate`` (or the roll-up rule); authority:
  tag ``authority: "true"``.

A group of two or more observations gets one *summary*: a metric observation
with the group's source and semantic type, id ``accounting.<type>`` (for task
observations; ``accounting.<source>.<type>`` otherwise), the total as its value
(``None`` when no operation could be counted), and tags ``accounting:
summary``, ``basis`` (``direct`` or ``aggregate``), ``layer`` and
``operations``. Accounting problems become diagnostic observations named by
their code, tagged with the ``metric`` they concern. A group of one observation
needs no summary: that observation is the total. Scores are judgements, not
spend, and are never summed.

When a run ends the runtime accounts it with its trace and stores in ``run.yaml``
the diagnostics, and the summaries whose total depends on the trace (a roll-up
found by span parentage, a layer or an operation id taken from a span); every
other total is the same without the trace, so projection computes it when it is
read (:func:`group_summary`) and the record stays as small as the evidence. The
record then says ``run.accounting: 1`` (:data:`ACCOUNTING_VERSION`). Replay
accounts records written without it (:func:`account_run`), with their trace.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from autobench.abp import InstrumentationScope, SpanRecord, Trace
from autobench.records._accounting import Accounted, Candidate, account
from autobench.records._enums import ObservationKind, ObservationRole, ObservationSource
from autobench.records._evidence import Observation
from autobench.records._records import RunRecord
from autobench.records._semantics import SemanticRegistry
from autobench.records._units import UnitConversionError, convert_unit, same_unit

ACCOUNTED_SOURCES: tuple[ObservationSource, ...] = (
    ObservationSource.DERIVED,
    ObservationSource.TASK_OBSERVATION,
    ObservationSource.IMPORTED,
)
"""Sources whose additive observations are summed (scores are not)."""

ACCOUNTING_VERSION = 1
"""The version of these rules, written as ``run.accounting`` in accounted run records."""

ACCOUNTING_TAG = "accounting"
SUMMARY = "summary"
VALUE_SKIPPED = "accounting_value_skipped"
DEFAULT_LAYER = "application"


def is_summary(observation: Observation) -> bool:
    """Whether ``observation`` is an accounting summary (tag ``accounting: summary``)."""
    return observation.tags.get(ACCOUNTING_TAG) == SUMMARY


@dataclass(frozen=True, slots=True)
class SpanIndex:
    """What accounting needs of a run's trace: span parents, layers and operation ids."""

    parents: Mapping[str, str | None] = field(default_factory=dict)
    layers: Mapping[str, str] = field(default_factory=dict)
    operations: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        trace: Trace | None = None,
        *,
        spans: Iterable[SpanRecord] = (),
        scopes: Mapping[str, InstrumentationScope] | None = None,
    ) -> SpanIndex:
        """The index of ``trace``, or of ``spans`` with their ``scopes`` (by scope key)."""
        if trace is not None:
            spans, scopes = trace.spans, trace.scopes
        scopes = scopes or {}
        parents: dict[str, str | None] = {}
        layers: dict[str, str] = {}
        operations: dict[str, str] = {}
        for span in spans:
            parents[span.id] = span.parent
            scope = scopes.get(span.scope) if span.scope is not None else None
            if scope is not None and scope.layer != DEFAULT_LAYER:
                layers[span.id] = scope.layer
            operation = span.attributes.get("operation_id") or span.attributes.get(
                "logical_operation_id"
            )
            if operation is not None:
                operations[span.id] = str(operation)
        return cls(parents, layers, operations)


NO_SPANS = SpanIndex()
"""The index of a run whose trace is not at hand: no parentage, every span ``application``."""


@dataclass(frozen=True, slots=True)
class GroupTotal:
    """The accounting of one (semantic type, source) group of a run."""

    semantic: str
    source: ObservationSource
    accounted: Accounted
    unit: str | None
    summary: Observation
    diagnostics: tuple[Observation, ...]
    skipped: tuple[Observation, ...] = ()
    """Observations left out because their value is not a number in a convertible unit."""

    @property
    def counted(self) -> tuple[Observation, ...]:
        """The observations in the total, one per operation."""
        return tuple(c.origin for c in self.accounted.counted)

    @property
    def conflicting(self) -> tuple[Observation, ...]:
        """The observations of operations left out for conflicting values."""
        return tuple(c.origin for c in self.accounted.conflicting)


def additive_groups(
    observations: Iterable[Observation], registry: SemanticRegistry
) -> tuple[
    dict[tuple[str, ObservationSource], list[Observation]], set[tuple[str, ObservationSource]]
]:
    """The raw metric observations of additive types by (normalised type, source), and the
    groups that already have a summary."""
    groups: dict[tuple[str, ObservationSource], list[Observation]] = {}
    summarized: set[tuple[str, ObservationSource]] = set()
    for observation in observations:
        semantic = observation.semantic_type
        if (
            semantic is None
            or observation.kind is not ObservationKind.METRIC
            or observation.source not in ACCOUNTED_SOURCES
        ):
            continue
        if is_summary(observation):
            summarized.add((registry.normalize(semantic), observation.source))
            continue
        semantic = registry.normalize(semantic)
        if registry.is_additive(semantic):
            groups.setdefault((semantic, observation.source), []).append(observation)
    return groups, summarized


def needs_accounting(run: RunRecord, registry: SemanticRegistry) -> bool:
    """Whether ``run`` was written without run totals and has an additive group of two or
    more observations without a summary (replay then accounts it, with its trace)."""
    if run.run.accounting is not None:
        return False
    groups, summarized = additive_groups(run.observations, registry)
    return any(len(items) > 1 and key not in summarized for key, items in groups.items())


def accounting_observations(
    observations: Iterable[Observation],
    registry: SemanticRegistry,
    index: SpanIndex = NO_SPANS,
    *,
    case_id: str | None = None,
    variant_id: str | None = None,
    trace_dependent_only: bool = False,
    sources: Iterable[ObservationSource] = ACCOUNTED_SOURCES,
) -> tuple[Observation, ...]:
    """The summaries and diagnostics of every additive group of two or more observations
    from ``sources`` that has no summary yet, in the order the groups first appear; ``()``
    when there is nothing to account. ``index`` describes the run's trace
    (:meth:`SpanIndex.of`). With ``trace_dependent_only`` a summary is only returned when
    the trace changes it (the total computed without ``index`` differs); diagnostics are
    always returned."""
    groups, summarized = additive_groups(observations, registry)
    wanted = frozenset(sources)
    added: list[Observation] = []
    for (semantic, source), items in groups.items():
        if len(items) < 2 or (semantic, source) in summarized or source not in wanted:
            continue
        placed = {"case_id": case_id, "variant_id": variant_id}
        total = group_total(semantic, source, items, registry, index, **placed)
        if not trace_dependent_only or (
            index is not NO_SPANS
            and _differs(total, group_total(semantic, source, items, registry, NO_SPANS, **placed))
        ):
            added.append(total.summary)
        added += total.diagnostics
    return tuple(added)


def _differs(first: GroupTotal, second: GroupTotal) -> bool:
    return first.summary != second.summary or first.diagnostics != second.diagnostics


def account_run(
    run: RunRecord, registry: SemanticRegistry, index: SpanIndex | None = None
) -> RunRecord:
    """``run`` accounted: the summaries and diagnostics it lacks appended to its
    observations, and ``run.accounting`` set. ``index`` defaults to the run's own trace."""
    if index is None:
        index = SpanIndex.of(run.trace) if isinstance(run.trace, Trace) else NO_SPANS
    added = accounting_observations(
        run.observations, registry, index, case_id=run.case_id, variant_id=run.variant_id
    )
    return run.model_copy(
        update={
            "observations": run.observations + added,
            "run": run.run.model_copy(update={"accounting": ACCOUNTING_VERSION}),
        }
    )


def group_total(
    semantic: str,
    source: ObservationSource,
    observations: Sequence[Observation],
    registry: SemanticRegistry,
    index: SpanIndex = NO_SPANS,
    *,
    case_id: str | None = None,
    variant_id: str | None = None,
) -> GroupTotal:
    """The accounting of ``observations`` (raw observations of exactly ``semantic`` from
    ``source``, in recording order): the summary and its diagnostics, which carry
    ``case_id`` and ``variant_id``."""
    placed = {"case_id": case_id, "variant_id": variant_id}
    unit = _group_unit(semantic, observations, registry)
    summary_id = _summary_id(semantic, source)
    candidates: list[Candidate] = []
    diagnostics: list[Observation] = []
    skipped: list[Observation] = []
    for observation in observations:
        value, problem = _value_in(observation, unit)
        if problem is not None:
            skipped.append(observation)
            diagnostics.append(
                _diagnostic(
                    f"{summary_id}.{VALUE_SKIPPED}.{len(diagnostics) + 1}",
                    VALUE_SKIPPED,
                    {"observation": observation.id, "value": repr(observation.value)},
                    f"{observation.name} ({observation.id}): {problem}; left out of the "
                    f"{semantic} total",
                    observation.span_id,
                    semantic,
                    source,
                    placed,
                )
            )
            continue
        assert value is not None
        candidates.append(_candidate(observation, value, index))
    accounted = account(semantic, candidates, index.parents)
    for found in accounted.problems:
        diagnostics.append(
            _diagnostic(
                f"{summary_id}.{found.code}.{len(diagnostics) + 1}",
                found.code,
                dict(found.details),
                found.message,
                found.span_id,
                semantic,
                source,
                placed,
            )
        )
    summary = _summary(
        summary_id,
        semantic,
        source,
        unit,
        observations,
        accounted.value,
        (accounted.basis, accounted.layer or DEFAULT_LAYER, accounted.operations),
        placed,
    )
    return GroupTotal(
        semantic, source, accounted, unit, summary, tuple(diagnostics), tuple(skipped)
    )


def group_summary(
    semantic: str,
    observations: Sequence[Observation],
    registry: SemanticRegistry,
    index: SpanIndex = NO_SPANS,
) -> Observation:
    """The summary of ``observations`` (raw observations of exactly ``semantic`` from one
    source, none of them a summary), computed now (see :func:`group_total`). A plain group
    (no trace, no accounting tags, one number per span, in one unit) is summed directly:
    the rules could not change it, and reports read many of them."""
    first = observations[0]
    placed = {"case_id": first.case_id, "variant_id": first.variant_id}
    unit = _group_unit(semantic, observations, registry)
    if not index.parents and (plain := _plain_total(observations, unit)) is not None:
        return _summary(
            _summary_id(semantic, first.source),
            semantic,
            first.source,
            unit,
            observations,
            plain,
            ("direct", DEFAULT_LAYER, len(observations)),
            placed,
        )
    return group_total(semantic, first.source, observations, registry, index, **placed).summary


def _group_unit(
    semantic: str, observations: Sequence[Observation], registry: SemanticRegistry
) -> str | None:
    return registry.unit_of(semantic) or next(
        (o.unit for o in observations if o.unit is not None), None
    )


def _summary_id(semantic: str, source: ObservationSource) -> str:
    if source is ObservationSource.TASK_OBSERVATION:
        return f"accounting.{semantic}"
    return f"accounting.{source.value}.{semantic}"


def _plain_total(observations: Sequence[Observation], unit: str | None) -> int | float | None:
    """The total of a group the rules cannot change, computed directly: no trace at hand,
    no accounting tags, finite numbers in ``unit``, one observation per span. ``None`` when
    the group is not that plain (the rules then apply one by one)."""
    spans: set[str] = set()
    values: list[int | float] = []
    for observation in observations:
        value = observation.value
        if (
            observation.tags
            or isinstance(value, bool)
            or not isinstance(value, int | float)
            or (observation.unit is not None and observation.unit != unit)
        ):
            return None
        key = observation.span_id or f"observation:{observation.id}"
        if key in spans:
            return None
        spans.add(key)
        values.append(value)
    if all(isinstance(value, int) for value in values):
        return sum(values)
    total = math.fsum(values)
    return total if math.isfinite(total) else None


def _value_in(observation: Observation, unit: str | None) -> tuple[int | float | None, str | None]:
    value = observation.value
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None, f"{value!r} is not a number"
    if isinstance(value, float) and not math.isfinite(value):
        return None, f"{value!r} is not a finite number"
    if unit is None or observation.unit is None or same_unit(observation.unit, unit):
        return value, None
    try:
        return convert_unit(value, observation.unit, unit), None
    except UnitConversionError as error:
        return None, str(error)


def _candidate(observation: Observation, value: int | float, index: SpanIndex) -> Candidate:
    tags = observation.tags
    span = observation.span_id
    named = (
        tags.get("operation_id")
        or tags.get("logical_operation_id")
        or (index.operations.get(span) if span is not None else None)
    )
    operation = named or (f"span:{span}" if span is not None else f"observation:{observation.id}")
    return Candidate(
        value=value,
        span_id=span,
        layer=tags.get("layer")
        or (index.layers.get(span) if span is not None else None)
        or DEFAULT_LAYER,
        operation=operation,
        aggregate=tags.get(ACCOUNTING_TAG) == "aggregate",
        authority=tags.get("authority", "").strip().lower() == "true",
        explicit=named is not None or span is None,
        origin=observation,
    )


def _summary(
    summary_id: str,
    semantic: str,
    source: ObservationSource,
    unit: str | None,
    observations: Sequence[Observation],
    value: int | float | None,
    how: tuple[str, str, int],
    placed: dict[str, str | None],
) -> Observation:
    basis, layer, operations = how
    first = observations[0]
    if value is None:
        reason = f"none of the {len(observations)} observations could be counted"
    else:
        plural = "operation" if operations == 1 else "operations"
        reason = f"{operations} {plural} summed from {basis} evidence at the {layer} layer"
    return Observation(
        id=summary_id,
        name=first.name if all(o.name == first.name for o in observations) else semantic,
        kind=ObservationKind.METRIC,
        value=value,
        unit=unit,
        semantic_type=semantic,
        direction=next((o.direction for o in observations if o.direction is not None), None),
        role=next((o.role for o in observations if o.role is not None), None),
        source=source,
        reason=reason,
        tags={
            ACCOUNTING_TAG: SUMMARY,
            "basis": basis,
            "layer": layer,
            "operations": str(operations),
        },
        **placed,
    )


def _diagnostic(
    observation_id: str,
    code: str,
    details: dict[str, Any],
    message: str,
    span_id: str | None,
    semantic: str,
    source: ObservationSource,
    placed: dict[str, str | None],
) -> Observation:
    return Observation(
        id=observation_id,
        name=code,
        kind=ObservationKind.DIAGNOSTIC,
        value=details,
        role=ObservationRole.DIAGNOSTIC,
        source=source,
        span_id=span_id,
        reason=message,
        tags={"metric": semantic},
        **placed,
    )
