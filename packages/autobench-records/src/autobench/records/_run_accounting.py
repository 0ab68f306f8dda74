"""Run totals: one accounting-safe total per additive semantic type and evidence pool.

What a run spent is the sum of its operations, each counted once. For every
semantic type the registry calls additive (tokens, requests, cost, counts,
bytes: :meth:`SemanticRegistry.is_additive`), the metric observations of
exactly that type are totalled by the rules of :mod:`autobench.records._accounting`
in three *pools*, each apart:

``direct``
    what the run itself recorded: task observations and imported evidence
    (:func:`~autobench.core.attach_trace`) together;
``derived``
    values derivers and post-derivers computed (``token_cost``, ...);
``extracted``
    evidence extracted from the trace after the run (derived records of
    ``replay_extraction``, tagged ``extractor``).

Scores are judgements, not spend, and are never summed. Observations are read
like this:

* value: a number (not a boolean, not NaN or infinite; for an integer type a
  whole number; for a count unit such as ``tokens`` not negative), converted to
  the type's canonical unit (else to the first unit the pool uses; a value
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
  tag ``authority: "true"``; the roll-up of a nested run (rule 5): tag
  ``accounting.nested_run: "true"``, or a span with that attribute.

A pool's total is a *summary*: a metric observation of the pool's type, id
``accounting.<type>`` (``accounting.derived.<type>``, ``accounting.extracted.<type>``
for the other pools), source that of its evidence (task observation when the
direct pool has any, else imported; derived), the total as its value (``None``
when nothing could be counted), and tags ``accounting: summary``, ``basis``
(``direct`` or ``aggregate``), ``layer`` and ``operations``. Accounting problems
become diagnostic observations named by their code, tagged with the ``metric``
they concern. Projection reads the derived pool's total when there is one,
else the direct pool's, else the extracted pool's
(:mod:`autobench.records._projection`).

When a run ends the runtime accounts it with its trace and stores in ``run.yaml``
the diagnostics, and the summaries whose total depends on the trace (a roll-up
found by span parentage, a layer or an operation id taken from a span); every
other total is the same without the trace, so projection computes it when it is
read (:func:`pool_summary`) and the record stays as small as the evidence. The
record then says ``run.accounting: 1`` (:data:`ACCOUNTING_VERSION`). Replay
accounts records written without it (:func:`account_run`), with their trace.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from autobench.abp import NESTED_RUN, InstrumentationScope, SpanRecord, Trace
from autobench.records._accounting import Accounted, Candidate, account
from autobench.records._enums import ObservationKind, ObservationRole, ObservationSource
from autobench.records._evidence import Observation
from autobench.records._records import RunRecord
from autobench.records._semantics import SemanticRegistry
from autobench.records._units import (
    COUNT_UNITS,
    UnitConversionError,
    convert_unit,
    same_unit,
)

Pool = Literal["direct", "derived", "extracted"]
POOLS: tuple[Pool, ...] = ("derived", "direct", "extracted")
"""The pools, in the order projection prefers their totals."""

ACCOUNTED_SOURCES: tuple[ObservationSource, ...] = (
    ObservationSource.DERIVED,
    ObservationSource.TASK_OBSERVATION,
    ObservationSource.IMPORTED,
)
"""Sources whose additive observations are summed (scores are not)."""

ACCOUNTING_VERSION = 1
"""The version of these rules, written as ``run.accounting`` in accounted run records."""

ACCOUNTING_TAG = "accounting"
ACCOUNTING_EXTRACTOR = "accounting"
"""The ``extractor`` tag of the totals extraction replay adds to a derived record."""
SUMMARY = "summary"
VALUE_SKIPPED = "accounting_value_skipped"
DEFAULT_LAYER = "application"
_NON_NEGATIVE_UNITS = COUNT_UNITS - {"ratio", "boolean"}


def is_summary(observation: Observation) -> bool:
    """Whether ``observation`` is an accounting summary (tag ``accounting: summary``)."""
    return observation.tags.get(ACCOUNTING_TAG) == SUMMARY


def pool_of(observation: Observation) -> Pool | None:
    """The pool an observation's evidence belongs to; ``None`` for scores."""
    source = observation.source
    if source is ObservationSource.TASK_OBSERVATION or source is ObservationSource.IMPORTED:
        return "direct"
    if source is ObservationSource.DERIVED:
        return "extracted" if "extractor" in observation.tags else "derived"
    return None


