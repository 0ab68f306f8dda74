"""Comparison of two variants, paired by case.

The comparison reports associations: which factors differ and how the
aggregates of the paired runs differ. It never says which factor caused a
difference; with more than one changed factor it is marked ``confounded``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autobench.records import RunRecord, RunStatus, Variant
from autobench.report._aggregates import aggregate_column
from autobench.report._metrics import MetricTable
from autobench.report._model import (
    Comparison,
    ComparisonMetric,
    FactorChange,
    MetricColumn,
    UnpairedCase,
)

_UNPAIRABLE = (RunStatus.ERRORED, RunStatus.SKIPPED)
"""Run statuses that leave a case unpaired: such a run has no comparable measurement
(it is never counted as a zero)."""


def variant_definition(table: MetricTable, variant_id: str) -> Variant | None:
    """The variant as the experiment declared it, else as its first run recorded it."""
    for variant in table.result.experiment.benchmark.variants:
        if variant.id == variant_id:
            return variant
    for run in table.runs:
        if run.variant_id == variant_id:
            return run.variant
    return None


def changed_factors(baseline: Variant | None, candidate: Variant | None) -> list[FactorChange]:
    """Factors whose values differ, in declaration order (baseline's first), including a
    factor present on one side only."""
    before: dict[str, Any] = {} if baseline is None else baseline.factor_values
    after: dict[str, Any] = {} if candidate is None else candidate.factor_values
    changes: list[FactorChange] = []
    for name in dict.fromkeys([*before, *after]):
        if name not in after:
            changes.append(FactorChange(name=name, baseline=before[name], only_in="baseline"))
        elif name not in before:
            changes.append(FactorChange(name=name, candidate=after[name], only_in="candidate"))
        elif before[name] != after[name]:
            changes.append(FactorChange(name=name, baseline=before[name], candidate=after[name]))
    return changes


def _unpaired_reason(baseline: list[RunRecord], candidate: list[RunRecord]) -> str | None:
    if not baseline:
        return "missing in baseline"
    if not candidate:
        return "missing in candidate"
    reasons = []
    for side, runs in (("baseline", baseline), ("candidate", candidate)):
        for status in _UNPAIRABLE:
            if any(run.status is status for run in runs):
                reasons.append(f"{status.value} in {side}")
    return "; ".join(reasons) or None


def compare(
    table: MetricTable, baseline: str, candidate: str, columns: Sequence[MetricColumn]
) -> Comparison:
    """Compare ``candidate`` against ``baseline`` over the cases both ran without error.

    A case is paired when each variant has a run of it and none of those runs
    errored or was skipped; otherwise it is listed in ``unpaired`` with the
    reason. Each metric is aggregated over the paired runs of each side
    (``total`` = paired runs of that side); ``delta = candidate - baseline``,
    ``None`` when either side has no value; ``relative = delta / |baseline|``,
    ``None`` without a delta or when the baseline is 0. Raises
    :class:`~autobench.report.UnknownVariantError` for an unknown variant id.
    """
    table.check_variant(baseline)
    table.check_variant(candidate)
    sides: dict[str, dict[str, list[int]]] = {baseline: {}, candidate: {}}
    for variant, cases in sides.items():
        for index in table.by_variant[variant]:
            cases.setdefault(table.runs[index].case_id, []).append(index)
    paired: list[str] = []
    unpaired: list[UnpairedCase] = []
    base_runs: list[int] = []
    cand_runs: list[int] = []
    for case in table.cases:
        base = sides[baseline].get(case, [])
        cand = sides[candidate].get(case, [])
        if not base and not cand:
            continue
        reason = _unpaired_reason([table.runs[i] for i in base], [table.runs[i] for i in cand])
        if reason is not None:
            unpaired.append(UnpairedCase(case=case, reason=reason))
            continue
        paired.append(case)
        base_runs.extend(base)
        cand_runs.extend(cand)
    metrics = []
    scope = f"{baseline} -> {candidate}, "
    for item in columns:
        before = aggregate_column(table, item, base_runs, scope=f"{scope}{baseline}, ")
        after = aggregate_column(table, item, cand_runs, scope=f"{scope}{candidate}, ")
        delta: float | None = None
        relative: float | None = None
        if before.value is not None and after.value is not None:
            delta = after.value - before.value
            relative = None if before.value == 0 else delta / abs(before.value)
        metrics.append(
            ComparisonMetric(
                name=item.name,
                semantic_type=item.semantic_type,
                fn=item.fn,
                unit=item.unit,
                baseline=before,
                candidate=after,
                delta=delta,
                relative=relative,
            )
        )
    changes = changed_factors(
        variant_definition(table, baseline), variant_definition(table, candidate)
    )
    return Comparison(
        baseline=baseline,
        candidate=candidate,
        paired_cases=tuple(paired),
        unpaired=tuple(unpaired),
        changed_factors=tuple(changes),
        confounded=len(changes) > 1,
        metrics=tuple(metrics),
    )
