"""Statistics of a paired comparison: the verdict rule, tests, intervals and multiplicity.

Pure functions over per-case paired values (one baseline and one candidate value per
case, already reduced over the case's repeats). The numerical work is numpy's, scipy's
and :mod:`autobench.report._intervals`'; this module picks the methods, applies the rule
below, and documents where each method comes from. It is imported on first use
(:mod:`autobench.report._compare`), never with the package (numpy), and scipy, whose
import takes about half a second, only when an exact test runs (McNemar's, the
signed-rank test of at most 50 deltas): the normal approximations of larger
comparisons come from :mod:`autobench.report._normal`.

The verdict rule, for one comparison row (a metric's aggregate) at confidence ``level``,
``alpha = 1 - level``:

1. **Exact.** With at least two paired cases whose deltas (candidate minus baseline) are the
   same on every case (up to :data:`EXACT_TOLERANCE`), there is no sampling uncertainty:
   the interval is the point, no test is run (``test = "exact"``, no p-value, not counted by
   Holm), and the verdict is ``no change`` for a delta of 0, else improved/regressed by the
   metric's direction (``changed`` without one); the note says the delta is exact. Pass/fail
   values are the exception for a non-zero delta: every case flipping the same way is a
   sampling outcome (it happens by chance with few cases), so they go to McNemar's test.
2. **Tested.** Otherwise the row's test gives a p-value, Holm-adjusted across the
   comparison's tested rows (:func:`adjust_family`; each hypothesis once: a row is one
   hypothesis, about its own aggregate). The interval shown is the inversion of that
   test, so that, unadjusted, it excludes 0 exactly when the test rejects at ``alpha``:

   * a ``mean``/``ratio_true`` row of 0/1 values: the exact McNemar test (McNemar 1947) with
     the exact conditional interval of the difference in pass rates (Clopper & Pearson 1934
     on the discordant pairs; Agresti 2013, §11.1);
   * a ``mean``/``ratio_true`` row of other values: the Wilcoxon signed-rank test (Wilcoxon
     1945) with the Hodges-Lehmann shift and its interval from the Walsh averages (Hodges &
     Lehmann 1963; Bauer 1972; Hollander, Wolfe & Chicken 2014, §3.2-3.3): the interval is
     of the shift, not of the mean delta;
   * a row of another aggregate (``median``, ``p95``, ``sum``, ``min``, ``max``,
     ``geomean``): the paired percentile bootstrap of the difference of that aggregate,
     resampling cases, and the Monte Carlo p-value of the same resamples (Efron &
     Tibshirani 1993, ch. 13; Davison & Hinkley 1997, §4.4).
3. **Verdict.** ``too few cases`` when the paired cases are fewer than the fewest with which
   a two-sided exact test at ``alpha / family`` can reject at all
   (:func:`minimum_informative_pairs`; the bootstrap rows use the same floor, as a
   percentile bootstrap of so few cases says nothing reliable): only then could more cases
   change the answer whatever they show. Otherwise improved/regressed/changed when the
   Holm-adjusted ``p <= alpha``, by the sign of the estimate; else ``no detectable
   difference``.
4. **Note.** When the interval and the verdict still disagree (the interval excludes 0
   exactly when the verdict is improved, regressed or changed, else they disagree), the
   row's ``note`` says why in words: Holm's adjustment (``the interval excludes 0, but after
   adjusting for 4 metrics (Holm) p = 0.09``), too few cases for the family, or a test and
   interval that part at the boundary (zero or tied deltas, the normal approximation of
   more than 50 deltas, bootstrap resamples on the boundary).

* :func:`paired_bootstrap_ci`: percentile bootstrap interval of the mean delta,
  resampling cases (Efron & Tibshirani 1993).
* :func:`mcnemar_exact`: exact McNemar test for pass/fail pairs (McNemar 1947).
* :func:`wilcoxon_signed_rank`: Wilcoxon signed-rank test for continuous pairs
  (Wilcoxon 1945).
* :func:`holm_adjust`: Holm's step-down adjustment across the rows of one
  comparison (Holm 1979).
* :func:`minimum_informative_pairs`, :func:`cases_needed_mean`,
  :func:`cases_needed_mcnemar`: when a test cannot reach the level at all, and how
  many cases the observed effect would need.
* :func:`paired_statistics`: the rule for one row; :func:`adjust_family`: Holm across a
  comparison's rows, with the verdicts and notes that follow.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from autobench.records import Direction
from autobench.report import _intervals as intervals
from autobench.report._model import DEFAULT_LEVEL, MetricStatistics, Verdict
from autobench.report._normal import normal_quantile, signed_rank_normal_p

Values = Sequence[float] | NDArray[np.float64]
"""Per-case values or deltas."""


def _scipy_stats() -> Any:
    """``scipy.stats``, imported by the first exact test that needs it."""
    return importlib.import_module("scipy.stats")


DEFAULT_RESAMPLES = 2000
"""Bootstrap resamples: enough for stable 95 % percentile bounds (Efron & Tibshirani
1993, ch. 19, suggest at least 1000 for percentile intervals)."""

DEFAULT_SEED = 20260101
"""Seed of the bootstrap: the same records give the same interval on every machine."""

DEFAULT_POWER = 0.8
"""Power the cases-needed figure is computed for (the usual planning convention)."""


TEST_MCNEMAR = "mcnemar-exact"
TEST_WILCOXON = "wilcoxon"
TEST_BOOTSTRAP = "bootstrap"
TEST_EXACT = "exact"
"""No test: the delta is the same on every case."""

BOOTSTRAP_ROW_RESAMPLES = 1000
"""Resamples of the bootstrap of a row's own aggregate (median, p95, ...): the percentile
interval's usual minimum (Efron & Tibshirani 1993, ch. 19), which keeps ``compare`` of 10,000
runs within its budget."""


def paired_bootstrap_ci(
    deltas: Values,
    *,
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, float] | None:
    """Two-sided ``level`` interval ``(low, high)`` of the mean of ``deltas``
    (candidate minus baseline per case), by the percentile bootstrap over cases.

    Resampling whole cases keeps each baseline value with its candidate value, which
    is the paired bootstrap of Efron & Tibshirani, *An Introduction to the
    Bootstrap* (Chapman & Hall, 1993), ch. 13 (percentile interval). Computed with
    ``scipy.stats.bootstrap(method="percentile")`` seeded by ``seed``, so it is
    reproducible. Constant deltas give the degenerate interval ``(d, d)``; fewer than
    two deltas give ``None`` (no interval can be estimated from one case).
    """
    values = np.asarray(deltas, dtype=float)
    if values.size < 2:
        return None
    if np.all(values == values[0]):
        return float(values[0]), float(values[0])
    result = _scipy_stats().bootstrap(
        (values,),
        np.mean,
        n_resamples=resamples,
        batch=max(1, 2_000_000 // values.size),
        vectorized=True,
        confidence_level=level,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    interval = result.confidence_interval
    return float(interval.low), float(interval.high)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` pairs that passed only in the baseline
    and ``c`` that passed only in the candidate (concordant pairs carry no information).

    Under no difference each discordant pair is equally likely to go either way, so
    ``c ~ Binomial(b + c, 1/2)``; the p-value is ``scipy.stats.binomtest``'s two-sided
    one. McNemar, Q. (1947), "Note on the sampling error of the difference between
    correlated proportions or percentages", *Psychometrika* 12(2):153-157; the exact
    (binomial) form as in Agresti, *Categorical Data Analysis* (3rd ed., 2013), §11.1.
    No discordant pair gives ``1.0``. Raises ``ValueError`` for a negative count.
    """
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be >= 0, got b={b}, c={c}")
    if b + c == 0:
        return 1.0
    return float(_scipy_stats().binomtest(c, b + c, 0.5).pvalue)


