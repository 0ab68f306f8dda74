"""The comparison statistics: textbook values and properties of each method."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autobench.records import Direction
from autobench.report._model import Verdict
from autobench.report._statistics import (
    TEST_MCNEMAR,
    TEST_WILCOXON,
    adjust_family,
    cases_needed_mcnemar,
    cases_needed_mean,
    holm_adjust,
    mcnemar_exact,
    minimum_informative_pairs,
    paired_bootstrap_ci,
    paired_statistics,
    wilcoxon_signed_rank,
)

p_values = st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=12)
deltas = st.lists(
    st.floats(min_value=-100, max_value=100, allow_nan=False).map(lambda x: round(x, 3)),
    min_size=2,
    max_size=40,
)


def test_mcnemar_exact_matches_the_binomial_by_hand() -> None:
    # All 6 discordant pairs one way: 2 * (1/2)**6.
    assert mcnemar_exact(0, 6) == pytest.approx(0.03125)
    assert mcnemar_exact(6, 0) == pytest.approx(0.03125)
    # b=2, c=10: 2 * sum_{k<=2} C(12,k) / 2**12 = 2 * 79 / 4096.
    assert mcnemar_exact(2, 10) == pytest.approx(2 * 79 / 4096)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 5) == 1.0
    with pytest.raises(ValueError, match="discordant"):
        mcnemar_exact(-1, 2)


def test_wilcoxon_matches_darwins_maize_data() -> None:
    # Darwin's cross- minus self-fertilised heights (Fisher 1935; Hollander & Wolfe):
    # exact two-sided p = 0.04126 (W+ = 96, n = 15).
    d = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75]
    assert wilcoxon_signed_rank(d) == pytest.approx(0.041259765625)
    assert wilcoxon_signed_rank([0, 0, 0]) == 1.0
    # Zeros are dropped before ranking (zero_method="wilcox").
    assert wilcoxon_signed_rank([0, 0, *d]) == pytest.approx(wilcoxon_signed_rank(d))


def test_holm_by_hand() -> None:
    # sorted 0.005*4, 0.01*3, 0.03*2, then max(0.04*1, 0.06)
    assert holm_adjust([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm_adjust([]) == []
    assert holm_adjust([0.9, 0.8]) == pytest.approx([1.0, 1.0])


def test_minimum_pairs_for_exact_tests() -> None:
    assert minimum_informative_pairs(0.05) == 6
    assert minimum_informative_pairs(0.01) == 8
    assert minimum_informative_pairs(0.0625) == 5  # 2 / 2**5 == 0.0625 exactly


def test_cases_needed_textbook_normal_approximation() -> None:
    # Effect size 0.5 at alpha 0.05 and 80 % power: (1.95996 + 0.84162)**2 / 0.25 = 31.4.
    assert cases_needed_mean(0.5, 1.0) == 32
    assert cases_needed_mean(0.0, 1.0) is None
    assert cases_needed_mean(1.0, 0.0) == 6
    # Connor (1987): psi = 0.3, delta = 0.1 -> (1.96*sqrt(.3) + 0.8416*sqrt(.29))**2 / .01.
    expected = math.ceil((1.959964 * math.sqrt(0.3) + 0.841621 * math.sqrt(0.29)) ** 2 / 0.01)
    assert cases_needed_mcnemar(10, 20, 100) == expected
    assert cases_needed_mcnemar(5, 5, 100) is None


@given(p_values)
def test_holm_is_at_least_raw_and_monotone_in_raw_order(values: list[float]) -> None:
    adjusted = holm_adjust(values)
    assert all(a >= p and a <= 1 for a, p in zip(adjusted, values, strict=True))
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranked = [adjusted[i] for i in order]
    assert ranked == sorted(ranked)


@given(st.floats(min_value=-50, max_value=50, allow_nan=False), st.integers(2, 30))
def test_constant_deltas_give_a_point_interval_at_the_mean(value: float, n: int) -> None:
    interval = paired_bootstrap_ci([value] * n)
    assert interval == (value, value)


@settings(max_examples=30, deadline=None)
@given(deltas, st.integers(0, 2**32 - 1))
def test_bootstrap_is_reproducible_and_contains_the_mean(values: list[float], seed: int) -> None:
    first = paired_bootstrap_ci(values, seed=seed, resamples=500)
    assert first == paired_bootstrap_ci(values, seed=seed, resamples=500)
    assert first is not None
    low, high = first
    assert low <= high
    assert min(values) - 1e-9 <= low and high <= max(values) + 1e-9


def test_bootstrap_needs_two_cases() -> None:
    assert paired_bootstrap_ci([]) is None
    assert paired_bootstrap_ci([1.0]) is None


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 1000), st.integers(0, 1000)).map(
            lambda pair: (pair[0] / 10, pair[1] / 10)
        ),
        min_size=1,
        max_size=30,
    ),
    st.booleans(),
)
def test_swapping_sides_mirrors_the_statistics(
    pairs: list[tuple[float, float]], binary: bool
) -> None:
    if binary:
        pairs = [(float(a > 50), float(b > 50)) for a, b in pairs]
    base = [a for a, _ in pairs]
    cand = [b for _, b in pairs]
    kwargs = {"pass_fail": binary, "direction": Direction.MAXIMIZE, "resamples": 300}
    forward = paired_statistics(base, cand, **kwargs)
    backward = paired_statistics(cand, base, **kwargs)
    assert forward.p_value == pytest.approx(backward.p_value)
    assert forward.mean_delta == pytest.approx(-backward.mean_delta, abs=1e-9)
    assert forward.cases_needed == backward.cases_needed
    if forward.ci_low is not None:
        # The percentile bootstrap of -d draws the same resamples: the mirrored interval.
        assert forward.ci_low == pytest.approx(-backward.ci_high, abs=1e-9)
        assert forward.ci_high == pytest.approx(-backward.ci_low, abs=1e-9)
    mirrored = {
        Verdict.IMPROVED: Verdict.REGRESSED,
        Verdict.REGRESSED: Verdict.IMPROVED,
    }
    assert backward.verdict == mirrored.get(forward.verdict, forward.verdict)


def test_clear_regression_on_pass_fail() -> None:
    result = paired_statistics(
        [True] * 30, [False] * 25 + [True] * 5, pass_fail=True, direction=Direction.MAXIMIZE
    )
    assert result.test == TEST_MCNEMAR
    assert (result.n, result.informative) == (30, 25)
    assert result.verdict is Verdict.REGRESSED
    assert result.ci_high is not None and result.ci_high < 0


def test_lower_latency_is_an_improvement() -> None:
    base = [1.0 + i / 100 for i in range(20)]
    cand = [value - 0.3 + (i % 7) / 1000 for i, value in enumerate(base)]
    result = paired_statistics(base, cand, pass_fail=False, direction=Direction.MINIMIZE)
    assert result.test == TEST_WILCOXON
    assert result.verdict is Verdict.IMPROVED
    assert result.ci_high is not None and result.ci_high < 0 and result.note is None
    undirected = paired_statistics(base, cand, pass_fail=False, direction=None)
    assert undirected.verdict is Verdict.CHANGED


def test_three_cases_are_too_few_and_say_how_many_are_needed() -> None:
    result = paired_statistics(
        [1.0, 2.0, 3.0], [1.5, 2.4, 3.7], pass_fail=False, direction=Direction.MAXIMIZE
    )
    assert result.verdict is Verdict.TOO_FEW_CASES
    assert result.cases_needed is not None and result.cases_needed >= 6


def test_repeated_pass_fail_cases_use_wilcoxon_on_pass_rates() -> None:
    result = paired_statistics(
        [1.0, 0.5, 1.0], [0.0, 0.5, 1.0], pass_fail=True, direction=Direction.MAXIMIZE
    )
    assert result.test == TEST_WILCOXON


def test_holm_family_can_turn_a_verdict() -> None:
    maize = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75]
    one = paired_statistics([0.0] * 15, maize, pass_fail=False, direction=Direction.MAXIMIZE)
    assert one.p_value is not None and 0.01 < one.p_value <= 0.05
    assert one.verdict is Verdict.IMPROVED
    family = adjust_family([one, one, one])
    assert all(item.p_adjusted == pytest.approx(min(1, 3 * one.p_value)) for item in family)
    assert all(item.verdict is Verdict.NO_DIFFERENCE for item in family)


def test_too_few_cases_counts_the_holm_family() -> None:
    # Six cases all improving: the exact two-sided p is 2 / 2**6 = 0.03125, so alone the
    # metric can reach 0.05; in a family of three, Holm's smallest adjusted p is 0.094,
    # which no data of six cases can bring under 0.05: too few cases, not "no difference".
    six = paired_statistics(
        [0.0] * 6, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], pass_fail=False, direction=Direction.MAXIMIZE
    )
    assert six.p_value == pytest.approx(0.03125) and six.verdict is Verdict.IMPROVED
    assert [item.verdict for item in adjust_family([six])] == [Verdict.IMPROVED]
    family = adjust_family([six, six, six])
    assert all(item.verdict is Verdict.TOO_FEW_CASES for item in family)
    assert all(item.cases_needed is not None and item.cases_needed >= 7 for item in family)
    seven = paired_statistics(
        [0.0] * 7, [1.0, 2, 3, 4, 5, 6, 7], pass_fail=False, direction=Direction.MAXIMIZE
    )
    assert all(item.verdict is not Verdict.TOO_FEW_CASES for item in adjust_family([seven] * 3))
