"""Report builders: from an :class:`ExperimentResult` (live or replayed) to report models.

Every builder reads projected semantic metrics (never local metric names)
converted to the semantic type's canonical unit, and every aggregate carries
``n`` and ``total``. :func:`build_report` builds all views from one
:class:`~autobench.report._metrics.MetricTable`, so each run is projected once;
the single-view builders build their own table.
"""

from __future__ import annotations

from collections.abc import Sequence

from autobench.abp import AutobenchError
from autobench.core.spec import MetricAggregation, ReportSpec
from autobench.records import ExperimentResult
from autobench.report._aggregates import has_repeats
from autobench.report._calibration import stored_calibrations
from autobench.report._columns import (
    comparison_columns,
    default_columns,
    default_matrix_metric,
    spec_columns,
    summary_columns,
)
from autobench.report._compare import compare
from autobench.report._distributions import distribution
from autobench.report._headline import build_headline, headline_kinds
from autobench.report._leaderboard import leaderboard
from autobench.report._matrix import case_matrix
from autobench.report._metrics import MetricTable
from autobench.report._model import (
    DEFAULT_LEVEL,
    Calibration,
    CaseMatrix,
    CassetteUse,
    Comparison,
    Distribution,
    Headline,
    Leaderboard,
    MetricColumn,
    Reliability,
    Report,
    RunMetricRow,
    VariantSummary,
)
from autobench.report._pairwise import stored_pairwise, with_pairwise
from autobench.report._paused import paused_over_runs
from autobench.report._policies import policy_summaries
from autobench.report._reliability import reliability
from autobench.report._run_rows import run_rows


def report_spec(result: ExperimentResult) -> ReportSpec:
    """The report configuration recorded with the experiment (``experiment.yaml``'s
    ``report``); raises pydantic's ``ValidationError`` (a ``ValueError``) when it is invalid."""
    return ReportSpec.model_validate(result.experiment.report)


def _columns(table: MetricTable, metrics: Sequence[MetricAggregation]) -> list[MetricColumn]:
    return spec_columns(table, metrics) if metrics else summary_columns(table)


def _compared(table: MetricTable, metrics: Sequence[MetricAggregation]) -> list[MetricColumn]:
    return spec_columns(table, metrics) if metrics else comparison_columns(table)


def _leaderboard_columns(table: MetricTable, spec: ReportSpec) -> list[MetricColumn]:
    return _columns(table, () if spec.leaderboard is None else spec.leaderboard.metrics)


def build_leaderboard(result: ExperimentResult, spec: ReportSpec | None = None) -> Leaderboard:
    """The leaderboard of ``spec`` (default: the recorded configuration); without configured
    metrics, the default columns: objective and constraint types (``mean``, or
    ``ratio_true`` for boolean values), then latency, tokens and cost when recorded.
    Every row has the variant's pass rate; ``best`` names the best variants per column."""
    table = MetricTable(result)
    spec = report_spec(result) if spec is None else spec
    return leaderboard(table, _leaderboard_columns(table, spec))


def build_case_matrix(
    result: ExperimentResult, semantic_type: str | None = None
) -> CaseMatrix | None:
    """The case x variant matrix of ``semantic_type`` (default: the recorded matrix metric,
    else the first objective type); ``None`` when there is no metric to show."""
    table = MetricTable(result)
    return _matrix(table, report_spec(result), semantic_type)


def _matrix(
    table: MetricTable, spec: ReportSpec, semantic_type: str | None = None
) -> CaseMatrix | None:
    if semantic_type is None and spec.matrix is not None:
        semantic_type = spec.matrix.semantic_type
    if semantic_type is None:
        configured = () if spec.leaderboard is None else spec.leaderboard.metrics
        columns = spec_columns(table, configured) if configured else default_columns(table)
        semantic_type = default_matrix_metric(table, columns)
    return None if semantic_type is None else case_matrix(table, semantic_type)