PERMUTED_SIGNED_RANK_LIMIT = 13
"""Up to this many non-zero deltas with ties, scipy's signed-rank test permutes every sign;
past it (and past 50 deltas without ties) it uses the normal approximation."""


def wilcoxon_signed_rank(deltas: Values) -> float:
    """Two-sided Wilcoxon signed-rank p-value that the deltas are symmetric about 0.

    Zero deltas are dropped first (``zero_method="wilcox"``, Wilcoxon's own rule: a
    case that did not change says nothing about the direction); no non-zero delta
    gives ``1.0``. As scipy's ``method="auto"``: the exact null distribution for up to
    50 non-zero deltas without ties (scipy's, imported then), a permutation of every
    sign for at most 13 with ties, and the normal approximation with the tie correction
    otherwise (:func:`~autobench.report._normal.signed_rank_normal_p`, without scipy).
    Wilcoxon, F. (1945), "Individual comparisons by ranking methods", *Biometrics
    Bulletin* 1(6):80-83.
    """
    values = np.asarray(deltas, dtype=float)
    values = values[values != 0]
    if values.size == 0:
        return 1.0
    if bool(np.all(np.isfinite(values))) and (
        values.size > intervals.EXACT_SIGNED_RANK_LIMIT
        or (
            values.size > PERMUTED_SIGNED_RANK_LIMIT
            and np.unique(np.abs(values)).size < values.size
        )
    ):
        return signed_rank_normal_p(values)
    test = _scipy_stats().wilcoxon(values, zero_method="wilcox", method="auto")
    return float(test.pvalue)


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the order given.

    Sort ascending; the i-th smallest (0-based) of m gets ``(m - i) * p``, made
    non-decreasing along the sorted order and capped at 1. Rejecting every hypothesis
    whose adjusted p is at most alpha controls the family-wise error rate at alpha.
    Holm, S. (1979), "A simple sequentially rejective multiple test procedure",
    *Scandinavian Journal of Statistics* 6(2):65-70.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def minimum_informative_pairs(alpha: float) -> int:
    """The fewest informative pairs (discordant for McNemar, non-zero for Wilcoxon) with
    which a two-sided exact test can reach ``p <= alpha`` at all.

    With k informative pairs the smallest possible two-sided p of both exact tests is
    ``2 / 2**k`` (every pair moved the same way), so ``k >= 1 + log2(1 / alpha)``:
    6 pairs at alpha 0.05, 8 at 0.01.
    """
    return max(1, math.ceil(1 + math.log2(1 / alpha) - 1e-12))