@dataclass(frozen=True, slots=True)
class SpanIndex:
    """What accounting needs of a run's trace: span parents, layers and operation ids."""

    parents: Mapping[str, str | None] = field(default_factory=dict)
    layers: Mapping[str, str] = field(default_factory=dict)
    operations: Mapping[str, str] = field(default_factory=dict)
    nested_runs: frozenset[str] = frozenset()
    """Spans holding the roll-up of a nested run (attribute ``accounting.nested_run``)."""

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
        nested: set[str] = set()
        for span in spans:
            parents[span.id] = span.parent
            scope = scopes.get(span.scope) if span.scope is not None else None
            if scope is not None and scope.layer.lower() != DEFAULT_LAYER:
                layers[span.id] = scope.layer.lower()
            operation = span.attributes.get("operation_id") or span.attributes.get(
                "logical_operation_id"
            )
            if operation is not None:
                operations[span.id] = str(operation)
            if span.attributes.get(NESTED_RUN) is True:
                nested.add(span.id)
        return cls(parents, layers, operations, frozenset(nested))


NO_SPANS = SpanIndex()
"""The index of a run whose trace is not at hand: no parentage, every span ``application``."""


@dataclass(frozen=True, slots=True)
class PoolTotal:
    """The accounting of one (semantic type, pool) of a run."""

    semantic: str
    pool: Pool
    accounted: Accounted
    unit: str | None
    summary: Observation
    diagnostics: tuple[Observation, ...]
    skipped: tuple[Observation, ...] = ()
    """Observations left out because their value is not a usable number."""

    @property
    def counted(self) -> tuple[Observation, ...]:
        """The observations in the total, one per operation."""
        return tuple(c.origin for c in self.accounted.counted)

    @property
    def conflicting(self) -> tuple[Observation, ...]:
        """The observations of operations left out for conflicting values."""
        return tuple(c.origin for c in self.accounted.conflicting)

    def operation_of(self, observation: Observation) -> str | None:
        """The logical operation a counted or conflicting observation belongs to."""
        for candidate in (*self.accounted.counted, *self.accounted.conflicting):
            if candidate.origin is observation:
                return candidate.operation
        return None


def additive_pools(
    observations: Iterable[Observation], registry: SemanticRegistry
) -> tuple[dict[tuple[str, Pool], list[Observation]], set[tuple[str, Pool]]]:
    """The raw metric observations of additive types by (normalised type, pool), and the
    pools that already have a summary."""
    pools: dict[tuple[str, Pool], list[Observation]] = {}
    summarized: set[tuple[str, Pool]] = set()
    for observation in observations:
        semantic = observation.semantic_type
        if semantic is None or observation.kind is not ObservationKind.METRIC:
            continue
        pool = pool_of(observation)
        if pool is None:
            continue
        semantic = registry.normalize(semantic)
        if is_summary(observation):
            summarized.add((semantic, pool))
        elif registry.is_additive(semantic):
            pools.setdefault((semantic, pool), []).append(observation)
    return pools, summarized


def needs_accounting(run: RunRecord, registry: SemanticRegistry) -> bool:
    """Whether ``run`` was written without run totals and has an additive pool of two or
    more observations without a summary (replay then accounts it, with its trace)."""
    if run.run.accounting is not None:
        return False
    pools, summarized = additive_pools(run.observations, registry)
    return any(len(items) > 1 and key not in summarized for key, items in pools.items())


def accounting_observations(
    observations: Iterable[Observation],
    registry: SemanticRegistry,
    index: SpanIndex | Callable[[], SpanIndex] = NO_SPANS,
    *,
    case_id: str | None = None,
    variant_id: str | None = None,
    trace_dependent_only: bool = False,
    pools: Iterable[Pool] = POOLS,
) -> tuple[Observation, ...]:
    """The summaries and diagnostics of the additive ``pools`` that have no summary yet, in
    the order they first appear; ``()`` when there is nothing to account. A pool of one
    observation only needs accounting when its value is not usable. ``index`` describes
    the run's trace (:meth:`SpanIndex.of`), or a function that builds it, called only when
    a pool needs it (most runs have none). With ``trace_dependent_only`` a summary is
    only returned when the trace changes it (the total computed without ``index``
    differs); diagnostics are always returned."""
    found, summarized = additive_pools(observations, registry)
    wanted = frozenset(pools)
    placed = {"case_id": case_id, "variant_id": variant_id}
    added: list[Observation] = []
    for (semantic, pool), items in found.items():
        if pool not in wanted or (semantic, pool) in summarized:
            continue
        if len(items) == 1 and _value_in(items[0], items[0].unit, registry)[1] is None:
            continue
        if not isinstance(index, SpanIndex):
            index = index()
        total = pool_total(semantic, pool, items, registry, index, **placed)
        if not trace_dependent_only or (
            index is not NO_SPANS
            and _differs(total, pool_total(semantic, pool, items, registry, NO_SPANS, **placed))
        ):
            added.append(total.summary)
        added += total.diagnostics
    return tuple(added)


