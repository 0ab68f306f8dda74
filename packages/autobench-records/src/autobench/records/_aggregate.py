"""Aggregates of one metric over runs: ``count``, ``mean``, ``sum``, ``per_pass``, ``min``,
``max``, ``median``, ``p95``, ``stddev``, ``geomean`` and ``ratio_true``.

Which values take part (the same rule for every function):

* ``None`` (a run without the metric) and NaN are skipped and not counted in ``n``;
* infinities and integers too large for a float are skipped with a diagnostic
  (they are not measurements a mean or a percentile can use); a result that
  overflows is no value, with a diagnostic;
* booleans count as ``1``/``0`` for the numeric functions;
* other non-numeric values (strings, mappings, lists) are skipped with a
  diagnostic (``count`` counts them: it counts values present, of any type);
* ``n`` is the number of values used, ``total`` the number of runs considered
  (``len(values)`` unless given).

An aggregate over no values has ``value=None`` ("no value"), never ``0``, for
every function, ``sum`` included. The one exception is ``count``, which is ``0``
(zero values are present) with ``n=0``.

Definitions and sources (``x`` = the values used, sorted where it matters):

``count``
    Number of values present (``n``).
``mean``
    Arithmetic mean, :func:`statistics.fmean`.
``sum``
    Exact-rounded sum, :func:`math.fsum`.
``per_pass``
    The same sum over values that are one per case: reports first reduce each case's
    repeats to their mean, so this is the expected total of one pass over the dataset
    (``sum`` in reports is over every recorded run: what was spent).
``min`` / ``max``
    Smallest / largest value.
``median``
    :func:`statistics.median` (mean of the two middle values for even ``n``).
``p95``
    The 95th percentile with linear interpolation between order statistics:
    Hyndman & Fan (1996) type 7, numpy's default ``method="linear"``, computed as
    ``statistics.quantiles(x, n=100, method="inclusive")[94]``; with one value,
    that value.
``stddev``
    Sample standard deviation (divisor ``n - 1``), :func:`statistics.stdev`;
    no value (with a diagnostic) when ``n < 2``.
``geomean``
    Geometric mean ``exp(mean(log x))``, :func:`statistics.geometric_mean`;
    defined only for positive values: any zero or negative value makes it no
    value, with a diagnostic.
``ratio_true``
    Share of true values: booleans as they are, numbers true when non-zero
    (the rule that fails a constraint on ``False`` or ``0``); ``n`` counts both.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from autobench.abp import AutobenchError

AGGREGATIONS: tuple[str, ...] = (
    "count",
    "mean",
    "sum",
    "per_pass",
    "min",
    "max",
    "median",
    "p95",
    "stddev",
    "geomean",
    "ratio_true",
)
"""Names of the aggregate functions, in documentation order."""


class UnknownAggregationError(AutobenchError, ValueError):
    """An aggregate function name that is not one of :data:`AGGREGATIONS`."""


@dataclass(frozen=True, slots=True)
class Aggregate:
    """The result of :func:`aggregate`: ``value`` (``None`` = no value) of function ``fn``
    over ``n`` values out of ``total`` runs, and why values were left out."""

    fn: str
    value: float | int | None
    n: int
    total: int
    diagnostics: tuple[str, ...] = ()


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _numbers(
    values: Sequence[Any], labels: Sequence[str], context: str
) -> tuple[list[float], list[str]]:
    numbers: list[float] = []
    diagnostics: list[str] = []
    for index, value in enumerate(values):
        if value is None or _is_nan(value):
            continue
        where = labels[index] if index < len(labels) else f"value {index}"
        if isinstance(value, bool | int | float):
            try:
                number = float(value)
            except OverflowError:
                diagnostics.append(f"{context}{where}: integer too large for a float skipped")
                continue
            if math.isinf(number):
                diagnostics.append(f"{context}{where}: infinite value skipped")
                continue
            numbers.append(number)
            continue
        diagnostics.append(
            f"{context}{where}: non-numeric value {value!r} ({type(value).__name__}) skipped"
        )
    return numbers, diagnostics


def _p95(values: list[float]) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[94]


def _stddev(values: list[float]) -> tuple[float | None, str | None]:
    if len(values) < 2:
        return None, f"stddev needs at least 2 values, got {len(values)}"
    return statistics.stdev(values), None


def _geomean(values: list[float]) -> tuple[float | None, str | None]:
    if any(value <= 0 for value in values):
        return (
            None,
            "geomean is only defined for positive values; a zero or negative value is present",
        )
    return statistics.geometric_mean(values), None


PLAIN_FUNCTIONS: dict[str, Callable[[list[float]], float]] = {
    "mean": statistics.fmean,
    "sum": math.fsum,
    "per_pass": math.fsum,
    "min": min,
    "max": max,
    "median": statistics.median,
    "p95": _p95,
}
"""The aggregates that need no check beyond the values being finite numbers, by name
(also what the report's metric table applies to a column it has checked once)."""

_CHECKED: dict[str, Callable[[list[float]], tuple[float | None, str | None]]] = {
    "stddev": _stddev,
    "geomean": _geomean,
}


def aggregate(
    fn: str,
    values: Sequence[Any],
    *,
    total: int | None = None,
    labels: Sequence[str] = (),
    context: str = "",
) -> Aggregate:
    """Aggregate ``values`` with function ``fn`` (see the module docstring for each definition).

    ``labels`` (parallel to ``values``, usually run ids) and ``context`` (for
    example ``"quality.score: "``) name the values in diagnostics. Raises
    :class:`UnknownAggregationError` for an unknown ``fn``.
    """
    total = len(values) if total is None else total
    if fn == "count":
        n = sum(1 for value in values if value is not None and not _is_nan(value))
        return Aggregate(fn, n, n, total)
    if fn == "ratio_true":
        numbers, diagnostics = _numbers(values, labels, context)
        value = sum(1 for x in numbers if x != 0) / len(numbers) if numbers else None
        return Aggregate(fn, value, len(numbers), total, tuple(diagnostics))
    if fn not in PLAIN_FUNCTIONS and fn not in _CHECKED:
        raise UnknownAggregationError(
            f"unknown aggregate {fn!r}; known aggregates: {', '.join(AGGREGATIONS)}"
        )
    numbers, diagnostics = _numbers(values, labels, context)
    if not numbers:
        return Aggregate(fn, None, 0, total, tuple(diagnostics))
    try:
        if fn in PLAIN_FUNCTIONS:
            result: float | None = float(PLAIN_FUNCTIONS[fn](numbers))
        else:
            result, problem = _CHECKED[fn](numbers)
            if problem is not None:
                diagnostics.append(f"{context}{problem}")
    except (ArithmeticError, ValueError) as error:  # fsum and statistics overflow on huge values
        diagnostics.append(f"{context}{fn} could not be computed: {error}")
        result = None
    if result is not None and not math.isfinite(result):
        diagnostics.append(f"{context}{fn} overflows a float")
        result = None
    return Aggregate(fn, result, len(numbers), total, tuple(diagnostics))
