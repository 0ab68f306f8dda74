"""The verdict rule: intervals that invert their tests (textbook values), exact and zero
deltas, Holm's word in the note, and each comparison row with its own statistics."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from report_support import RunBench
from scipy import stats

from autobench.records import Direction, ExperimentResult
from autobench.report import compare_variants
from autobench.report._intervals import (
    aggregate_bootstrap,
    hodges_lehmann,
    mcnemar_interval,
    signed_rank_depth,
)
from autobench.report._model import MetricStatistics, Verdict
from autobench.report._statistics import (
    DECISIVE,
    TEST_BOOTSTRAP,
    TEST_EXACT,
    TEST_MCNEMAR,
    TEST_WILCOXON,
    adjust_family,
    excludes_zero,
    minimum_informative_pairs,
    paired_statistics,
)
from autobench.report._statistics_text import verdict_text

# Hollander, Wolfe & Chicken, Nonparametric Statistical Methods (3rd ed.), Example 3.1
# (Hamilton depression scale before and after tranquilizer, n = 9): the Hodges-Lehmann
# estimate of the shift is -0.46 and the 96.1 % interval (C = 6, the exact level nearest
# 95 %) is [-0.786, -0.010] (Examples 3.3 and 3.4; R's wilcox.test(conf.int=TRUE) agrees).
FIRST = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30]
SECOND = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]
# Darwin's maize (scipy.stats.wilcoxon's example; Fisher 1935): cross- minus self-fertilised.
MAIZE = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75]


def test_hodges_lehmann_matches_hollander_and_wolfe() -> None:
    deltas = np.subtract(SECOND, FIRST)
    assert signed_rank_depth(np.sort(deltas), level=0.95) == (6, True)
    interval = hodges_lehmann(deltas, level=0.95)
    assert interval.estimate == pytest.approx(-0.46)
    assert (interval.low, interval.high) == pytest.approx((-0.786, -0.010))
    assert interval.exact
    # The exact two-sided test rejects (p = 2 * 5/256 = 0.039): the interval excludes 0.
    assert stats.wilcoxon(deltas).pvalue == pytest.approx(0.0390625)


def test_hodges_lehmann_of_darwins_maize_by_walsh_averages() -> None:
    # n = 15: P(T+ <= 25) = 0.0240 <= 0.025 < P(T+ <= 26), so C = 26 (H&W Table A.4).
    d = np.array(MAIZE, dtype=float)
    assert signed_rank_depth(np.sort(d), level=0.95) == (26, True)
    walsh = sorted((a + b) / 2 for a, b in itertools.combinations_with_replacement(MAIZE, 2))
    interval = hodges_lehmann(d, level=0.95)
    assert interval.estimate == pytest.approx((walsh[59] + walsh[60]) / 2)  # 120: even
    assert (interval.low, interval.high) == (walsh[25], walsh[-26])
    assert interval.low is not None and interval.low > 0  # and the test rejects: p = 0.041


def test_the_normal_approximation_beyond_fifty_deltas() -> None:
    d = np.arange(1.0, 81.0) - 30.5  # 80 distinct deltas: no exact table
    depth, exact = signed_rank_depth(np.sort(d), level=0.95)
    z = stats.norm.ppf(0.975)
    assert not exact
    assert depth == int(np.floor(80 * 81 / 4 - z * np.sqrt(80 * 81 * 161 / 24))) + 1


def test_mcnemar_interval_matches_clopper_pearson_by_hand() -> None:
    b, c, n = 2, 10, 50
    interval = mcnemar_interval(b, c, n, level=0.95)
    low = stats.beta.ppf(0.025, c, b + 1)
    high = stats.beta.ppf(0.975, c + 1, b)
    assert interval.estimate == pytest.approx(8 / 50)
    assert interval.low == pytest.approx(12 / 50 * (2 * low - 1))
    assert interval.high == pytest.approx(12 / 50 * (2 * high - 1))
    assert mcnemar_interval(0, 0, 10, level=0.95) == mcnemar_interval(0, 0, 10, level=0.95)
    assert (mcnemar_interval(0, 0, 10, level=0.95).low, 0.0) == (0.0, 0.0)
    with pytest.raises(ValueError, match="b \\+ c"):
        mcnemar_interval(6, 6, 10, level=0.95)


def test_mcnemar_interval_on_agrestis_presidential_approval() -> None:
    # Agresti, Categorical Data Analysis (3rd ed.), Table 11.1: 1600 people, 150 approved
    # then disapproved, 86 the reverse: the approval fell by 0.04, Wald 95 % interval
    # -0.04 +- 1.96 * 0.0096 = [-0.059, -0.021]; the exact conditional one is close.
    interval = mcnemar_interval(150, 86, 1600, level=0.95)
    assert interval.estimate == pytest.approx(-0.04)
    assert interval.low == pytest.approx(-0.059, abs=0.002)
    assert interval.high == pytest.approx(-0.021, abs=0.002)


def test_the_issues_mcnemar_example_no_longer_contradicts_itself() -> None:
    # 16 cases, 5 improved and 0 regressed: exact McNemar p = 2/32 = 0.0625. The old
    # bootstrap interval of the mean excluded 0 beside "no detectable difference"; the
    # conditional interval includes it.
    base = [0.0] * 5 + [1.0] * 6 + [0.0] * 5
    cand = [1.0] * 5 + [1.0] * 6 + [0.0] * 5
    result = paired_statistics(base, cand, pass_fail=True, direction=Direction.MAXIMIZE)
    assert result.test == TEST_MCNEMAR and result.p_value == pytest.approx(0.0625)
    assert result.verdict is Verdict.NO_DIFFERENCE
    assert result.interval_of == "difference in pass rate"
    assert result.ci_low is not None and result.ci_low <= 0 and result.note is None


def test_a_cost_delta_the_same_on_every_case_is_exact() -> None:
    result = paired_statistics(
        [0.00019] * 5, [0.002] * 5, pass_fail=False, direction=Direction.MINIMIZE
    )
    assert result.test == TEST_EXACT and result.p_value is None
    assert result.verdict is Verdict.REGRESSED
    assert result.ci_low == result.ci_high == pytest.approx(0.00181)
    assert result.cases_needed is None
    assert verdict_text(result) == "regressed (exact)"
    assert result.note is not None and "+0.00181 on every one of the 5 cases" in result.note
    # Exact rows are not tested, so Holm does not count them.
    other = paired_statistics(
        [0.0] * 20, [float(i % 5 - 1) for i in range(20)], pass_fail=False, direction=None
    )
    exact, tested = adjust_family([result, other])
    assert exact == result and tested.family == 1 and tested.p_adjusted == other.p_value


def test_a_zero_delta_everywhere_is_no_change_not_too_few_cases() -> None:
    for pass_fail, values in ((False, [3.0, 4.5]), (True, [1.0, 0.0, 1.0])):
        result = paired_statistics(values, values, pass_fail=pass_fail, direction=None)
        assert result.verdict is Verdict.NO_CHANGE
        assert (result.ci_low, result.ci_high) == (0.0, 0.0)
        assert verdict_text(result) == f"no change (n={len(values)})"
    # One case alone: more cases could change the answer.
    alone = paired_statistics([2.0], [2.0], pass_fail=False, direction=None)
    assert alone.verdict is Verdict.TOO_FEW_CASES


def test_pass_fail_flips_are_tested_not_exact() -> None:
    # Every case flipping the same way happens by chance with few cases (1 in 16 with 5).
    result = paired_statistics([0.0] * 5, [1.0] * 5, pass_fail=True, direction=Direction.MAXIMIZE)
    assert result.test == TEST_MCNEMAR and result.verdict is Verdict.TOO_FEW_CASES


def test_holm_says_in_words_why_an_excluding_interval_is_no_difference() -> None:
    # p = 0.0215 alone (improved, interval above 0); among 4 tested rows Holm gives 0.086.
    maize = paired_statistics([0.0] * 15, MAIZE, pass_fail=False, direction=Direction.MAXIMIZE)
    assert maize.verdict is Verdict.IMPROVED and maize.note is None and excludes_zero(maize)
    weak = paired_statistics(
        [0.0] * 15,
        [float(x) for x in (-3, 2, 5, -1, 4, -6, 7, -8, 9, 1.5, -2.5, 3.5, -4.5, 5.5, -6.5)],
        pass_fail=False,
        direction=Direction.MAXIMIZE,
    )
    adjusted = adjust_family([maize, weak, weak, weak])[0]
    assert adjusted.family == 4 and adjusted.p_adjusted == pytest.approx(4 * maize.p_value)
    assert adjusted.verdict is Verdict.NO_DIFFERENCE
    assert adjusted.note == (
        f"the interval excludes 0, but after adjusting for 4 metrics (Holm) "
        f"p = {adjusted.p_adjusted:.3g}"
    )
    assert verdict_text(adjusted).endswith(adjusted.note)
    assert verdict_text(adjusted, note=False).startswith("no detectable difference (n=15")


def test_a_row_of_another_aggregate_gets_a_bootstrap_of_its_own_difference() -> None:
    rng = np.random.default_rng(3)
    base = rng.gamma(2.0, 100.0, 60)
    cand = base * 1.3 + rng.normal(0, 5, 60)
    p95 = paired_statistics(base, cand, pass_fail=False, direction=Direction.MINIMIZE, fn="p95")
    median = paired_statistics(
        base, cand, pass_fail=False, direction=Direction.MINIMIZE, fn="median"
    )
    assert p95.test == median.test == TEST_BOOTSTRAP
    assert p95.interval_of == "difference of p95"
    assert p95.estimate == pytest.approx(np.quantile(cand, 0.95) - np.quantile(base, 0.95))
    assert median.estimate == pytest.approx(np.median(cand) - np.median(base))
    assert p95.ci_low != median.ci_low
    assert p95.verdict is Verdict.REGRESSED and p95.note is None
    again = aggregate_bootstrap(base, cand, "p95", level=0.95, resamples=1000, seed=20260101)
    assert (again.interval.low, again.interval.high) == (p95.ci_low, p95.ci_high)


distinct = st.lists(
    st.integers(-10_000, 10_000).filter(lambda x: x != 0), min_size=1, max_size=50, unique_by=abs
)


@settings(max_examples=60, deadline=None)
@given(distinct)
def test_hodges_lehmann_interval_excludes_zero_exactly_when_the_exact_test_rejects(
    values: list[int],
) -> None:
    deltas = [value / 100 for value in values]
    result = paired_statistics([0.0] * len(deltas), deltas, pass_fail=False, direction=None)
    assume(result.test == TEST_WILCOXON)
    rejects = result.p_value is not None and result.p_value <= 0.05
    assert excludes_zero(result) == rejects
    if result.verdict is not Verdict.TOO_FEW_CASES:
        assert result.note is None


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 30), st.integers(0, 30), st.integers(0, 30))
def test_mcnemar_interval_excludes_zero_exactly_when_the_test_rejects(
    b: int, c: int, same: int
) -> None:
    assume(b + c > 0 and (b != c or b + c > 1))
    base = [1.0] * b + [0.0] * c + [1.0] * same
    cand = [0.0] * b + [1.0] * c + [1.0] * same
    result = paired_statistics(base, cand, pass_fail=True, direction=Direction.MAXIMIZE)
    assume(result.test == TEST_MCNEMAR)
    assert excludes_zero(result) == (result.p_value is not None and result.p_value <= 0.05)
    assert result.note is None


pairs = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=1, max_size=40)


@settings(max_examples=80, deadline=None)
@given(
    pairs,
    st.sampled_from(["mean", "median", "p95", "sum", "max"]),
    st.booleans(),
    st.sampled_from([Direction.MAXIMIZE, Direction.MINIMIZE, None]),
    st.integers(1, 5),
)
def test_the_note_explains_every_disagreement(
    values: list[tuple[int, int]], fn: str, binary: bool, direction: Direction | None, family: int
) -> None:
    if binary:
        values = [(a % 2, b % 2) for a, b in values]
    base = [float(a) for a, _ in values]
    cand = [float(b) for _, b in values]
    row = paired_statistics(base, cand, pass_fail=binary, direction=direction, fn=fn)
    other = paired_statistics(
        [0.0] * 8, [1.0, 2, 3, 4, 5, 6, 7, -8], pass_fail=False, direction=None
    )
    for item in adjust_family([row, *[other] * (family - 1)]):
        _consistent(item)


def _consistent(item: MetricStatistics) -> None:
    if item.note is None:
        assert excludes_zero(item) == (item.verdict in DECISIVE)
    if item.verdict is Verdict.TOO_FEW_CASES:
        # only when more cases could change the answer
        assert item.test != TEST_EXACT
        assert item.n < minimum_informative_pairs((1 - item.level) / item.family)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=30),
    st.floats(-1e3, 1e3, allow_nan=False).filter(lambda x: abs(x) > 1e-3),
    st.sampled_from(["mean", "median", "p95", "sum", "min"]),
    st.sampled_from([Direction.MAXIMIZE, Direction.MINIMIZE, None]),
)
def test_constant_deltas_are_exact_and_zero_deltas_no_change(
    base: list[float], delta: float, fn: str, direction: Direction | None
) -> None:
    cand = [value + delta for value in base]
    spread = max(abs(x) for x in [*base, *cand])
    assume(np.ptp(np.subtract(cand, base)) <= 1e-9 * spread)  # rounding kept it constant
    result = paired_statistics(base, cand, pass_fail=False, direction=direction, fn=fn)
    assert result.test == TEST_EXACT and result.p_value is None and result.note is not None
    assert result.ci_low == result.ci_high == result.estimate
    expected = {Direction.MAXIMIZE: delta > 0, Direction.MINIMIZE: delta < 0}
    if direction is None:
        assert result.verdict is Verdict.CHANGED
    else:
        assert result.verdict is (Verdict.IMPROVED if expected[direction] else Verdict.REGRESSED)
    if fn == "sum":
        assert result.estimate == pytest.approx(sum(cand) - sum(base), rel=1e-6, abs=1e-6)
    same = paired_statistics(base, base, pass_fail=False, direction=direction, fn=fn)
    assert same.verdict is Verdict.NO_CHANGE and same.note is None


# A real run: cost the same on every case on each side (an exact delta), latency that
# varies, and its median and p95 rows each with their own statistics.
TASK = """
def run(ctx, case):
    model = ctx.factor("model")
    index = case.input["index"]
    ctx.metric("cost", 0.002 if model == "sage" else 0.00019, semantic_type="money.cost",
               unit="usd")
    slow = (index * 37) % 11 + (40 if model == "sage" and index % 4 == 0 else 0)
    ctx.metric("latency", 200 + slow + (index % 3) * 5, semantic_type="time.latency",
               unit="ms")
    return {}