def _differs(first: PoolTotal, second: PoolTotal) -> bool:
    return first.summary != second.summary or first.diagnostics != second.diagnostics


def account_run(
    run: RunRecord, registry: SemanticRegistry, index: SpanIndex | None = None
) -> RunRecord:
    """``run`` with the summaries and diagnostics it lacks appended to its observations
    (an id the record already holds is not added twice). ``index`` defaults to the run's
    own trace."""
    if index is None:
        index = SpanIndex.of(run.trace) if isinstance(run.trace, Trace) else NO_SPANS
    present = {o.id for o in run.observations}
    added = tuple(
        o
        for o in accounting_observations(
            run.observations, registry, index, case_id=run.case_id, variant_id=run.variant_id
        )
        if o.id not in present
    )
    if not added:
        return run
    return run.model_copy(update={"observations": run.observations + added})


def pool_total(
    semantic: str,
    pool: Pool,
    observations: Sequence[Observation],
    registry: SemanticRegistry,
    index: SpanIndex = NO_SPANS,
    *,
    case_id: str | None = None,
    variant_id: str | None = None,
) -> PoolTotal:
    """The accounting of ``observations`` (raw observations of exactly ``semantic`` in
    ``pool``, in recording order): the summary and its diagnostics, which carry
    ``case_id`` and ``variant_id``."""
    placed = {"case_id": case_id, "variant_id": variant_id}
    unit = _pool_unit(semantic, observations, registry)
    summary_id = _summary_id(semantic, pool)
    candidates: list[Candidate] = []
    diagnostics: list[Observation] = []
    skipped: list[Observation] = []
    for observation in observations:
        value, problem = _value_in(observation, unit, registry)
        if problem is not None:
            skipped.append(observation)
            diagnostics.append(
                _diagnostic(
                    f"{summary_id}.{VALUE_SKIPPED}.{len(diagnostics) + 1}",
                    VALUE_SKIPPED,
                    {"observation": observation.id, "value": repr(observation.value)},
                    f"{observation.name} ({observation.id}): {problem}; left out of the "
                    f"{semantic} total",
                    observation,
                    semantic,
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
                observations[0],
                semantic,
                placed,
                span_id=found.span_id,
            )
        )
    summary = _summary(
        summary_id,
        semantic,
        pool,
        unit,
        observations,
        accounted.value,
        (accounted.basis, accounted.layer or DEFAULT_LAYER, accounted.operations),
        placed,
    )
    return PoolTotal(semantic, pool, accounted, unit, summary, tuple(diagnostics), tuple(skipped))


def pool_summary(
    semantic: str,
    observations: Sequence[Observation],
    registry: SemanticRegistry,
    index: SpanIndex = NO_SPANS,
) -> Observation:
    """The summary of ``observations`` (raw observations of exactly ``semantic`` from one
    pool, none of them a summary), computed now (see :func:`pool_total`). A plain pool
    (no trace, no accounting tags, one number per span, in one unit) is summed directly:
    the rules could not change it, and reports read many of them."""
    first = observations[0]
    pool = pool_of(first) or "direct"
    placed = {"case_id": first.case_id, "variant_id": first.variant_id}
    unit = _pool_unit(semantic, observations, registry)
    if not index.parents and (plain := _plain_total(observations, unit)) is not None:
        return _summary(
            _summary_id(semantic, pool),
            semantic,
            pool,
            unit,
            observations,
            plain,
            ("direct", DEFAULT_LAYER, len(observations)),
            placed,
        )
    return pool_total(semantic, pool, observations, registry, index, **placed).summary


def usable(observation: Observation, registry: SemanticRegistry) -> bool:
    """Whether the value of an observation of an additive type can be part of a total."""
    return _value_in(observation, observation.unit, registry)[1] is None


