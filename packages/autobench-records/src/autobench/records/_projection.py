"""Projection: from raw observations to one canonical value per semantic type.

Raw observations are never discarded. For each semantic type projection picks:

* for an additive type (tokens, requests, cost, counts, bytes), unless a score
  gives it: the run total of the first evidence pool that has one, derived
  (``token_cost``, ...), then direct (task observations and imported evidence
  together), then extracted (derived records of ``replay_extraction``); each
  operation counted once (:mod:`autobench.records._run_accounting`). The total is
  the pool's stored summary, else its only usable observation, else computed on
  the spot (with the run's trace, when given, for span parentage and layers).
  When a later pool's total differs, the projected entry's ``note`` says so;
* for any other type: the observations of the most trusted source
  (:data:`SOURCE_PRECEDENCE`: score, then derived, then task observation, then
  imported), of which the first recorded; the projected entry has
  ``ambiguous=True`` when the others' values differ, so a report can flag it
  instead of silently picking one.

The other observations stay available through raw queries.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from autobench.abp import Trace
from autobench.records._enums import (
    SOURCE_PRECEDENCE,
    ObservationKind,
    ObservationRole,
    ObservationSource,
)
from autobench.records._evidence import Observation, ScoreRecord
from autobench.records._records import RunRecord
from autobench.records._run_accounting import (
    NO_SPANS,
    POOLS,
    SpanIndex,
    is_summary,
    pool_of,
    pool_summary,
    usable,
)
from autobench.records._semantics import DEFAULT_SEMANTIC_REGISTRY, SemanticRegistry

_RANK = {source: rank for rank, source in enumerate(SOURCE_PRECEDENCE)}


def score_observation(
    score: ScoreRecord, *, case_id: str | None = None, variant_id: str | None = None
) -> Observation:
    """The observation a score projects to: kind metric, source ``score``, id ``score.<name>``."""
    # Plain construction: with alias-aware configs pydantic's ``model_construct`` is several
    # times slower than validating these few already-typed fields.
    return Observation(
        id=f"score.{score.name}",
        name=score.name,
        kind=ObservationKind.METRIC,
        value=score.value,
        unit=score.unit,
        semantic_type=score.semantic_type,
        direction=score.direction,
        role=score.role,
        source=ObservationSource.SCORE,
        span_id=score.span_id,
        reason=score.reason,
        case_id=case_id,
        variant_id=variant_id,
    )


def run_observations(run: RunRecord) -> tuple[Observation, ...]:
    """Every observation of a run: recorded ones, then one per score that produced a value."""
    scores = tuple(
        score_observation(score, case_id=run.case_id, variant_id=run.variant_id)
        for score in run.scores
        if score.error is None
    )
    return run.observations + scores


@dataclass(frozen=True, slots=True)
class ProjectedMetric:
    """The canonical value of one semantic type in one run, and what it was chosen from."""

    semantic_type: str
    observation: Observation
    candidates: tuple[Observation, ...]
    ambiguous: bool
    note: str | None = None
    """Why other evidence of an additive type was not used (a pool whose total differs)."""

    @property
    def value(self) -> Any:
        return self.observation.value


def filter_observations(
    observations: Iterable[Observation],
    *,
    semantic_type: str | None = None,
    kind: ObservationKind | str | None = None,
    role: ObservationRole | str | None = None,
    source: ObservationSource | str | None = None,
    span_id: str | None = None,
    name: str | None = None,
    registry: SemanticRegistry = DEFAULT_SEMANTIC_REGISTRY,
    include_descendants: bool = True,
) -> list[Observation]:
    """Observations matching every given selector.

    ``semantic_type`` matches through the registry: aliases are normalised and,
    with ``include_descendants``, a child type (``serving.cost``) matches a
    parent selector (``money.cost``).
    """
    wanted = None if semantic_type is None else registry.normalize(semantic_type)
    selected: list[Observation] = []
    for observation in observations:
        if wanted is not None:
            if observation.semantic_type is None:
                continue
            if include_descendants:
                if not registry.is_a(observation.semantic_type, wanted):
                    continue
            elif registry.normalize(observation.semantic_type) != wanted:
                continue
        if kind is not None and observation.kind != kind:
            continue
        if role is not None and observation.role != role:
            continue
        if source is not None and observation.source != source:
            continue
        if span_id is not None and observation.span_id != span_id:
            continue
        if name is not None and observation.name != name:
            continue
        selected.append(observation)
    return selected


def project_observations(
    observations: Iterable[Observation],
    registry: SemanticRegistry = DEFAULT_SEMANTIC_REGISTRY,
    index: SpanIndex = NO_SPANS,
) -> dict[str, ProjectedMetric]:
    """One :class:`ProjectedMetric` per (normalised) semantic type of the metric observations
    (rules in the module docstring). ``index`` describes the run's trace
    (:meth:`SpanIndex.of`); it only matters for additive groups without a stored summary.
    """
    groups: dict[str, list[Observation]] = {}
    for observation in observations:
        if observation.semantic_type is None or observation.kind != ObservationKind.METRIC:
            continue
        groups.setdefault(registry.normalize(observation.semantic_type), []).append(observation)
    projected: dict[str, ProjectedMetric] = {}
    for semantic, candidates in groups.items():
        additive = registry.is_additive(semantic) or any(is_summary(c) for c in candidates)
        if len(candidates) == 1 and (not additive or usable(candidates[0], registry)):
            # the common case, kept cheap for 10,000-run reports
            projected[semantic] = ProjectedMetric(semantic, candidates[0], (candidates[0],), False)
            continue
        if additive and all(c.source is not ObservationSource.SCORE for c in candidates):
            projected[semantic] = _run_total(semantic, candidates, registry, index)
            continue
        best_rank = min(_RANK[candidate.source] for candidate in candidates)
        best = [candidate for candidate in candidates if _RANK[candidate.source] == best_rank]
        chosen = best[0]
        ambiguous = any(candidate.value != chosen.value for candidate in best[1:])
        projected[semantic] = ProjectedMetric(semantic, chosen, tuple(candidates), ambiguous)
    return projected


def _run_total(
    semantic: str,
    candidates: list[Observation],
    registry: SemanticRegistry,
    index: SpanIndex,
) -> ProjectedMetric:
    """The projected entry of an additive type: the first pool's total (module docstring)."""
    pools: dict[str, list[Observation]] = {}
    for candidate in candidates:
        pools.setdefault(pool_of(candidate) or "direct", []).append(candidate)
    totals: list[tuple[str, Observation, bool]] = []
    for pool in POOLS:
        items = pools.get(pool)
        if not items:
            continue
        summaries = [c for c in items if is_summary(c)]
        if summaries:
            total = summaries[0]
            ambiguous = any(s.value != total.value for s in summaries[1:])
        elif len(items) == 1 and usable(items[0], registry):
            total, ambiguous = items[0], False
        else:
            total, ambiguous = pool_summary(semantic, items, registry, index), False
        totals.append((pool, total, ambiguous))
    (used, chosen, ambiguous), others = totals[0], totals[1:]
    differing = [(p, o) for p, o, _ in others if o.value != chosen.value]
    note = None
    if differing:
        listed = "; ".join(f"the {p} evidence totals {o.value!r}" for p, o in differing)
        note = f"{semantic}: the {used} total {chosen.value!r} is used; {listed}"
    return ProjectedMetric(semantic, chosen, tuple(candidates), ambiguous, note)


