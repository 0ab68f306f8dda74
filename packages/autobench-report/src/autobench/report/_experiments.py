"""Comparison across experiments: this week against last week, a branch against main.

Runs of the two experiments are paired by case id and variant id: for each variant
both experiments have, its runs in the candidate experiment are compared with its
runs in the baseline experiment exactly as two variants of one experiment are
(:func:`autobench.report._compare.compare_sides`), statistics included.
"""

from __future__ import annotations

from collections.abc import Sequence

from autobench.core.spec import MetricAggregation
from autobench.records import ExperimentResult, experiment_changes
from autobench.report._columns import comparison_columns, spec_columns
from autobench.report._compare import Side, compare_sides
from autobench.report._headline import build_headline, headline_kinds
from autobench.report._metrics import MetricTable
from autobench.report._model import DEFAULT_LEVEL, ExperimentComparison
from autobench.report._paused import paused_over_runs


def _only(ids: Sequence[str], others: Sequence[str]) -> tuple[str, ...]:
    present = set(others)
    return tuple(item for item in ids if item not in present)


@paused_over_runs
def compare_experiments(
    baseline: ExperimentResult,
    candidate: ExperimentResult,
    *,
    metrics: Sequence[MetricAggregation] | None = None,
    level: float = DEFAULT_LEVEL,
) -> ExperimentComparison:
    """Compare the ``candidate`` experiment against the ``baseline`` one, per variant.

    ``metrics`` default to the baseline's default comparison columns (objective and
    constraint types, then latency, tokens and cost when recorded); each metric is
    read from both experiments in the semantic type's canonical unit, and its
    direction is the baseline's. Cases are paired across the experiments by case id
    within a variant; a case only one experiment has is listed in the comparison's
    ``unpaired`` and in ``cases_only_in_*``. ``changed`` compares the recorded spec
    hash, dataset hash and source file hashes. Statistics use confidence ``level``.
    """
    before = MetricTable(baseline)
    after = MetricTable(candidate)
    columns = spec_columns(before, metrics) if metrics else comparison_columns(before)
    cases = tuple(dict.fromkeys([*before.cases, *after.cases]))
    comparisons = tuple(
        compare_sides(
            Side.of(before, variant),
            Side.of(after, variant),
            columns,
            cases,
            labels=(f"baseline/{variant}", f"candidate/{variant}"),
            level=level,
        )
        for variant in before.variants
        if variant in after.by_variant
    )
    return ExperimentComparison(
        baseline_experiment=baseline.experiment_id,
        candidate_experiment=candidate.experiment_id,
        changed=experiment_changes(baseline.experiment, candidate.experiment),
        variants_only_in_baseline=_only(before.variants, after.variants),
        variants_only_in_candidate=_only(after.variants, before.variants),
        cases_only_in_baseline=_only(before.cases, after.cases),
        cases_only_in_candidate=_only(after.cases, before.cases),
        comparisons=comparisons,
        headline=build_headline(comparisons, None, headline_kinds(before)),
    )