@paused_over_runs
def compare_variants(
    result: ExperimentResult,
    baseline: str,
    candidate: str,
    metrics: Sequence[MetricAggregation] | None = None,
    *,
    level: float = DEFAULT_LEVEL,
) -> Comparison:
    """Compare ``candidate`` against ``baseline``, paired by case.

    ``metrics`` default to the metrics of a recorded comparison of the same
    pair, else the default leaderboard columns. Each metric's statistics use the
    confidence ``level`` (tests at ``1 - level``). Raises
    :class:`UnknownVariantError` (a ``ValueError``) naming the known variants
    when either id is unknown. See :func:`autobench.report._compare.compare`.
    """
    return _compare_variants(MetricTable(result), baseline, candidate, metrics, level)


@paused_over_runs
def compare_variants_with_headline(
    result: ExperimentResult,
    baseline: str,
    candidate: str,
    metrics: Sequence[MetricAggregation] | None = None,
    *,
    level: float = DEFAULT_LEVEL,
) -> tuple[Comparison, Headline]:
    """:func:`compare_variants` and its headline (one comparison, no Pareto front), from
    one reading of the runs; raises as :func:`compare_variants` does."""
    table = MetricTable(result)
    comparison = _compare_variants(table, baseline, candidate, metrics, level)
    return comparison, build_headline([comparison], None, headline_kinds(table))


def _compare_variants(
    table: MetricTable,
    baseline: str,
    candidate: str,
    metrics: Sequence[MetricAggregation] | None,
    level: float,
) -> Comparison:
    if metrics is None:
        configured = [
            item
            for item in report_spec(table.result).comparisons
            if (item.baseline, item.candidate) == (baseline, candidate)
        ]
        metrics = configured[0].metrics if configured else ()
    return compare(table, baseline, candidate, _compared(table, metrics), level=level)


def _comparisons(table: MetricTable, spec: ReportSpec) -> list[Comparison]:
    if spec.comparisons:
        return [
            compare(table, item.baseline, item.candidate, _compared(table, item.metrics))
            for item in spec.comparisons
        ]
    if len(table.variants) == 2:
        return [compare(table, *table.variants, comparison_columns(table))]
    return []


def build_metric_distribution(
    result: ExperimentResult,
    semantic_type: str,
    *,
    name: str | None = None,
    summaries: Sequence[str] = ("min", "median", "p95", "max"),
) -> Distribution:
    """Per-variant values of ``semantic_type`` (canonical unit) and the ``summaries``
    aggregates; raises ``UnknownAggregationError`` for an unknown summary name."""
    table = MetricTable(result)
    return distribution(table, name or semantic_type, semantic_type, summaries)


def build_reliability(
    result: ExperimentResult, *, k: int | None = None, level: float = DEFAULT_LEVEL
) -> Reliability:
    """pass@k, pass^k (with Wilson intervals at ``level``) and the flaky cases of every
    variant over its repeats; ``k`` defaults to the planned repeats. Also meaningful without
    repeats (``k = 1``: pass@1 = pass^1 = the share of cases that passed). Raises
    ``ValueError`` when ``k < 1``. See :mod:`autobench.report._reliability`."""
    return reliability(MetricTable(result), k=k, level=level)


def build_run_metric_rows(result: ExperimentResult) -> list[RunMetricRow]:
    """One row per run with every projected metric in its canonical unit and, for a run
    that did not pass, the reason."""
    return list(run_rows(MetricTable(result)))


def _variant_summaries(table: MetricTable) -> tuple[VariantSummary, ...]:
    declared = {variant.id: variant for variant in table.result.experiment.benchmark.variants}
    for variant_id in table.variants:
        if variant_id not in declared:  # as its first run recorded it
            declared[variant_id] = table.runs[table.by_variant[variant_id][0]].variant
    return tuple(
        VariantSummary(id=variant.id, label=variant.label, factors=variant.factor_values)
        for variant in (declared[variant_id] for variant_id in table.variants)
    )


