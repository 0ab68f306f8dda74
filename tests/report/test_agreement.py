"""Agreement statistics on textbook tables and hand-computed values.

Cohen (1960), Table 1: two judges sort 200 items into three categories; the shares are

    .44 .07 .09 | .60
    .05 .20 .05 | .30
    .01 .03 .06 | .10
    .50 .30 .20

so p_o = .70, p_c = .60 x .50 + .30 x .30 + .10 x .20 = .41 and kappa = .29 / .59 = .492,
the paper's worked result.

The same table read as an ordered scale, by hand (agreement weights 1 - v / v_max):
linear weights 1, 1/2, 0 give p_o = .70 + .20 / 2 = .80 and p_e = .41 + .42 / 2 = .62, so
kappa_w = .18 / .38 = 9/19; quadratic weights 1, 3/4, 0 give p_o = .85, p_e = .725,
kappa_w = .125 / .275 = 5/11. Fleiss & Cohen (1973) showed the quadratic one equals
2 cov / (var_1 + var_2 + (mean_1 - mean_2)^2) of the category scores, checked here on the
same table (scores 0, 1, 2: means .5 and .7, variances .45 and .61, covariance .25,
giving .5 / 1.1 = 5/11 again) and on random tables.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autobench.report._agreement import (
    accuracy,
    bootstrap_intervals,
    cohen_kappa,
    confusion_matrix,
    false_positive_rate,
    true_positive_rate,
    weighted_kappa,
)

COHEN_1960 = np.array([[88, 14, 18], [10, 40, 10], [2, 6, 12]])
"""Cohen's Table 1 in counts of 200 items (the shares above x 200)."""


def test_cohen_1960_worked_example() -> None:
    assert accuracy(COHEN_1960) == pytest.approx(0.70)
    assert cohen_kappa(COHEN_1960) == pytest.approx(29 / 59)
    assert round(float(cohen_kappa(COHEN_1960)), 3) == 0.492


def test_weighted_kappa_by_hand() -> None:
    assert weighted_kappa(COHEN_1960, "linear") == pytest.approx(9 / 19)
    assert weighted_kappa(COHEN_1960, "quadratic") == pytest.approx(5 / 11)


def _moments_kappa(table: np.ndarray) -> float:
    """Fleiss & Cohen (1973): quadratic weighted kappa from the moments of the scores."""
    shares = table / table.sum()
    scores = np.arange(table.shape[0], dtype=float)
    rows, columns = shares.sum(axis=1), shares.sum(axis=0)
    mean_1, mean_2 = rows @ scores, columns @ scores
    var_1 = rows @ scores**2 - mean_1**2
    var_2 = columns @ scores**2 - mean_2**2
    covariance = scores @ shares @ scores - mean_1 * mean_2
    return 2 * covariance / (var_1 + var_2 + (mean_1 - mean_2) ** 2)


def test_quadratic_weighted_kappa_is_fleiss_cohen_moment_form_on_the_table() -> None:
    assert _moments_kappa(COHEN_1960) == pytest.approx(5 / 11)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda k: st.lists(st.integers(0, 30), min_size=k * k, max_size=k * k).map(
            lambda cells: np.array(cells).reshape(k, k)
        )
    )
)
def test_quadratic_weighted_kappa_matches_moment_form(table: np.ndarray) -> None:
    found = float(weighted_kappa(table, "quadratic"))
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = _moments_kappa(table) if table.sum() else math.nan
    if not math.isfinite(expected):
        assert math.isnan(found)  # both raters used one category: kappa undefined
    else:
        assert found == pytest.approx(expected, abs=1e-9)


def test_two_categories_weighted_equals_unweighted() -> None:
    table = np.array([[20, 5], [10, 15]])
    # p_o = 35/50 = .7; rows .5 .5, columns .6 .4: p_e = .3 + .2 = .5; kappa = .4
    assert cohen_kappa(table) == pytest.approx(0.4)
    assert weighted_kappa(table, "linear") == pytest.approx(0.4)
    assert weighted_kappa(table, "quadratic") == pytest.approx(0.4)


def test_rates_with_the_person_as_reference() -> None:
    table = np.array([[45, 5], [10, 40]])  # rows: person fail, pass; columns: judge
    assert true_positive_rate(table) == pytest.approx(40 / 50)
    assert false_positive_rate(table) == pytest.approx(5 / 50)


def test_undefined_values_are_nan() -> None:
    assert math.isnan(float(cohen_kappa(np.array([[7, 0], [0, 0]]))))
    assert math.isnan(float(true_positive_rate(np.array([[3, 1], [0, 0]]))))
    assert math.isnan(float(false_positive_rate(np.array([[0, 0], [1, 3]]))))


def test_statistics_over_a_stack_of_tables() -> None:
    stack = np.stack([COHEN_1960, COHEN_1960.T, np.eye(3, dtype=int) * 5])
    assert cohen_kappa(stack) == pytest.approx([29 / 59, 29 / 59, 1.0])


def test_confusion_matrix_counts_pairs() -> None:
    table = confusion_matrix([0, 0, 1, 2, 2], [0, 1, 1, 2, 0], 3)
    assert table.tolist() == [[1, 1, 0], [0, 1, 0], [1, 0, 1]]
    with pytest.raises(ValueError, match="outside"):
        confusion_matrix([0, 3], [0, 0], 3)
    with pytest.raises(ValueError, match="rated"):
        confusion_matrix([0, 1], [0], 2)


def _ratings() -> tuple[list[int], list[int]]:
    reference, rated = [], []
    for row in range(3):
        for column in range(3):
            reference += [row] * int(COHEN_1960[row, column])
            rated += [column] * int(COHEN_1960[row, column])
    return reference, rated


def test_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    reference, rated = _ratings()
    statistics = {"kappa": cohen_kappa, "accuracy": accuracy}
    first = bootstrap_intervals(reference, rated, 3, statistics, level=0.95, resamples=1000, seed=7)
    again = bootstrap_intervals(reference, rated, 3, statistics, level=0.95, resamples=1000, seed=7)
    other = bootstrap_intervals(reference, rated, 3, statistics, level=0.95, resamples=1000, seed=8)
    assert first == again
    assert first["kappa"] != other["kappa"]
    kappa = first["kappa"]
    assert kappa.estimate == pytest.approx(29 / 59)
    assert kappa.low is not None and kappa.high is not None
    assert kappa.low < kappa.estimate < kappa.high
    # the normal-theory standard error of kappa here is about 0.05 (Fleiss, Cohen & Everitt
    # 1969): a 95 % interval some 0.2 wide, far from a degenerate or unbounded one
    assert 0.12 < kappa.high - kappa.low < 0.3
    accuracy_interval = first["accuracy"]
    assert accuracy_interval.low is not None and accuracy_interval.high is not None
    assert accuracy_interval.low < 0.70 < accuracy_interval.high


def test_bootstrap_of_perfect_agreement_and_of_one_item() -> None:
    perfect = bootstrap_intervals(
        [0, 1, 1, 0], [0, 1, 1, 0], 2, {"kappa": cohen_kappa}, level=0.95, resamples=500, seed=1
    )["kappa"]
    assert perfect.estimate == 1.0
    assert perfect.high == 1.0 and perfect.low == 1.0
    # resamples that drew one category only leave kappa undefined, and are counted
    assert perfect.undefined > 0
    single = bootstrap_intervals(
        [1], [1], 2, {"accuracy": accuracy}, level=0.95, resamples=500, seed=1
    )["accuracy"]
    assert (single.estimate, single.low, single.high) == (1.0, None, None)