"""


@pytest.fixture
def result(run_bench: RunBench) -> ExperimentResult:
    return run_bench(
        TASK,
        cases=[{"id": f"c{index}", "input": {"index": index}} for index in range(24)],
        variants=[
            {"id": "swift", "factors": {"model": "swift"}},
            {"id": "sage", "factors": {"model": "sage"}},
        ],
    )


def test_each_comparison_row_has_its_own_statistics(result: ExperimentResult) -> None:
    comparison = compare_variants(result, "swift", "sage")
    rows = {metric.name: metric for metric in comparison.metrics}
    median = rows["latency median"].statistics
    p95 = rows["latency p95"].statistics
    assert median is not None and p95 is not None
    assert (median.interval_of, p95.interval_of) == ("difference of median", "difference of p95")
    assert median.estimate == pytest.approx(rows["latency median"].delta)
    assert p95.estimate == pytest.approx(rows["latency p95"].delta)
    assert (median.ci_low, median.ci_high) != (p95.ci_low, p95.ci_high)
    cost = rows["cost mean"].statistics
    total = rows["cost total"].statistics
    assert cost is not None and total is not None
    assert cost.test == total.test == TEST_EXACT
    assert cost.verdict is total.verdict is Verdict.REGRESSED
    assert cost.ci_low == pytest.approx(0.00181)
    assert total.estimate == pytest.approx(rows["cost total"].delta)
    # Holm counts each tested row once: the two latency rows here.
    tested = [m.statistics for m in comparison.metrics if m.statistics and m.statistics.p_value]
    assert {item.family for item in tested} == {len(tested)} and len(tested) >= 2
    for metric in comparison.metrics:
        if metric.statistics is not None:
            _consistent(metric.statistics)
