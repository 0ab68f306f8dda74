"""The normal distribution without scipy (report._normal) against scipy's own: the quantile,
the tail, the signed-rank test's normal approximation, and the interval depth and
cases-needed figures built on them; a large comparison's statistics import no scipy."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from autobench.report._intervals import signed_rank_depth
from autobench.report._normal import normal_cdf, normal_quantile, signed_rank_normal_p
from autobench.report._statistics import (
    cases_needed_mcnemar,
    cases_needed_mean,
    wilcoxon_signed_rank,
)


@given(st.floats(min_value=1e-300, max_value=1.0, exclude_max=True))
def test_the_quantile_is_scipys_to_the_last_places(p: float) -> None:
    assert normal_quantile(p) == pytest.approx(float(stats.norm.ppf(p)), rel=1e-14)


def test_the_quantile_at_its_ends_and_outside_them() -> None:
    assert normal_quantile(0.0) == -math.inf and normal_quantile(1.0) == math.inf
    assert math.isnan(normal_quantile(1.5)) and math.isnan(normal_quantile(-0.1))
    assert normal_quantile(0.975) == pytest.approx(1.959963984540054, rel=1e-15)


@given(st.floats(min_value=-8.0, max_value=8.0))
def test_the_cdf_is_scipys_ndtr_to_the_last_places(z: float) -> None:
    assert normal_cdf(z) == pytest.approx(float(special.ndtr(z)), rel=1e-14, abs=1e-300)


# Deltas with ties (few distinct magnitudes), zeros and both signs, more than 50 non-zero.
_DELTAS = st.lists(
    st.one_of(
        st.integers(min_value=-6, max_value=6).map(float),
        st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False),
    ),
    min_size=51,
    max_size=400,
).filter(lambda values: sum(1 for value in values if value != 0) > 50)


@settings(max_examples=150, deadline=None)
@given(_DELTAS)
def test_the_signed_rank_normal_approximation_is_scipys(deltas: list[float]) -> None:
    ours = signed_rank_normal_p(deltas)
    theirs = stats.wilcoxon(deltas, zero_method="wilcox", method="asymptotic").pvalue
    assert ours == pytest.approx(float(theirs), rel=1e-12, abs=1e-300)
    # and the p-value of a comparison row: scipy's method="auto" past 50 deltas
    auto = stats.wilcoxon([d for d in deltas if d != 0], zero_method="wilcox", method="auto")
    assert wilcoxon_signed_rank(deltas) == pytest.approx(float(auto.pvalue), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=-4, max_value=4).map(float), min_size=14, max_size=50))
def test_fifty_deltas_or_fewer_with_ties_get_scipys_auto_p_value(deltas: list[float]) -> None:
    # scipy's method="auto": the normal approximation past 13 non-zero deltas with ties,
    # else a permutation (13 or fewer) or the exact distribution (no ties), by scipy.
    nonzero = [d for d in deltas if d != 0]
    if not nonzero:
        assert wilcoxon_signed_rank(deltas) == 1.0
        return
    auto = stats.wilcoxon(nonzero, zero_method="wilcox", method="auto").pvalue
    assert wilcoxon_signed_rank(deltas) == pytest.approx(float(auto), rel=1e-12)


def test_the_signed_rank_approximation_by_hand() -> None:
    # 60 deltas 1..60, the last ten negative: T+ = sum(1..50) = 1275, mean 915,
    # variance 60 * 61 * 121 / 24 = 18452.5, no ties.
    deltas = [float(i) for i in range(1, 51)] + [-float(i) for i in range(51, 61)]
    z = (1275 - 915) / math.sqrt(18452.5)
    assert signed_rank_normal_p(deltas) == pytest.approx(math.erfc(z / math.sqrt(2)))
    assert math.isnan(signed_rank_normal_p([0.0, 0.0]))
    assert math.isnan(signed_rank_normal_p([1.0, math.nan]))


@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99, 0.999])
def test_the_interval_depth_beyond_fifty_deltas_is_the_one_scipys_quantile_gives(
    level: float,
) -> None:
    z = float(stats.norm.ppf(1 - (1 - level) / 2))
    for n in range(51, 1200, 7):
        d = np.arange(1.0, n + 1.0) - n / 3  # distinct, one of them may be zero
        magnitudes = np.abs(d)
        _, sizes = np.unique(magnitudes, return_counts=True)
        variance = n * (n + 1) * (2 * n + 1) / 24 - float(np.sum(sizes**3 - sizes)) / 48
        expected = math.floor(n * (n + 1) / 4 - z * math.sqrt(variance)) + 1
        assert signed_rank_depth(np.sort(d), level=level) == (max(0, expected), False)


def test_cases_needed_are_those_of_scipys_quantiles() -> None:
    za, zb = float(stats.norm.ppf(0.975)), float(stats.norm.ppf(0.8))
    for mean, sd in ((0.1, 1.0), (0.5, 2.0), (-0.03, 0.2), (1e-3, 0.7)):
        assert cases_needed_mean(mean, sd) == max(6, math.ceil(((za + zb) * sd / mean) ** 2))
    psi, delta = 12 / 50, 8 / 50
    connor = (za * math.sqrt(psi) + zb * math.sqrt(psi - delta**2)) ** 2 / delta**2
    assert cases_needed_mcnemar(2, 10, 50) == max(math.ceil(connor), math.ceil(6 / psi))


SCRIPT = """
import json, sys
from autobench.records import Direction
from autobench.report._statistics import paired_statistics
base = [float(i % 7) for i in range(300)]
cand = [value + (i % 5) - 1.5 for i, value in enumerate(base)]
rows = [
    paired_statistics(base, cand, pass_fail=False, direction=Direction.MINIMIZE),
    paired_statistics(base, cand, pass_fail=False, direction=None, fn="p95"),
]
print(json.dumps({"tests": [row.test for row in rows], "scipy": "scipy" in sys.modules}))
"""


def test_a_large_comparison_computes_its_statistics_without_scipy() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == {"tests": ["wilcoxon", "bootstrap"], "scipy": False}
