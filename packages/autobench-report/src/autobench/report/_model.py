"""Report models: what the report builders compute from an :class:`ExperimentResult`.

Every number is computed from projected semantic metrics (never local metric
names), converted to the semantic type's canonical unit. Every aggregate keeps
``n`` (how many runs had a value) and ``total`` (how many runs were
considered), so a mean over 1 of 4 runs never reads like a mean over 4; an
aggregate over no values has ``value=None`` ("no value"), never 0.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import ConfigDict, Field

from autobench.records import Direction, RunStatus, StatusCounts
from autobench.report._run_row_table import ReportModel as ReportModel
from autobench.report._run_row_table import RunMetricRow as RunMetricRow
from autobench.report._run_row_table import RunRows


class AggregateValue(ReportModel):
    """One aggregate: ``value`` (``None`` = no value), over ``n`` of ``total`` runs, in ``unit``.
    With repeats, ``n`` and ``total`` count cases (each case's repeats reduced to one value
    first) and ``spread`` is the mean over cases of the standard deviation between a case's
    repeats (``None``: no repeats, or no case with two values)."""

    fn: str
    value: float | int | None
    n: int
    total: int
    unit: str | None = None
    spread: float | None = None


class MetricColumn(ReportModel):
    """A requested aggregate: display ``name``, the semantic type it reads and the function.
    ``direction`` says which way is better (``None``: no direction is known, or the
    aggregate has none, as ``count``)."""

    name: str
    semantic_type: str
    fn: str
    unit: str | None = None
    direction: Direction | None = None


class VariantSummary(ReportModel):
    """A variant as configured: id, label and factor values."""

    id: str
    label: str | None = None
    factors: dict[str, Any] = Field(default_factory=dict)


class LeaderboardRow(ReportModel):
    variant: str
    runs: int
    status: StatusCounts
    pass_rate: AggregateValue | None = None
    """Share of the variant's runs that passed (``ratio_true`` over every run)."""
    metrics: dict[str, AggregateValue] = Field(default_factory=dict)
    """Keyed by :attr:`MetricColumn.name`."""


class Leaderboard(ReportModel):
    columns: tuple[MetricColumn, ...] = ()
    rows: tuple[LeaderboardRow, ...] = ()
    best: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    """The best variants of each column with a direction, by column name (ties share it);
    a column is absent when fewer than two variants have a value or all values are equal."""
    best_pass_rate: tuple[str, ...] = ()
    """The variants with the highest pass rate, under the same rule."""


class MatrixCell(ReportModel):
    """One case x variant cell: the run's status (``None``: no run recorded) and the
    metric value (``None``: no value, for example because the run errored)."""

    status: RunStatus | None = None
    value: Any = None


class CaseMatrix(ReportModel):
    semantic_type: str
    unit: str | None = None
    variants: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()
    cells: dict[str, dict[str, MatrixCell]] = Field(default_factory=dict)
    """``cells[case][variant]``."""


class FactorChange(ReportModel):
    """A factor whose value differs between baseline and candidate. ``only_in`` is
    ``"baseline"`` or ``"candidate"`` when the other variant does not have the factor
    (its side then reads ``None``)."""

    name: str
    baseline: Any = None
    candidate: Any = None
    only_in: str | None = None


class UnpairedCase(ReportModel):
    """A case that could not be paired, and why (``missing in candidate``, ``errored in baseline``, ...)."""

    case: str
    reason: str


DEFAULT_LEVEL = 0.95
"""Confidence level of comparison intervals; the tests' significance level is ``1 - level``."""


class Verdict(StrEnum):
    """What a comparison can say about one metric at the chosen level."""

    IMPROVED = "improved"
    """The candidate is better in the metric's direction, supported at the level."""
    REGRESSED = "regressed"
    """The candidate is worse in the metric's direction, supported at the level."""
    NO_DIFFERENCE = "no detectable difference"
    """The test did not reach the level: no difference was shown (none was proven absent)."""
    CHANGED = "changed"
    """A supported difference in a metric without a known direction (neither better nor worse)."""
    NO_CHANGE = "no change"
    """Every paired case has the same value on both sides (a delta of 0 on every case, at
    least two cases): observed, not inferred, so no test is needed."""
    TOO_FEW_CASES = "too few cases"
    """Fewer paired cases than the test needs to ever reach the level: more cases could
    change the answer (never used for deltas that are the same on every case)."""


