"""Statistics of a paired comparison: intervals, tests, multiplicity and verdicts.

Pure functions over per-case paired values (one baseline and one candidate value per
case, already averaged over the case's repeats). The numerical work is scipy's; this
module picks the methods, handles the degenerate inputs scipy would warn about, and
documents where each method comes from. scipy takes about a second to import, so
this module is imported on first use (:mod:`autobench.report._compare`), never with
the package.

* :func:`paired_bootstrap_ci`: percentile bootstrap interval of the mean delta,
  resampling cases (Efron & Tibshirani 1993).
* :func:`mcnemar_exact`: exact McNemar test for pass/fail pairs (McNemar 1947).
* :func:`wilcoxon_signed_rank`: Wilcoxon signed-rank test for continuous pairs
  (Wilcoxon 1945).
* :func:`holm_adjust`: Holm's step-down adjustment across the metrics of one
  comparison (Holm 1979).
* :func:`minimum_informative_pairs`, :func:`cases_needed_mean`,
  :func:`cases_needed_mcnemar`: when a test cannot reach the level at all, and how
  many cases the observed effect would need.
* :func:`paired_statistics`: all of the above for one metric, with a :class:`Verdict`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from scipy import stats  # type: ignore[import-untyped]

from autobench.records import Direction
from autobench.report._model import DEFAULT_LEVEL, MetricStatistics, Verdict

Values = Sequence[float] | NDArray[np.float64]
"""Per-case values or deltas."""

DEFAULT_RESAMPLES = 2000
"""Bootstrap resamples: enough for stable 95 % percentile bounds (Efron & Tibshirani
1993, ch. 19, suggest at least 1000 for percentile intervals)."""

DEFAULT_SEED = 20260101
"""Seed of the bootstrap: the same records give the same interval on every machine."""

DEFAULT_POWER = 0.8
"""Power the cases-needed figure is computed for (the usual planning convention)."""


TEST_MCNEMAR = "mcnemar-exact"
TEST_WILCOXON = "wilcoxon"


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
    result = stats.bootstrap(
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
    return float(stats.binomtest(c, b + c, 0.5).pvalue)


def wilcoxon_signed_rank(deltas: Values) -> float:
    """Two-sided Wilcoxon signed-rank p-value that the deltas are symmetric about 0.

    Zero deltas are dropped first (``zero_method="wilcox"``, Wilcoxon's own rule: a
    case that did not change says nothing about the direction); no non-zero delta
    gives ``1.0``. scipy's ``method="auto"`` uses the exact null distribution for up
    to 50 non-zero deltas without ties and the normal approximation otherwise.
    Wilcoxon, F. (1945), "Individual comparisons by ranking methods", *Biometrics
    Bulletin* 1(6):80-83.
    """
    values = np.asarray(deltas, dtype=float)
    values = values[values != 0]
    if values.size == 0:
        return 1.0
    return float(stats.wilcoxon(values, zero_method="wilcox", method="auto").pvalue)


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
    return float(stats.norm.ppf(1 - alpha / 2)), float(stats.norm.ppf(power))


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


def _is_binary(values: Sequence[float]) -> bool:
    return all(value in (0, 1) for value in values)


def paired_statistics(
    baseline: Sequence[float | bool],
    candidate: Sequence[float | bool],
    *,
    pass_fail: bool,
    direction: Direction | None,
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> MetricStatistics:
    """The statistics of one metric over paired per-case values (``baseline[i]`` and
    ``candidate[i]`` belong to the same case).

    ``pass_fail`` metrics whose per-case values are all 0 or 1 get the exact McNemar
    test; other metrics (and pass rates of cases with several runs) the Wilcoxon
    signed-rank test. The interval is :func:`paired_bootstrap_ci` of the mean delta.
    ``p_adjusted`` and the verdict are provisional (unadjusted) until
    :func:`adjust_family` applies Holm across the comparison's metrics.
    """
    base = [float(value) for value in baseline]
    cand = [float(value) for value in candidate]
    if len(base) != len(cand):
        raise ValueError(f"unpaired values: {len(base)} baseline, {len(cand)} candidate")
    n = len(base)
    deltas = np.subtract(cand, base) if n else np.zeros(0)
    alpha = 1 - level
    mean = float(np.mean(deltas)) if n else None
    interval = paired_bootstrap_ci(deltas, level=level, resamples=resamples, seed=seed)
    if pass_fail and _is_binary(base) and _is_binary(cand):
        b = sum(1 for x, y in zip(base, cand, strict=True) if x > y)
        c = sum(1 for x, y in zip(base, cand, strict=True) if y > x)
        test, informative = TEST_MCNEMAR, b + c
        p_value = mcnemar_exact(b, c) if n else None
        needed = cases_needed_mcnemar(b, c, n, alpha=alpha)
    else:
        test, informative = TEST_WILCOXON, int(np.count_nonzero(deltas))
        p_value = wilcoxon_signed_rank(deltas) if n else None
        sd = float(np.std(deltas, ddof=1)) if n > 1 else 0.0
        needed = None if mean is None else cases_needed_mean(mean, sd, alpha=alpha)
    statistics = MetricStatistics(
        test=test,
        n=n,
        informative=informative,
        mean_delta=mean,
        ci_low=None if interval is None else interval[0],
        ci_high=None if interval is None else interval[1],
        level=level,
        p_value=p_value,
        p_adjusted=p_value,
        verdict=Verdict.NO_DIFFERENCE,
        cases_needed=needed,
        direction=direction,
    )
    return statistics.model_copy(update={"verdict": verdict(statistics)})


def verdict(statistics: MetricStatistics, *, family: int = 1) -> Verdict:
    """The verdict of ``statistics`` at its level, from its Holm-adjusted p-value.

    Too few cases when the paired cases are fewer than :func:`minimum_informative_pairs`
    at ``alpha / family`` (Holm multiplies the smallest of ``family`` p-values by
    ``family``, so with fewer pairs the adjusted test could not reach the level whatever
    the data); otherwise improved or regressed when ``p_adjusted <= 1 - level`` and the mean
    delta goes that way in the metric's direction (``changed`` without a direction),
    else no detectable difference.
    """
    alpha = 1 - statistics.level
    if statistics.p_adjusted is None or statistics.mean_delta is None:
        return Verdict.TOO_FEW_CASES
    if statistics.n < minimum_informative_pairs(alpha / max(1, family)):
        return Verdict.TOO_FEW_CASES
    if statistics.p_adjusted > alpha or statistics.mean_delta == 0:
        return Verdict.NO_DIFFERENCE
    if statistics.direction is None:
        return Verdict.CHANGED
    better = (statistics.mean_delta > 0) == (statistics.direction is Direction.MAXIMIZE)
    return Verdict.IMPROVED if better else Verdict.REGRESSED


def adjust_family(items: Sequence[MetricStatistics]) -> list[MetricStatistics]:
    """``items`` (the metrics of one comparison) with Holm-adjusted p-values and the
    verdicts that follow from them; items without a p-value are left as they are."""
    tested = [index for index, item in enumerate(items) if item.p_value is not None]
    adjusted = holm_adjust([items[index].p_value or 0.0 for index in tested])
    result = list(items)
    for index, p in zip(tested, adjusted, strict=True):
        updated = items[index].model_copy(update={"p_adjusted": p})
        judged = verdict(updated, family=len(tested))
        needed = updated.cases_needed
        if judged is Verdict.TOO_FEW_CASES:  # at least what the family's level takes
            floor = minimum_informative_pairs((1 - updated.level) / len(tested))
            needed = max(needed or floor, floor)
        result[index] = updated.model_copy(update={"verdict": judged, "cases_needed": needed})
    return result
