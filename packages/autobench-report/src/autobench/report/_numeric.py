"""Aggregates of a column whose values are all plain numbers, without records' per-value checks.

Records' :func:`~autobench.records.aggregate` checks every value (``None``, NaN, booleans,
infinities, integers too large for a float, non-numeric values) before it aggregates. The
metric table checks a column once (:attr:`MetricValues.numbers`: every value present is a
boolean or a number that is finite as a float, as floats), so an aggregate over its runs
only has to drop the runs without a value. The functions are records' own
(:data:`autobench.records._aggregate.PLAIN_FUNCTIONS`); whatever would give a diagnostic
there (``stddev`` of fewer than two values, a ``geomean`` of a value <= 0, an overflow) is left to
``aggregate`` itself: :func:`numeric_aggregate` then answers ``None``.
"""

from __future__ import annotations

import math
import statistics

from autobench.records import Aggregate
from autobench.records._aggregate import PLAIN_FUNCTIONS


def numeric_aggregate(fn: str, numbers: list[float], total: int) -> Aggregate | None:
    """``aggregate(fn, values)`` for ``values`` whose present ones are ``numbers`` (floats,
    each finite; booleans as ``1.0``/``0.0``) out of ``total``; ``None`` when only records'
    ``aggregate`` can say (an unknown function, or one that would give a diagnostic)."""
    n = len(numbers)
    if fn == "count":
        return Aggregate(fn, n, n, total)
    if fn == "ratio_true":
        # The values that are not 0 (none is NaN), counted in C: ``x != 0`` as records'.
        value = (n - numbers.count(0.0)) / n if numbers else None
        return Aggregate(fn, value, n, total)
    if not numbers:
        return Aggregate(fn, None, 0, total) if fn in PLAIN_FUNCTIONS or fn in _CHECKED else None
    try:
        if fn in PLAIN_FUNCTIONS:
            value = float(PLAIN_FUNCTIONS[fn](numbers))
        elif fn == "stddev" and n >= 2:
            value = statistics.stdev(numbers)
        elif fn == "geomean" and all(x > 0 for x in numbers):
            value = statistics.geometric_mean(numbers)
        else:
            return None
    except (ArithmeticError, ValueError):
        return None
    return Aggregate(fn, value, n, total) if math.isfinite(value) else None


_CHECKED = frozenset({"stddev", "geomean"})