class MetricStatistics(ReportModel):
    """The paired statistics of one comparison row (see :mod:`autobench.report._statistics`
    for the rule the verdict, the interval and the test follow).

    ``n`` cases have a value on both sides (per-case means when a case has several runs;
    per-case sums for a ``sum`` row); ``informative`` of them moved (discordant pass/fail
    pairs, or non-zero deltas). ``mean_delta`` is the mean of candidate minus baseline per
    case. ``[ci_low, ci_high]`` is the two-sided ``level`` interval of ``estimate``, whose
    quantity ``interval_of`` names: ``difference in pass rate`` (``mcnemar-exact``: the exact
    conditional interval), ``Hodges-Lehmann shift`` (``wilcoxon``: the signed-rank interval),
    ``difference of p95`` (and of other aggregates; ``bootstrap``: the paired percentile
    bootstrap of the row's own aggregate), or a delta that is the same on every case
    (``exact``: no test, no p-value, the interval is the point). ``p_adjusted`` is
    Holm-adjusted across the ``family`` tested rows of the comparison. ``cases_needed`` is the
    number of cases at which the observed effect would be detected with 80 % power
    (``None`` when no effect was observed or nothing was tested)."""

    test: str
    n: int
    informative: int
    mean_delta: float | None = None
    estimate: float | None = None
    """The point estimate of the quantity ``interval_of`` names (``None``: no pair)."""
    interval_of: str | None = None
    """What ``[ci_low, ci_high]`` is an interval of, in words."""
    interval_exact: bool = True
    """Whether the interval comes from an exact distribution (else a normal approximation)."""
    ci_low: float | None = None
    ci_high: float | None = None
    level: float
    p_value: float | None = None
    p_adjusted: float | None = None
    family: int = 1
    """How many tested rows (hypotheses) the Holm adjustment counted, this one included."""
    verdict: Verdict
    cases_needed: int | None = None
    direction: Direction | None = None
    caveat: str | None = None
    """What can make the test and its interval part near the boundary (zero or tied deltas
    of a signed-rank test); used in ``note``."""
    note: str | None = None
    """In words, what the verdict alone does not say: why the interval and the verdict
    differ, or that the delta is exact (``None``: nothing to add; then the interval excludes
    0 exactly when the verdict is improved, regressed or changed)."""


class ComparisonMetric(ReportModel):
    """A metric aggregated over the paired runs of each side; ``delta`` is candidate minus
    baseline (``None`` when either side has no value). ``statistics`` are computed over
    per-case paired values (``None`` for an aggregate without a direction to test, such
    as ``count``, or when no case has a value on both sides)."""

    name: str
    semantic_type: str
    fn: str
    unit: str | None = None
    baseline: AggregateValue
    candidate: AggregateValue
    delta: float | None = None
    relative: float | None = None
    """``delta`` as a fraction of the baseline's magnitude (``0.25`` = 25 % above the
    baseline); ``None`` when there is no delta or the baseline is 0."""
    statistics: MetricStatistics | None = None


class Comparison(ReportModel):
    """Baseline against candidate, paired by case. ``confounded`` is true when more than
    one factor differs: the deltas are associations, not effects of one change."""

    baseline: str
    candidate: str
    paired_cases: tuple[str, ...] = ()
    unpaired: tuple[UnpairedCase, ...] = ()
    changed_factors: tuple[FactorChange, ...] = ()
    confounded: bool = False
    metrics: tuple[ComparisonMetric, ...] = ()


class HeadlineItem(ReportModel):
    """One question of a comparison answered in a few words: the change of one metric.

    ``kind`` says which question (``quality``: an objective or constraint; ``cost``: the
    mean ``money.cost`` of a case; ``latency``: the median ``time.latency``; ``pairwise``: a
    judge's pairwise comparison, ``delta`` the candidate's win rate). ``delta`` is
    candidate minus baseline of the column's aggregate, ``ratio`` candidate over baseline
    (``None`` unless both are positive), ``[ci_low, ci_high]`` the interval of the row's
    statistics (of ``estimate``, the quantity ``interval_of`` names) and ``verdict`` the
    comparison's verdict for the row (``None``: not tested); ``note`` says in words what the verdict alone does not (why the interval and
    the verdict differ, or why nothing could be said)."""

    kind: str
    name: str
    semantic_type: str
    fn: str
    unit: str | None = None
    baseline: float | int | None = None
    candidate: float | int | None = None
    delta: float | None = None
    ratio: float | None = None
    estimate: float | None = None
    """The point estimate the interval is of (the statistics' ``estimate``)."""
    interval_of: str | None = None
    """What ``[ci_low, ci_high]`` is an interval of (the statistics' ``interval_of``):
    ``Hodges-Lehmann shift``, ``difference in pass rate``, ``difference of median``, ..."""
    ci_low: float | None = None
    ci_high: float | None = None
    level: float | None = None
    exact: bool = False
    """The delta is the same on every case: observed, not estimated (the interval is the point)."""
    verdict: Verdict | None = None
    note: str | None = None


