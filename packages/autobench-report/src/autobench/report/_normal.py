"""The standard normal distribution and the signed-rank test's normal approximation,
without scipy.

Importing ``scipy.stats`` takes about half a second of CPU, more than reading and building
the report of 10,000 runs together; the comparisons of a large experiment only need the
normal distribution (the signed-rank test of more than 50 deltas, the interval depth of
its Hodges-Lehmann shift, the cases-needed figures), which the standard library gives:
the quantile is Wichura's algorithm AS 241 (``statistics.NormalDist.inv_cdf``), the tail
``erfc``. Both agree with ``scipy.special.ndtri`` and ``ndtr`` to a few units in the
last place (relative 1e-15 for ``|z| <= 8``; ``tests/report/test_normal.py`` compares
them). scipy stays the engine of the exact tests (McNemar's, the signed-rank test of at
most 50 deltas), imported when one of them runs.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
from numpy.typing import ArrayLike

_STANDARD = NormalDist()
_SQRT1_2 = 0.70710678118654752440


def normal_quantile(p: float) -> float:
    """The ``p`` quantile of the standard normal distribution (``scipy.stats.norm.ppf``):
    ``-inf`` for ``p == 0``, ``inf`` for ``p == 1``, NaN outside ``[0, 1]``."""
    if not 0 < p < 1:
        if p == 0:
            return -math.inf
        return math.inf if p == 1 else math.nan
    return _STANDARD.inv_cdf(p)


def normal_cdf(z: float) -> float:
    """``P(Z <= z)`` for a standard normal ``Z`` (``scipy.special.ndtr``, whose branches it
    follows: ``erf`` near 0, ``erfc`` in the tails, where it keeps its relative accuracy)."""
    x = z * _SQRT1_2
    if abs(x) < _SQRT1_2:
        return 0.5 + 0.5 * math.erf(x)
    tail = 0.5 * math.erfc(abs(x))
    return 1.0 - tail if x > 0 else tail


def signed_rank_normal_p(deltas: ArrayLike) -> float:
    """Two-sided p-value of the Wilcoxon signed-rank test by its normal approximation,
    computed as ``scipy.stats.wilcoxon(deltas, zero_method="wilcox",
    method="asymptotic")`` does: zero deltas dropped, average ranks of the magnitudes,
    the variance corrected for ties, no continuity correction; ``2 * P(Z <= -|z|)``.
    NaN when no delta is non-zero or one is NaN (as scipy's ``nan_policy="propagate"``).
    """
    d = np.asarray(deltas, dtype=float).ravel()
    if bool(np.any(np.isnan(d))):
        return math.nan
    d = d[d != 0]
    n = d.size
    if n == 0:
        return math.nan
    magnitudes = np.abs(d)
    order = np.argsort(magnitudes, kind="stable")
    ordered = magnitudes[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    ties = np.diff(np.append(starts, n)).astype(float)
    # every value of a tie group gets the group's average rank (ranks count from 1)
    ranks = np.repeat(starts + 1 + (ties - 1) / 2, ties.astype(np.intp))
    r_plus = float(np.sum(ranks[d[order] > 0]))
    count = float(n)
    mean = count * (count + 1.0) * 0.25
    variance = count * (count + 1.0) * (2.0 * count + 1.0)
    tie_correction = float(np.sum(ties**3 - ties))
    se = math.sqrt((variance - tie_correction / 2) / 24)
    z = (r_plus - mean) / se
    return 2 * normal_cdf(-abs(z))