@dataclass(frozen=True)
class ObservationQuery:
    """Raw or projected lookups over a set of observations.

    Projected lookups give one value per semantic type: for additive types
    (tokens, requests, cost, counts) the accounting-safe run total, each
    operation counted once; raw lookups give every measured value and never
    the accounting summaries. ``trace`` (the run's trace) is only needed for
    observations that have no stored summary yet, for span parentage and layers.

    >>> query = ObservationQuery(observations=list(run_observations(run)))
    >>> query.values("money.cost", projected=False)
    """

    observations: Sequence[Observation]
    registry: SemanticRegistry = DEFAULT_SEMANTIC_REGISTRY
    trace: Trace | None = None

    def select(self, semantic_type: str, **selectors: Any) -> list[Observation]:
        """Raw observations of ``semantic_type`` (descendants included) matching ``selectors``;
        accounting summaries are not raw evidence and are left out."""
        return [
            observation
            for observation in filter_observations(
                self.observations, semantic_type=semantic_type, registry=self.registry, **selectors
            )
            if not is_summary(observation)
        ]

    def values(self, semantic_type: str, *, projected: bool = True) -> list[Any]:
        """Values of ``semantic_type``: the projected one (at most one), or every raw one."""
        if projected:
            metric = self.projected().get(self.registry.normalize(semantic_type))
            return [] if metric is None else [metric.value]
        return [observation.value for observation in self.select(semantic_type)]

    def first_exact(self, semantic_type: str) -> Observation | None:
        """The projected observation of exactly ``semantic_type`` (no descendants), if any:
        for an additive type measured more than once, its accounting summary."""
        metric = self.projected().get(self.registry.normalize(semantic_type))
        return None if metric is None else metric.observation

    def projected(self) -> dict[str, ProjectedMetric]:
        """The projection of every metric observation, keyed by normalised semantic type."""
        index = SpanIndex.of(self.trace) if self.trace is not None else NO_SPANS
        return project_observations(self.observations, self.registry, index)