class HeadlineComparison(ReportModel):
    """The answer of one comparison: its objectives first, then cost and latency."""

    baseline: str
    candidate: str
    paired_cases: int = 0
    confounded: bool = False
    items: tuple[HeadlineItem, ...] = ()


class ParetoAxis(ReportModel):
    """A leaderboard column the Pareto front is taken over, and which way is better."""

    kind: str
    name: str
    semantic_type: str
    fn: str
    unit: str | None = None
    direction: Direction


class ParetoFront(ReportModel):
    """The variants no other variant beats on every axis at once (quality, cost, latency,
    those the leaderboard has): ``front`` in leaderboard order; ``dominated`` maps each
    other variant to the variants that beat it (at least as good on every axis, better on
    one)."""

    axes: tuple[ParetoAxis, ...] = ()
    front: tuple[str, ...] = ()
    dominated: dict[str, tuple[str, ...]] = Field(default_factory=dict)


class Headline(ReportModel):
    """What a reader looks at first: each comparison's answer and the Pareto front. Built
    once (:mod:`autobench.report._headline`) and shown by every format."""

    comparisons: tuple[HeadlineComparison, ...] = ()
    pareto: ParetoFront | None = None


class ExperimentComparison(ReportModel):
    """A candidate experiment against a baseline experiment, paired by case and variant.

    ``changed`` lists what differs between their inputs (``spec``, ``dataset``, then
    source file paths); ``comparisons`` holds one comparison per variant both have (its
    sides labelled ``baseline/<variant>`` and ``candidate/<variant>``); the ``*_only_in_*``
    fields list variants and cases that only one experiment planned or ran."""

    model_config = ConfigDict(defer_build=True)

    baseline_experiment: str
    candidate_experiment: str
    changed: tuple[str, ...] = ()
    variants_only_in_baseline: tuple[str, ...] = ()
    variants_only_in_candidate: tuple[str, ...] = ()
    cases_only_in_baseline: tuple[str, ...] = ()
    cases_only_in_candidate: tuple[str, ...] = ()
    comparisons: tuple[Comparison, ...] = ()
    headline: Headline = Field(default_factory=Headline)


class VariantDistribution(ReportModel):
    values: tuple[float, ...] = ()
    summaries: dict[str, AggregateValue] = Field(default_factory=dict)


class Distribution(ReportModel):
    name: str
    semantic_type: str
    unit: str | None = None
    summaries: tuple[str, ...] = ()
    variants: dict[str, VariantDistribution] = Field(default_factory=dict)


class PolicySummary(ReportModel):
    """One policy across runs: per variant, how many runs it held for (``passed``) and not
    (``failed``); runs without a result for it (for example errored ones) are not counted."""

    name: str
    metric: str | None = None
    passed: dict[str, int] = Field(default_factory=dict)
    failed: dict[str, int] = Field(default_factory=dict)


class CassetteUse(ReportModel):
    """How the experiment used cassettes (``autobench run --cassette``): the mode, the source
    record it replayed from (directory and experiment id), how many runs had at least one
    request answered from a cassette and how many requests were. The token and cost
    evidence of a replayed request is the recorded call's."""

    mode: str
    source: str | None = None
    source_experiment: str | None = None
    replayed_runs: int = 0
    replayed_requests: int = 0
    sent_requests: int = 0
    """Requests that went to the network under ``replay-or-record``."""
    replayed_spend_left_out: bool = False
    """Whether the token and cost evidence of fully replayed runs is left out of the views."""
    judge_replayed_requests: int = 0
    """Judge requests answered from the judges' own cassettes (``judge.<scorer>.cassette``):
    their ``judge.*`` tokens and cost are the recorded calls'."""
    judge_sent_requests: int = 0
    """Judge requests that went to the network under ``replay-or-record``."""


class CaseReliability(ReportModel):
    """One case of one variant over its repeats: ``passed`` of ``runs`` recorded runs passed
    (a run that failed, errored or was skipped did not). ``pass_at_k`` is the estimated
    chance that at least one of ``k`` repeats passes, ``pass_hat_k`` that all ``k`` pass
    (unbiased estimators over the ``runs`` recorded, see
    :mod:`autobench.report._reliability`; ``None`` with fewer than ``k`` runs);
    ``[pass_rate_low, pass_rate_high]`` is the Wilson score interval of the case's per-run
    pass rate ``passed / runs``. ``flaky``: passed in some repeats and not in others."""

    case: str
    runs: int
    passed: int
    pass_at_k: float | None = None
    pass_hat_k: float | None = None
    pass_rate_low: float | None = None
    pass_rate_high: float | None = None
    flaky: bool = False