def _pool_unit(
    semantic: str, observations: Sequence[Observation], registry: SemanticRegistry
) -> str | None:
    return registry.unit_of(semantic) or next(
        (o.unit for o in observations if o.unit is not None), None
    )


def _summary_id(semantic: str, pool: Pool) -> str:
    return f"accounting.{semantic}" if pool == "direct" else f"accounting.{pool}.{semantic}"


def _plain_total(observations: Sequence[Observation], unit: str | None) -> int | float | None:
    """The total of a pool the rules cannot change, computed directly: no trace at hand,
    no accounting tags, non-negative whole numbers in ``unit``, one observation per span.
    ``None`` when the pool is not that plain (the rules then apply one by one)."""
    spans: set[str] = set()
    values: list[int] = []
    for observation in observations:
        value = observation.value
        if (
            observation.tags
            or value.__class__ is not int
            or value < 0
            or (observation.unit is not None and observation.unit != unit)
        ):
            return None
        key = observation.span_id or f"observation:{observation.id}"
        if key in spans:
            return None
        spans.add(key)
        values.append(value)
    return sum(values)


def _value_in(
    observation: Observation, unit: str | None, registry: SemanticRegistry
) -> tuple[int | float | None, str | None]:
    value = observation.value
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None, f"{value!r} is not a number"
    if isinstance(value, float) and not math.isfinite(value):
        return None, f"{value!r} is not a finite number"
    semantic = registry.normalize(observation.semantic_type or "")
    if registry.shape_of(semantic) == "integer" and not float(value).is_integer():
        return None, f"{value!r} is not a whole number"
    if unit is not None and observation.unit is not None and not same_unit(observation.unit, unit):
        try:
            value = convert_unit(value, observation.unit, unit)
        except UnitConversionError as error:
            return None, str(error)
    if value < 0 and (unit or "").strip().casefold() in _NON_NEGATIVE_UNITS:
        return None, f"{value!r} is a negative count of {unit}"
    return value, None


def _candidate(observation: Observation, value: int | float, index: SpanIndex) -> Candidate:
    tags = observation.tags
    span = observation.span_id
    named = (
        tags.get("operation_id")
        or tags.get("logical_operation_id")
        or (index.operations.get(span) if span is not None else None)
    )
    operation = named or (f"span:{span}" if span is not None else f"observation:{observation.id}")
    layer = tags.get("layer") or (index.layers.get(span) if span is not None else None)
    return Candidate(
        value=value,
        span_id=span,
        layer=layer.strip().lower() if layer else DEFAULT_LAYER,
        operation=operation,
        aggregate=tags.get(ACCOUNTING_TAG) == "aggregate",
        authority=tags.get("authority", "").strip().lower() == "true",
        explicit=named is not None or span is None,
        origin=observation,
        nested=tags.get(NESTED_RUN, "").strip().lower() == "true" or span in index.nested_runs,
    )


def _summary(
    summary_id: str,
    semantic: str,
    pool: Pool,
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
    source = first.source
    if pool == "direct" and any(
        o.source is ObservationSource.TASK_OBSERVATION for o in observations
    ):
        source = ObservationSource.TASK_OBSERVATION
    tags = {ACCOUNTING_TAG: SUMMARY, "basis": basis, "layer": layer, "operations": str(operations)}
    if pool == "extracted":
        tags |= {"extractor": ACCOUNTING_EXTRACTOR, "extractor_version": str(ACCOUNTING_VERSION)}
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
        tags=tags,
        **placed,
    )


def _diagnostic(
    observation_id: str,
    code: str,
    details: dict[str, Any],
    message: str,
    concerning: Observation,
    semantic: str,
    placed: dict[str, str | None],
    *,
    span_id: str | None = None,
) -> Observation:
    tags = {"metric": semantic}
    if pool_of(concerning) == "extracted":
        tags |= {"extractor": ACCOUNTING_EXTRACTOR, "extractor_version": str(ACCOUNTING_VERSION)}
    return Observation(
        id=observation_id,
        name=code,
        kind=ObservationKind.DIAGNOSTIC,
        value=details,
        role=ObservationRole.DIAGNOSTIC,
        source=concerning.source,
        span_id=span_id if span_id is not None else concerning.span_id,
        reason=message,
        tags=tags,
        **placed,
    )