def _z(alpha: float, power: float) -> tuple[float, float]:
    return normal_quantile(1 - alpha / 2), normal_quantile(power)


def cases_needed_mean(
    mean: float, sd: float, *, alpha: float = 1 - DEFAULT_LEVEL, power: float = DEFAULT_POWER
) -> int | None:
    """Cases needed for a two-sided paired test at ``alpha`` to detect a mean delta of
    ``mean`` with per-case standard deviation ``sd``, with probability ``power``.

    The normal approximation ``n = ((z[1-alpha/2] + z[power]) * sd / mean) ** 2``
    (Cohen, *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed., 1988,
    ch. 2; Chow, Shao & Wang, *Sample Size Calculations in Clinical Research*, 2003,
    §3.1), at least :func:`minimum_informative_pairs`. ``None`` when ``mean`` is 0
    (no effect was observed, so none can be planned for).
    """
    if mean == 0 or not math.isfinite(mean):
        return None
    floor = minimum_informative_pairs(alpha)
    if sd == 0:
        return floor
    za, zb = _z(alpha, power)
    return max(floor, math.ceil(((za + zb) * sd / mean) ** 2))


def cases_needed_mcnemar(
    b: int, c: int, n: int, *, alpha: float = 1 - DEFAULT_LEVEL, power: float = DEFAULT_POWER
) -> int | None:
    """Cases needed for McNemar's test at ``alpha`` to detect the observed effect with
    probability ``power``, from ``b`` and ``c`` discordant pairs among ``n`` cases.

    Connor's formula with ``psi = (b + c) / n`` (discordant share) and
    ``delta = (c - b) / n``: ``n = (z[1-alpha/2] * sqrt(psi) + z[power] *
    sqrt(psi - delta**2)) ** 2 / delta**2``. Connor, R. J. (1987), "Sample size for
    testing differences in proportions for the paired-sample design", *Biometrics*
    43(1):207-211. Also large enough to expect :func:`minimum_informative_pairs`
    discordant pairs. ``None`` when ``b == c`` (no effect observed).
    """
    if n <= 0 or b == c:
        return None
    psi = (b + c) / n
    delta = (c - b) / n
    za, zb = _z(alpha, power)
    needed = (za * math.sqrt(psi) + zb * math.sqrt(max(0.0, psi - delta**2))) ** 2 / delta**2
    return max(math.ceil(needed), math.ceil(minimum_informative_pairs(alpha) / psi))