class VariantReliability(ReportModel):
    """A variant's reliability over its ``cases`` (those with at least ``k`` recorded runs):
    ``pass_at_k`` and ``pass_hat_k`` are the means of the per-case estimates, each with the
    Wilson score interval over cases at the report's level (``None``: no case qualifies);
    ``flaky`` lists the cases that passed in some repeats and failed in others;
    ``short`` the cases with fewer than ``k`` recorded runs (left out of the means)."""

    variant: str
    cases: int = 0
    pass_at_k: float | None = None
    pass_at_k_low: float | None = None
    pass_at_k_high: float | None = None
    pass_hat_k: float | None = None
    pass_hat_k_low: float | None = None
    pass_hat_k_high: float | None = None
    flaky: tuple[str, ...] = ()
    short: tuple[str, ...] = ()
    by_case: tuple[CaseReliability, ...] = ()


class Reliability(ReportModel):
    """Reliability over repeats (``repeat: K``): per variant and per case, pass@k (at least
    one of ``k`` repeats passes; Chen et al. 2021) and pass^k (all ``k`` pass; Yao et al.
    2024), with intervals at ``level``, and the flaky cases."""

    k: int
    level: float = DEFAULT_LEVEL
    variants: tuple[VariantReliability, ...] = ()


Scale = Literal["pass/fail", "integer", "labels"]
"""The scale of a calibrated score (see :mod:`autobench.report._calibration`)."""


class AgreementStatistic(ReportModel):
    """One statistic (a :data:`STATISTIC_TITLES` name) with its bootstrap interval; ``None``
    where undefined (a rate without reference positives, kappa when chance agreement is 1)
    or, for the ends, with fewer than two labelled items."""

    name: str
    estimate: float | None
    low: float | None = None
    high: float | None = None


class Calibration(ReportModel):
    """How a score agrees with people on the labelled runs.

    ``confusion[i][j]`` counts runs a person labelled ``categories[i]`` and the score rated
    ``categories[j]``. ``items`` is the number of labelled runs that had a value of the
    score (the items every statistic is over)."""

    score: str
    scale: Scale
    labels_file: str | None = None
    items: int
    categories: tuple[str, ...]
    confusion: tuple[tuple[int, ...], ...]
    statistics: tuple[AgreementStatistic, ...]
    level: float
    resamples: int
    seed: int
    unlabelled_runs: tuple[str, ...] = ()
    """Runs of the record with a value of the score but no label."""
    unknown_labels: tuple[str, ...] = ()
    """Labels that name no run of the record."""
    ambiguous_labels: tuple[str, ...] = ()
    """Labels by case and variant that name several runs (repeats): give their run_id."""
    unscored_runs: tuple[str, ...] = ()
    """Labelled runs without a value of the score (missing, or the scorer errored)."""

    def statistic(self, name: str) -> AgreementStatistic | None:
        """The statistic called ``name``, or ``None`` when this scale does not report it."""
        return next((item for item in self.statistics if item.name == name), None)


class Report(ReportModel):
    """Everything the terminal report and the exporters show."""

    benchmark: str
    experiment: str
    runs: int
    planned: int
    status: StatusCounts
    missing_runs: tuple[str, ...] = ()
    variants: tuple[VariantSummary, ...] = ()
    headline: Headline = Field(default_factory=Headline)
    """Each comparison's answer and the Pareto front, shown first by every format."""
    leaderboard: Leaderboard = Field(default_factory=Leaderboard)
    matrix: CaseMatrix | None = None
    comparisons: tuple[Comparison, ...] = ()
    distributions: tuple[Distribution, ...] = ()
    policies: tuple[PolicySummary, ...] = ()
    run_rows: RunRows = Field(default_factory=lambda: RunRows.of([]))
    """One row per run (:class:`RunMetricRow` models on access; the readers of every row read
    its columns)."""
    metric_units: dict[str, str | None] = Field(default_factory=dict)
    """Canonical unit of every semantic type in ``run_rows``."""
    diagnostics: tuple[str, ...] = ()
    """Problems met while building: units that could not be converted, ambiguous values, ..."""
    cassette: CassetteUse | None = None
    """Set when the experiment recorded or replayed cassettes."""
    reliability: Reliability | None = None
    """pass@k, pass^k and the flaky cases, set when some case has repeats."""
    calibrations: tuple[Calibration, ...] = ()
    """How a score agrees with the human labels stored beside the record (``labels.yaml``)."""
