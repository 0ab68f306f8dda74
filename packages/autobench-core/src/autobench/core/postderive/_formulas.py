"""The arithmetic of paired comparisons: formulas and verdicts, on plain numbers."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Literal

from autobench.records import Direction

PairedFormula = Literal[
    "baseline_over_candidate",
    "candidate_over_baseline",
    "candidate_minus_baseline",
    "baseline_minus_candidate",
    "percent_change_from_baseline",
]
"""How a candidate value ``c`` and its baseline value ``b`` (same unit) combine:

* ``baseline_over_candidate``: ``b / c`` (speedup for times: 100 ms over 50 ms is 2.0);
* ``candidate_over_baseline``: ``c / b`` (relative cost, slowdown);
* ``candidate_minus_baseline``: ``c - b`` (delta, in the metric's unit);
* ``baseline_minus_candidate``: ``b - c`` (saving, in the metric's unit);
* ``percent_change_from_baseline``: ``(c - b) / b * 100`` (percent).
"""

RATIO_FORMULAS: frozenset[str] = frozenset({"baseline_over_candidate", "candidate_over_baseline"})
DIFFERENCE_FORMULAS: frozenset[str] = frozenset(
    {"candidate_minus_baseline", "baseline_minus_candidate"}
)


def apply_formula(formula: PairedFormula, baseline: float, candidate: float) -> float:
    """``formula`` applied to ``baseline`` (``b``) and ``candidate`` (``c``).

    Raises ``ZeroDivisionError`` when the denominator (``c`` for
    ``baseline_over_candidate``, ``b`` for ``candidate_over_baseline`` and
    ``percent_change_from_baseline``) is zero.
    """
    if formula == "baseline_over_candidate":
        return baseline / candidate
    if formula == "candidate_over_baseline":
        return candidate / baseline
    if formula == "candidate_minus_baseline":
        return candidate - baseline
    if formula == "baseline_minus_candidate":
        return baseline - candidate
    return (candidate - baseline) / baseline * 100.0


def default_unit(formula: PairedFormula, metric_unit: str | None) -> str | None:
    """The unit of a formula's result: ``ratio``, ``percent``, or the metric's unit."""
    if formula in RATIO_FORMULAS:
        return "ratio"
    if formula == "percent_change_from_baseline":
        return "percent"
    return metric_unit


class ComparisonVerdict(StrEnum):
    """The verdict on a candidate against its baseline (see :func:`verdict`)."""

    IMPROVED = "improved"
    REGRESSED = "regressed"
    UNCHANGED = "unchanged"
    INCONCLUSIVE = "inconclusive"


def verdict(
    baseline: float, candidate: float, direction: Direction | None, noise_pct: float
) -> ComparisonVerdict:
    """Judge ``candidate`` against ``baseline`` with a relative noise band.

    With ``r = (c - b) / |b| * 100``: ``unchanged`` when ``c == b`` or
    ``|r| <= noise_pct``; otherwise ``improved`` when ``c`` moved in the
    better direction (lower for ``minimize``, higher for ``maximize``) and
    ``regressed`` when it moved the other way. ``inconclusive`` when the
    direction is unknown, a value is NaN, or ``b == 0`` while ``c != 0``
    (the relative change is undefined).
    """
    if math.isnan(baseline) or math.isnan(candidate):
        return ComparisonVerdict.INCONCLUSIVE
    if candidate == baseline:
        return ComparisonVerdict.UNCHANGED
    if baseline == 0 or direction is None:
        return ComparisonVerdict.INCONCLUSIVE
    change = (candidate - baseline) / abs(baseline) * 100.0
    if abs(change) <= noise_pct:
        return ComparisonVerdict.UNCHANGED
    better = candidate < baseline if direction == Direction.MINIMIZE else candidate > baseline
    return ComparisonVerdict.IMPROVED if better else ComparisonVerdict.REGRESSED