def _is_binary(values: NDArray[np.float64]) -> bool:
    """Whether every value is 0 or 1 (``value in (0, 1)`` for each, in numpy: no Python
    float per value)."""
    return bool(np.all((values == 0) | (values == 1)))


LOCATION_FUNCTIONS = frozenset({"mean", "ratio_true"})
"""Aggregates whose row gets the per-case location test (McNemar or Wilcoxon); every other
aggregate with a bootstrap (:data:`~autobench.report._intervals.AGGREGATE_FUNCTIONS`) gets
the paired bootstrap of its own difference."""

EXACT_TOLERANCE = 1e-9
"""Deltas are "the same on every case" when they differ by at most this share of the
largest value's magnitude (floating-point rounding of ``candidate - baseline``)."""

INTERVAL_PASS_RATE = "difference in pass rate"
INTERVAL_SHIFT = "Hodges-Lehmann shift"
INTERVAL_EXACT = "delta, the same on every case"


def _exact_statistics(
    deltas: NDArray[np.float64],
    estimate: float,
    *,
    fn: str,
    level: float,
    direction: Direction | None,
) -> MetricStatistics:
    """Deltas that are the same on every case: no sampling uncertainty, no test."""
    n = int(deltas.size)
    zero = estimate == 0
    if zero:
        judged = Verdict.NO_CHANGE
        note = None
    else:
        judged = _direction_verdict(estimate, direction)
        note = (
            f"exact: the delta is {float(deltas[0]):+.6g} on every one of the {n} cases, "
            "so there is no sampling uncertainty to test"
        )
    return MetricStatistics(
        test=TEST_EXACT,
        n=n,
        informative=0 if zero else n,
        mean_delta=float(np.mean(deltas)) if not zero else 0.0,
        estimate=estimate,
        interval_of=INTERVAL_EXACT if fn in LOCATION_FUNCTIONS else f"difference of {fn}",
        ci_low=estimate,
        ci_high=estimate,
        level=level,
        verdict=judged,
        direction=direction,
        note=note,
    )


def _floats(values: Sequence[float | bool] | np.ndarray) -> np.ndarray:
    """``values`` as a new float64 array (each value's ``float``; an array of floats
    copied)."""
    if isinstance(values, np.ndarray) and values.dtype == np.float64:
        return values.copy()
    return np.asarray([float(value) for value in values], dtype=float)