@paused_over_runs
def build_report(
    result: ExperimentResult, spec: ReportSpec | None = None, *, leave_out_replayed: bool = False
) -> Report:
    """Every view of the report of ``result``.

    ``spec`` defaults to the recorded configuration. Views the spec leaves out
    get defaults: the default leaderboard columns, the matrix of the first
    objective type, a comparison only when there are exactly two variants, no
    distributions; ``reliability`` (pass@k, pass^k, flaky cases) when some case has
    repeats. ``diagnostics`` collects every problem met (unit
    conversions, ambiguous projections, skipped values). Raises
    :class:`UnknownVariantError` when a configured comparison names an unknown
    variant. With ``leave_out_replayed``, runs whose every HTTP request was answered from
    a cassette show no token or cost evidence (``_metrics.without_replayed_spend``): what
    this experiment spent, not what the recorded calls cost.
    """
    spec = report_spec(result) if spec is None else spec
    table = MetricTable(result, leave_out_replayed=leave_out_replayed)
    board = leaderboard(table, _leaderboard_columns(table, spec))
    matrix = _matrix(table, spec)
    comparisons = _comparisons(table, spec)
    distributions = [
        distribution(table, item.name, item.semantic_type, item.summaries)
        for item in spec.distributions
    ]
    rows = run_rows(table)
    headline = build_headline(comparisons, board, headline_kinds(table))
    headline, pairwise_problem = _with_stored_pairwise(headline, result)
    calibrations, problem = _stored_calibrations(result)
    return Report(
        benchmark=result.benchmark_id,
        experiment=result.experiment_id,
        runs=len(result.runs),
        planned=len(result.experiment.plan),
        status=table.status_counts(),
        missing_runs=result.missing_runs,
        variants=_variant_summaries(table),
        headline=headline,
        leaderboard=board,
        matrix=matrix,
        comparisons=tuple(comparisons),
        distributions=tuple(distributions),
        policies=tuple(policy_summaries(table)),
        run_rows=rows,
        metric_units={semantic: table.values(semantic).unit for semantic in table.semantic_types},
        diagnostics=(*table.diagnostics, *pairwise_problem, *problem),
        cassette=cassette_use(result, leave_out_replayed),
        reliability=reliability(table) if has_repeats(table) else None,
        calibrations=calibrations,
    )


def _with_stored_pairwise(
    headline: Headline, result: ExperimentResult
) -> tuple[Headline, list[str]]:
    """``headline`` with the pairwise judgings stored beside the record
    (:mod:`autobench.report._pairwise`); a damaged pairwise record is a diagnostic."""
    try:
        return with_pairwise(headline, stored_pairwise(result)), []
    except AutobenchError as exc:
        return headline, [f"pairwise judging not shown: {exc}"]


def _stored_calibrations(result: ExperimentResult) -> tuple[tuple[Calibration, ...], list[str]]:
    """The calibrations of the labels stored beside the record; a labels file that cannot
    be used is a diagnostic of the report, not a failure of it."""
    try:
        return stored_calibrations(result), []
    except AutobenchError as exc:
        return (), [f"labels not used: {exc}"]


REPLAYED = "cassette.replayed"
"""The observation of a run's requests answered from a cassette (``core.runtime._cassette``)."""
SENT = "cassette.sent"
"""The observation of a ``replay-or-record`` run's requests that went to the network."""


def cassette_use(result: ExperimentResult, left_out: bool = False) -> CassetteUse | None:
    """How ``result``'s experiment used cassettes, or ``None`` when it did not."""
    info = result.experiment.cassette
    if info is None:
        return None
    counts, sent = [], 0
    judge = {"replayed": 0, "sent": 0}
    for run in result.runs:
        for observation in run.observations:
            if isinstance(observation.value, int) and not isinstance(observation.value, bool):
                if observation.name == REPLAYED:
                    counts.append(observation.value)
                elif observation.name == SENT:
                    sent += observation.value
                elif (
                    observation.tags.get("scope") == "judge"
                    and (which := observation.tags.get("cassette")) in judge
                ):
                    judge[which] += observation.value
    return CassetteUse(
        mode=info.mode,
        source=info.record_dir,
        source_experiment=info.experiment_id,
        replayed_runs=sum(1 for count in counts if count),
        replayed_requests=sum(counts),
        sent_requests=sent,
        replayed_spend_left_out=left_out,
        judge_replayed_requests=judge["replayed"],
        judge_sent_requests=judge["sent"],
    )
