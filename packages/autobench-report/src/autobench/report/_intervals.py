"""Confidence intervals that agree with the comparison's tests by construction.

Each interval here is the inversion of the test it is shown beside, so "the interval
excludes 0" and "the test rejects at ``1 - level``" are the same statement (up to the
boundary cases :mod:`autobench.report._statistics` names in words):

* :func:`mcnemar_interval`: the exact conditional interval of the difference in pass rates,
  inverting the exact McNemar test (Clopper & Pearson 1934 on the discordant pairs).
* :func:`hodges_lehmann`: the Hodges-Lehmann shift and its distribution-free interval from
  the Walsh averages, inverting the Wilcoxon signed-rank test (Tukey 1949; Bauer 1972;
  Hollander, Wolfe & Chicken, *Nonparametric Statistical Methods*, 3rd ed., 2014, §3.3).
* :func:`aggregate_bootstrap`: a paired percentile bootstrap of the difference of any
  aggregate (median, p95, sum, ...), resampling cases, with the Monte Carlo p-value of the
  same resamples (Efron & Tibshirani 1993, ch. 13 and 15; Davison & Hinkley 1997, §4.4).

Imported on first use (numpy); scipy only when a McNemar interval is computed.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from autobench.report._normal import normal_quantile

Array = NDArray[np.float64]

EXACT_SIGNED_RANK_LIMIT = 50
"""Up to this many deltas without ties or zeros, the signed-rank interval uses the exact null
distribution (as ``scipy.stats.wilcoxon(method="auto")`` does for the test)."""


@dataclass(frozen=True, slots=True)
class Interval:
    """A point estimate with its two-sided interval (``low``/``high`` ``None``: the level
    cannot be reached with this many cases, the interval is unbounded)."""

    estimate: float
    low: float | None
    high: float | None
    exact: bool = True
    """Whether the interval comes from an exact distribution (else a normal approximation)."""


def mcnemar_interval(b: int, c: int, n: int, *, level: float) -> Interval:
    """The difference in pass rates ``(c - b) / n`` (candidate minus baseline) with the
    exact conditional interval, from ``b`` pairs that passed only in the baseline and ``c``
    only in the candidate among ``n`` pairs.

    Given ``m = b + c`` discordant pairs, ``c ~ Binomial(m, theta)`` and no difference is
    ``theta = 1/2``; the Clopper-Pearson interval ``[theta_low, theta_high]`` of ``theta``
    (Clopper & Pearson, *Biometrika* 26, 1934) excludes 1/2 exactly when the two-sided exact
    McNemar test rejects (the null distribution is symmetric, so its central and
    minimum-likelihood p-values agree). The interval of the difference is
    ``(m / n) * (2 * theta - 1)`` at both ends, the discordant share ``m / n`` held at its
    observed value (the conditional approach, Agresti, *Categorical Data Analysis*, 3rd ed.,
    2013, §11.1). ``m == 0`` gives ``(0, 0)``. Raises ``ValueError`` for ``n < 1`` or
    counts that do not fit in ``n``."""
    if n < 1 or b < 0 or c < 0 or b + c > n:
        raise ValueError(f"need 0 <= b + c <= n and n >= 1, got b={b}, c={c}, n={n}")
    m = b + c
    estimate = (c - b) / n
    if m == 0:
        return Interval(0.0, 0.0, 0.0)
    test = importlib.import_module("scipy.stats").binomtest(c, m, 0.5)
    theta = test.proportion_ci(confidence_level=level, method="exact")
    share = m / n
    return Interval(estimate, share * (2 * theta.low - 1), share * (2 * theta.high - 1))


def _kth_walsh_sum(d: Array, k: int) -> float:
    """The ``k``-th smallest (1-based) of the ``n (n + 1) / 2`` sums ``d[i] + d[j]``,
    ``i <= j``, of the sorted ``d``: bisection on the value with an ``O(n log n)`` count,
    then the few sums left in the last bracket sorted (exact, in ``O(n log n)`` memory)."""
    n = d.size
    index = np.arange(n)

    def ends(s: float) -> NDArray[np.intp]:
        # per i, one past the last j >= i with d[j] <= s - d[i]
        return np.maximum(np.searchsorted(d, s - d, side="right"), index)

    def count(s: float) -> int:
        return int((ends(s) - index).sum())

    lo, hi = float(np.nextafter(2 * d[0], -np.inf)), float(2 * d[-1])
    below = 0  # count(lo)
    limit = max(4 * n, 10_000)
    while count(hi) - below > limit:
        mid = lo + (hi - lo) / 2
        if not lo < mid < hi:
            break
        counted = count(mid)
        if counted >= k:
            hi = mid
        else:
            lo, below = mid, counted
    first, last = ends(lo), ends(hi)
    width = last - first
    total = int(width.sum())
    if total <= limit:
        rows = np.repeat(index, width)
        columns = np.repeat(first, width) + (
            np.arange(total) - np.repeat(np.cumsum(width) - width, width)
        )
        sums = np.sort(d[rows] + d[columns])
        return float(sums[k - below - 1])
    # Many equal sums: every sum in (lo, hi] is the same value up to rounding.
    valid = last > index
    return float(np.max(d[valid] + d[last[valid] - 1]))


def _signed_rank_cdf(n: int) -> NDArray[np.float64]:
    """``P(T+ <= t)`` for ``t = 0 .. n (n + 1) / 2`` under no shift, no ties: the counts
    of subsets of ``{1..n}`` by sum (coefficients of ``prod (1 + x**i)``) over ``2**n``."""
    total = n * (n + 1) // 2
    counts = np.zeros(total + 1, dtype=np.float64)  # exact below 2**53: n <= 50 is 2**50
    counts[0] = 1
    for i in range(1, n + 1):
        counts[i:] = counts[i:] + counts[:-i].copy()
    return np.cumsum(counts) / 2.0**n


def signed_rank_depth(d: Array, *, level: float) -> tuple[int, bool]:
    """``(k, exact)``: the interval of :func:`hodges_lehmann` runs from the ``k``-th
    smallest to the ``k``-th largest Walsh average; ``k == 0`` means the level cannot be
    reached (unbounded). ``k - 1`` is the largest ``t`` with ``P(T+ <= t) <= alpha / 2``:
    exact for at most :data:`EXACT_SIGNED_RANK_LIMIT` deltas without ties or zeros (or at
    most 13 with them, where scipy's test enumerates every sign), else by the normal
    approximation with scipy's tie correction."""
    n = d.size
    alpha = 1 - level
    magnitudes = np.abs(d)
    _, tie_sizes = np.unique(magnitudes, return_counts=True)
    clean = bool(np.all(tie_sizes == 1)) and not bool(np.any(d == 0))
    if n <= 13 or (n <= EXACT_SIGNED_RANK_LIMIT and clean):
        cdf = _signed_rank_cdf(n)
        reachable = np.nonzero(cdf <= alpha / 2 + 1e-12)[0]
        return (int(reachable[-1]) + 1 if reachable.size else 0), True
    variance = n * (n + 1) * (2 * n + 1) / 24 - float(np.sum(tie_sizes**3 - tie_sizes)) / 48
    z = normal_quantile(1 - alpha / 2)
    depth = math.floor(n * (n + 1) / 4 - z * math.sqrt(max(variance, 0.0))) + 1
    return max(0, depth), False


def hodges_lehmann(deltas: Array, *, level: float) -> Interval:
    """The Hodges-Lehmann shift of ``deltas`` (the median of the Walsh averages
    ``(d[i] + d[j]) / 2``, ``i <= j``) and its two-sided ``level`` interval, the ``k``-th
    smallest and ``k``-th largest Walsh averages (:func:`signed_rank_depth`).

    Hodges & Lehmann, *Ann. Math. Statist.* 34 (1963); Bauer, *JASA* 67 (1972); Hollander,
    Wolfe & Chicken (2014) §3.2-3.3. The interval is the set of shifts the signed-rank test
    does not reject, so without ties or zeros it excludes 0 exactly when the exact test
    rejects. ``O(n log n)``. Raises ``ValueError`` for no deltas."""
    d = np.sort(np.asarray(deltas, dtype=float))
    n = d.size
    if n == 0:
        raise ValueError("the Hodges-Lehmann shift needs at least one delta")
    total = n * (n + 1) // 2
    middle = (total + 1) // 2
    estimate = _kth_walsh_sum(d, middle)
    if total % 2 == 0:
        estimate = (estimate + _kth_walsh_sum(d, middle + 1)) / 2
    depth, exact = signed_rank_depth(d, level=level)
    if depth < 1:
        return Interval(estimate / 2, None, None, exact)
    return Interval(
        estimate / 2,
        _kth_walsh_sum(d, depth) / 2,
        _kth_walsh_sum(d, total + 1 - depth) / 2,
        exact,
    )


_ORDER_STATISTICS: dict[str, Callable[[int], tuple[tuple[int, float], ...]]] = {
    "min": lambda n: ((0, 1.0),),
    "max": lambda n: ((n - 1, 1.0),),
    "median": lambda n: ((n // 2, 1.0),) if n % 2 else ((n // 2 - 1, 0.5), (n // 2, 0.5)),
    "p95": lambda n: _type7(n, 0.95),
}
"""Per aggregate, the order statistics (0-based) it weighs, as ``(position, weight)``."""

_LINEAR = ("mean", "sum", "geomean")

AGGREGATE_FUNCTIONS = (*_LINEAR, *_ORDER_STATISTICS)
"""The aggregates :func:`aggregate_bootstrap` resamples."""


def _type7(n: int, q: float) -> tuple[tuple[int, float], ...]:
    """Hyndman & Fan type 7 (numpy's ``linear``, the ``p95`` aggregate): ``h = (n - 1) q``."""
    h = (n - 1) * q
    low = math.floor(h)
    fraction = h - low
    if low + 1 >= n or fraction == 0:
        return ((low, 1.0),)
    return ((low, 1.0 - fraction), (low + 1, fraction))


def _counts(n: int, rows: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """``rows`` bootstrap resamples of ``n`` cases as how often each case was drawn."""
    picked = rng.integers(0, n, size=(rows, n))
    picked += np.arange(rows)[:, None] * n
    return np.bincount(picked.ravel(), minlength=rows * n).reshape(rows, n)


def _resampled(values: Array, fn: str, counts: NDArray[np.int64]) -> Array:
    """``fn`` of each resample (a row of ``counts``) of ``values``: linear aggregates as a
    matrix product, order statistics from the cumulative counts of the sorted values."""
    n = values.size
    if fn == "mean":
        return (counts @ values) / n
    if fn == "sum":
        return counts @ values
    if fn == "geomean":
        return np.exp((counts @ np.log(values)) / n)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    rows = counts.shape[0]
    cumulative = np.cumsum(counts[:, order], axis=1)
    # Rows of ``cumulative`` rise from 0 to n: offset each by row * (n + 1) to search all
    # rows at once; the first index whose cumulative count exceeds j is order statistic j.
    offsets = np.arange(rows)[:, None] * (n + 1)
    flat = (cumulative + offsets).ravel()
    result = np.zeros(rows)
    for position, weight in _ORDER_STATISTICS[fn](n):
        found = np.searchsorted(flat, offsets[:, 0] + position, side="right")
        result += weight * ordered[found - np.arange(rows) * n]
    return result


def aggregate_value(values: Array, fn: str) -> float:
    """``fn`` of ``values`` as the aggregate computes it (type 7 ``p95``)."""
    return float(_resampled(values, fn, np.ones((1, values.size), dtype=np.int64))[0])


@dataclass(frozen=True, slots=True)
class BootstrapResult:
    """The difference of an aggregate with its percentile interval, the Monte Carlo p-value
    of the same resamples and their standard deviation (the standard error)."""

    interval: Interval
    p_value: float
    standard_error: float


def aggregate_bootstrap(
    baseline: Array,
    candidate: Array,
    fn: str,
    *,
    level: float,
    resamples: int,
    seed: int,
) -> BootstrapResult:
    """``fn(candidate) - fn(baseline)`` over paired per-case values, with its paired
    percentile bootstrap interval: ``resamples`` (``B``) draws of ``n`` cases with
    replacement, each case bringing both of its values (Efron & Tibshirani 1993, ch. 13).

    The interval runs from the ``r``-th smallest to the ``r``-th largest resampled difference,
    ``r = ceil(B alpha / 2)`` (order statistics, no interpolation, so swapping the sides
    mirrors it); the p-value is ``min(1, 2 (c + 1) / (B + 1))`` with ``c`` the resampled
    differences on the smaller side of 0 (``<= 0`` or ``>= 0``), the Monte Carlo p-value of
    Davison & Hinkley, *Bootstrap Methods and their Application* (1997), eq. 4.11. With
    ``B = 1000`` or ``2000`` at 95 % the interval excludes 0 exactly when ``p <= 0.05``.
    Seeded: reproducible. Raises ``ValueError`` for a function not in
    :data:`AGGREGATE_FUNCTIONS`, fewer than two pairs, or a ``geomean`` of a value <= 0."""
    if fn not in AGGREGATE_FUNCTIONS:
        raise ValueError(f"no bootstrap for aggregate {fn!r}")
    before = np.asarray(baseline, dtype=float)
    after = np.asarray(candidate, dtype=float)
    n = before.size
    if n < 2 or after.size != n:
        raise ValueError(f"need at least two pairs, got {n} and {after.size}")
    if fn == "geomean" and (np.any(before <= 0) or np.any(after <= 0)):
        raise ValueError("geomean needs positive values")
    estimate = aggregate_value(after, fn) - aggregate_value(before, fn)
    rng = np.random.default_rng(seed)
    batch = max(1, min(resamples, 1_000_000 // n))
    draws: list[Array] = []
    for start in range(0, resamples, batch):
        counts = _counts(n, min(batch, resamples - start), rng)
        draws.append(_resampled(after, fn, counts) - _resampled(before, fn, counts))
    resampled = np.sort(np.concatenate(draws))
    rank = max(1, math.ceil(resamples * (1 - level) / 2 - 1e-9))
    smaller = min(int(np.sum(resampled <= 0)), int(np.sum(resampled >= 0)))
    p_value = min(1.0, 2 * (smaller + 1) / (resamples + 1))
    return BootstrapResult(
        Interval(estimate, float(resampled[rank - 1]), float(resampled[resamples - rank])),
        p_value,
        float(np.std(resampled, ddof=1)),
    )