def paired_statistics(
    baseline: Sequence[float | bool],
    candidate: Sequence[float | bool],
    *,
    pass_fail: bool,
    direction: Direction | None,
    fn: str = "mean",
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> MetricStatistics:
    """The statistics of one comparison row over paired per-case values (``baseline[i]``
    and ``candidate[i]`` belong to the same case), for the row's aggregate ``fn``.

    The rule (module docstring): deltas the same on every case (at least two) are exact
    (``no change`` when 0; pass/fail values excepted unless 0). Otherwise a location row
    (``fn`` in :data:`LOCATION_FUNCTIONS`, or an aggregate without a bootstrap) gets the exact
    McNemar test with its conditional interval of the difference in pass rates when every
    value is 0 or 1 and ``pass_fail``, else the Wilcoxon signed-rank test with the
    Hodges-Lehmann interval; any other row gets the paired bootstrap of the difference of
    ``fn``. ``p_adjusted``, the verdict and the note are provisional (a family of one) until
    :func:`adjust_family` applies Holm across the comparison's rows. Raises ``ValueError``
    for sides of different lengths."""
    base = _floats(baseline)
    cand = _floats(candidate)
    if base.size != cand.size:
        raise ValueError(f"unpaired values: {base.size} baseline, {cand.size} candidate")
    n = int(base.size)
    deltas = cand - base
    alpha = 1 - level
    bootstrap = fn not in LOCATION_FUNCTIONS and fn in intervals.AGGREGATE_FUNCTIONS
    if bootstrap and fn == "geomean" and (np.any(base <= 0) or np.any(cand <= 0)):
        bootstrap = False
    binary = pass_fail and _is_binary(base) and _is_binary(cand)
    if n >= 2:
        scale = float(max(np.max(np.abs(base)), np.max(np.abs(cand))))
        tolerance = EXACT_TOLERANCE * max(scale, 1e-300)
        zero = bool(np.all(np.abs(deltas) <= tolerance))
        constant = bool(np.ptp(deltas) <= tolerance)
        if zero or (constant and not pass_fail and fn != "geomean"):
            if zero:
                estimate = 0.0
            elif bootstrap:
                estimate = intervals.aggregate_value(cand, fn) - intervals.aggregate_value(base, fn)
            else:
                estimate = float(np.mean(deltas))
            return _exact_statistics(deltas, estimate, fn=fn, level=level, direction=direction)
    mean = float(np.mean(deltas)) if n else None
    interval: intervals.Interval | None = None
    if bootstrap:
        test, informative, interval_of = (
            TEST_BOOTSTRAP,
            int(np.count_nonzero(deltas)),
            f"difference of {fn}",
        )
        p_value: float | None = None
        needed = None
        if n >= 2:
            result = intervals.aggregate_bootstrap(
                base,
                cand,
                fn,
                level=level,
                resamples=min(resamples, BOOTSTRAP_ROW_RESAMPLES),
                seed=seed,
            )
            interval, p_value = result.interval, result.p_value
            needed = cases_needed_mean(
                interval.estimate, result.standard_error * math.sqrt(n), alpha=alpha
            )
    elif binary:
        b = int(np.sum(base > cand))
        c = int(np.sum(cand > base))
        test, informative, interval_of = TEST_MCNEMAR, b + c, INTERVAL_PASS_RATE
        p_value = mcnemar_exact(b, c) if n else None
        interval = intervals.mcnemar_interval(b, c, n, level=level) if n else None
        needed = cases_needed_mcnemar(b, c, n, alpha=alpha)
    else:
        test, informative, interval_of = (
            TEST_WILCOXON,
            int(np.count_nonzero(deltas)),
            INTERVAL_SHIFT,
        )
        p_value = wilcoxon_signed_rank(deltas) if n else None
        interval = intervals.hodges_lehmann(deltas, level=level) if n else None
        sd = float(np.std(deltas, ddof=1)) if n > 1 else 0.0
        needed = None if mean is None else cases_needed_mean(mean, sd, alpha=alpha)
    statistics = MetricStatistics(
        test=test,
        n=n,
        informative=informative,
        mean_delta=mean,
        estimate=None if interval is None else interval.estimate,
        interval_of=interval_of,
        interval_exact=True if interval is None else interval.exact,
        ci_low=None if interval is None else interval.low,
        ci_high=None if interval is None else interval.high,
        level=level,
        p_value=p_value,
        p_adjusted=p_value,
        verdict=Verdict.TOO_FEW_CASES,
        cases_needed=needed,
        direction=direction,
        caveat=_ties(deltas) if test == TEST_WILCOXON else None,
    )
    return judge(statistics, family=1)


def _ties(deltas: NDArray[np.float64]) -> str | None:
    """Why a signed-rank test and its interval can part: zeros or tied magnitudes."""
    reasons = []
    if bool(np.any(deltas == 0)):
        reasons.append("cases with a delta of 0 are left out of the test, not of the interval")
    _, sizes = np.unique(np.abs(deltas[deltas != 0]), return_counts=True)
    if bool(np.any(sizes > 1)):
        reasons.append("tied deltas")
    return "; ".join(reasons) or None


def _direction_verdict(estimate: float, direction: Direction | None) -> Verdict:
    if direction is None:
        return Verdict.CHANGED
    better = (estimate > 0) == (direction is Direction.MAXIMIZE)
    return Verdict.IMPROVED if better else Verdict.REGRESSED


def verdict(statistics: MetricStatistics, *, family: int = 1) -> Verdict:
    """The verdict of ``statistics`` at its level, from its Holm-adjusted p-value (the rule
    of the module docstring; exact rows keep theirs).

    Too few cases when the paired cases are fewer than :func:`minimum_informative_pairs`
    at ``alpha / family`` (Holm multiplies the smallest of ``family`` p-values by
    ``family``, so with fewer pairs the adjusted test could not reach the level whatever
    the data); otherwise improved or regressed when ``p_adjusted <= 1 - level`` and the
    estimate (else the mean delta) goes that way in the metric's direction (``changed``
    without a direction), else no detectable difference."""
    if statistics.test == TEST_EXACT:
        return statistics.verdict
    alpha = 1 - statistics.level
    if statistics.p_adjusted is None or statistics.mean_delta is None:
        return Verdict.TOO_FEW_CASES
    if statistics.n < minimum_informative_pairs(alpha / max(1, family)):
        return Verdict.TOO_FEW_CASES
    sign = statistics.estimate or statistics.mean_delta
    if statistics.p_adjusted > alpha or sign == 0:
        return Verdict.NO_DIFFERENCE
    return _direction_verdict(sign, statistics.direction)


def excludes_zero(statistics: MetricStatistics) -> bool:
    """Whether the interval is bounded and lies wholly above or wholly below 0."""
    low, high = statistics.ci_low, statistics.ci_high
    return low is not None and high is not None and (low > 0 or high < 0)


DECISIVE = frozenset({Verdict.IMPROVED, Verdict.REGRESSED, Verdict.CHANGED})
"""Verdicts that state a difference; the rule keeps them with intervals that exclude 0."""


def note(statistics: MetricStatistics, *, family: int = 1) -> str | None:
    """In words, why the verdict and the interval disagree (``None`` when they agree: the
    interval excludes 0 exactly when the verdict is decisive); exact rows keep theirs."""
    if statistics.test == TEST_EXACT:
        return statistics.note
    alpha = 1 - statistics.level
    decisive = statistics.verdict in DECISIVE
    excludes = excludes_zero(statistics)
    if decisive == excludes:
        return None
    p, adjusted = statistics.p_value, statistics.p_adjusted
    holm = f"after adjusting for {family} metrics (Holm)"
    why = _why_apart(statistics)
    if excludes and statistics.verdict is Verdict.TOO_FEW_CASES:
        if family > 1 and statistics.n >= minimum_informative_pairs(alpha):
            return (
                f"the interval excludes 0, but {holm} {statistics.n} cases cannot reach "
                f"p <= {alpha:g}"
            )
        return f"the interval excludes 0, but {statistics.n} cases are too few for the test"
    if excludes:  # no detectable difference
        if p is not None and adjusted is not None and p <= alpha < adjusted:
            return f"the interval excludes 0, but {holm} p = {adjusted:.3g}"
        return f"the interval excludes 0, but the test gives p = {_p(adjusted)}{why}"
    if statistics.ci_low is None or statistics.ci_high is None:
        return f"the test gives p = {_p(adjusted)}, but {statistics.n} cases bound no interval at this level"
    return f"the test gives p = {_p(adjusted)}, but the interval includes 0{why}"


def _p(p: float | None) -> str:
    return "-" if p is None else f"{p:.3g}"


def _why_apart(statistics: MetricStatistics) -> str:
    reasons = [statistics.caveat] if statistics.caveat else []
    if not statistics.interval_exact:
        reasons.append("the interval uses the normal approximation")
    if statistics.test == TEST_BOOTSTRAP:
        reasons.append("the bootstrap resamples are on the boundary")
    return f" ({'; '.join(reasons)})" if reasons else ""


def judge(statistics: MetricStatistics, *, family: int) -> MetricStatistics:
    """``statistics`` with the verdict and note of the rule, in a Holm family of ``family``
    tested rows."""
    judged = statistics.model_copy(update={"verdict": verdict(statistics, family=family)})
    return judged.model_copy(update={"note": note(judged, family=family), "family": family})


def adjust_family(items: Sequence[MetricStatistics]) -> list[MetricStatistics]:
    """``items`` (the rows of one comparison, each hypothesis once) with Holm-adjusted
    p-values and the verdicts and notes that follow; rows without a p-value (exact, or no
    pair) are left as they are and are not counted in the family."""
    tested = [index for index, item in enumerate(items) if item.p_value is not None]
    adjusted = holm_adjust([items[index].p_value or 0.0 for index in tested])
    result = list(items)
    for index, p in zip(tested, adjusted, strict=True):
        updated = judge(items[index].model_copy(update={"p_adjusted": p}), family=len(tested))
        needed = updated.cases_needed
        if updated.verdict is Verdict.TOO_FEW_CASES:  # at least what the family's level takes
            floor = minimum_informative_pairs((1 - updated.level) / len(tested))
            needed = max(needed or floor, floor)
        result[index] = updated.model_copy(update={"cases_needed": needed})
    return result
