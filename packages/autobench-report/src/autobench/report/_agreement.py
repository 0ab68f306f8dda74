"""Agreement between two raters (a person and a judge) on the same items: pure functions.

Every statistic takes a confusion matrix ``table`` of counts, rows the reference rater (the
person), columns the rated one (the judge), categories in the same order on both axes,
and also accepts a stack of them (shape ``(..., k, k)``), returning one value per table:
so the bootstrap computes each resample's statistic in one pass.

* :func:`cohen_kappa`: ``(p_o - p_e) / (1 - p_e)``, ``p_o`` the observed share of agreement,
  ``p_e`` the agreement expected by chance from the two raters' marginal shares
  (Cohen, "A coefficient of agreement for nominal scales", *Educational and Psychological
  Measurement* 20, 1960).
* :func:`weighted_kappa`: ``1 - sum(v o) / sum(v e)`` with disagreement weights ``v``,
  observed shares ``o`` and chance shares ``e`` (Cohen, "Weighted kappa", *Psychological
  Bulletin* 70, 1968), linear (``|i - j|``) or quadratic (``(i - j)^2``) in the distance
  between ordered categories (Fleiss & Cohen, *Educational and Psychological Measurement*
  33, 1973, who showed the quadratic one is an intraclass correlation; Fleiss, Levin &
  Paik, *Statistical Methods for Rates and Proportions*, 3rd ed., 2003, §18.1).
* :func:`true_positive_rate` and :func:`false_positive_rate` for two categories, the second
  one positive, with the person as the reference.
* :func:`bootstrap_intervals`: percentile intervals of any of them by resampling the
  labelled items with replacement (Efron & Tibshirani, *An Introduction to the Bootstrap*,
  1993, ch. 13), seeded: the same items give the same interval.

Undefined values (kappa when chance agreement is 1, a rate with no reference positives or
negatives) are ``nan``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

Tables = NDArray[np.float64]
Weights = Literal["linear", "quadratic"]


def confusion_matrix(reference: Sequence[int], rated: Sequence[int], k: int) -> NDArray[np.int64]:
    """The ``k x k`` table of counts: ``table[i, j]`` items the reference put in category
    ``i`` and the rated rater in ``j``. Raises ``ValueError`` for sequences of different
    lengths or a category outside ``range(k)``."""
    first = np.asarray(reference, dtype=np.int64)
    second = np.asarray(rated, dtype=np.int64)
    if first.shape != second.shape:
        raise ValueError(f"{first.size} reference ratings but {second.size} rated ones")
    if first.size and (min(first.min(), second.min()) < 0 or max(first.max(), second.max()) >= k):
        raise ValueError(f"a category outside 0..{k - 1}")
    return np.bincount(first * k + second, minlength=k * k).reshape(k, k)


def _shares(table: ArrayLike) -> Tables:
    counts = np.asarray(table, dtype=float)
    totals = counts.sum(axis=(-2, -1), keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return counts / totals


def accuracy(table: ArrayLike) -> Tables:
    """The observed share of agreement ``p_o``: the diagonal over the total."""
    return np.trace(_shares(table), axis1=-2, axis2=-1)


def _chance(shares: Tables) -> Tables:
    """``e[i, j] = r_i c_j``: the shares expected if the raters were independent with
    their observed marginal shares."""
    rows = shares.sum(axis=-1)
    columns = shares.sum(axis=-2)
    return rows[..., :, None] * columns[..., None, :]


def cohen_kappa(table: ArrayLike) -> Tables:
    """Cohen's (1960) kappa ``(p_o - p_e) / (1 - p_e)``: 1 for perfect agreement, 0 for the
    agreement chance gives, negative below it. ``nan`` when ``p_e`` is 1 (both raters used
    one and the same category throughout)."""
    shares = _shares(table)
    observed = np.trace(shares, axis1=-2, axis2=-1)
    expected = np.trace(_chance(shares), axis1=-2, axis2=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.isclose(expected, 1.0), np.nan, (observed - expected) / (1 - expected))


def disagreement_weights(k: int, weights: Weights) -> Tables:
    """``v[i, j] = |i - j|`` (linear) or ``(i - j)^2`` (quadratic): how far apart two
    ordered categories are. Agreement weights ``1 - v / v.max()`` give the same kappa."""
    index = np.arange(k, dtype=float)
    distance = np.abs(index[:, None] - index[None, :])
    if weights == "linear":
        return distance
    if weights == "quadratic":
        return distance**2
    raise ValueError(f"weights are linear or quadratic, not {weights!r}")


def weighted_kappa(table: ArrayLike, weights: Weights) -> Tables:
    """Cohen's (1968) weighted kappa ``1 - sum(v o) / sum(v e)`` over ordered categories,
    with :func:`disagreement_weights` ``v``: partial credit for near misses. With two
    categories it equals :func:`cohen_kappa`. ``nan`` when chance disagreement is 0."""
    shares = _shares(table)
    v = disagreement_weights(shares.shape[-1], weights)
    observed = (v * shares).sum(axis=(-2, -1))
    expected = (v * _chance(shares)).sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.isclose(expected, 0.0), np.nan, 1 - observed / expected)


def _binary(table: ArrayLike) -> Tables:
    counts = np.asarray(table, dtype=float)
    if counts.shape[-2:] != (2, 2):
        raise ValueError(f"rates need two categories, got a {counts.shape[-2:]} table")
    return counts


def true_positive_rate(table: ArrayLike) -> Tables:
    """Of the items the reference called positive (category 1), the share the rated rater
    called positive too (sensitivity, recall): ``TP / (TP + FN)``. ``nan`` without any
    reference positive."""
    counts = _binary(table)
    with np.errstate(invalid="ignore", divide="ignore"):
        return counts[..., 1, 1] / counts[..., 1, :].sum(axis=-1)


def false_positive_rate(table: ArrayLike) -> Tables:
    """Of the items the reference called negative (category 0), the share the rated rater
    called positive: ``FP / (FP + TN)`` (1 - specificity). ``nan`` without any reference
    negative."""
    counts = _binary(table)
    with np.errstate(invalid="ignore", divide="ignore"):
        return counts[..., 0, 1] / counts[..., 0, :].sum(axis=-1)


Statistic = Callable[[ArrayLike], Tables]


@dataclass(frozen=True, slots=True)
class BootstrapInterval:
    """A statistic on the items and its percentile interval (``None`` ends: undefined, or
    fewer than two items); ``undefined`` counts the resamples on which it was ``nan`` and
    that were left out of the interval."""

    estimate: float | None
    low: float | None
    high: float | None
    undefined: int = 0


def bootstrap_intervals(
    reference: Sequence[int],
    rated: Sequence[int],
    k: int,
    statistics: Mapping[str, Statistic],
    *,
    level: float,
    resamples: int,
    seed: int,
) -> dict[str, BootstrapInterval]:
    """Each of ``statistics`` on the ``k``-category ratings of the same items, with the
    two-sided ``level`` percentile interval of ``resamples`` bootstrap resamples of the
    items (each resample draws ``n`` items with replacement, keeping each item's two
    ratings together; Efron & Tibshirani 1993, ch. 13). The generator is
    ``numpy.random.default_rng(seed)``, so the intervals are reproducible. Percentiles use
    numpy's default (linear) interpolation over the resamples on which the statistic is
    defined. Raises ``ValueError`` as :func:`confusion_matrix` does."""
    table = confusion_matrix(reference, rated, k)
    n = len(reference)
    codes = np.asarray(reference, dtype=np.int64) * k + np.asarray(rated, dtype=np.int64)
    tables: NDArray[np.int64] | None = None
    if n >= 2:
        rng = np.random.default_rng(seed)
        batch = max(1, min(resamples, 1_000_000 // n))  # bounded memory: ~8 MB of draws
        parts = []
        for start in range(0, resamples, batch):
            rows = min(batch, resamples - start)
            picked = codes[rng.integers(0, n, size=(rows, n))]
            picked += np.arange(rows)[:, None] * (k * k)
            parts.append(np.bincount(picked.ravel(), minlength=rows * k * k).reshape(rows, k, k))
        tables = np.concatenate(parts)
    alpha = 1 - level
    found: dict[str, BootstrapInterval] = {}
    for name, statistic in statistics.items():
        estimate = _finite(float(statistic(table)))
        if tables is None or estimate is None:
            found[name] = BootstrapInterval(estimate, None, None)
            continue
        values = np.asarray(statistic(tables), dtype=float)
        defined = values[~np.isnan(values)]
        if defined.size == 0:
            found[name] = BootstrapInterval(estimate, None, None, resamples)
            continue
        low, high = np.quantile(defined, [alpha / 2, 1 - alpha / 2])
        found[name] = BootstrapInterval(
            estimate, float(low), float(high), int(resamples - defined.size)
        )
    return found


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value
