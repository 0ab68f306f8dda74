"""Aggregating a column over a set of runs of the metric table.

Repeats (``repeat: K``) give a case several runs of one variant. Two kinds of aggregate
follow, and each is named for what it is:

* over every recorded run, not reduced (``n`` and ``total`` count runs): ``sum`` (what was
  spent or counted in all, so 15 runs at $0.00019 are $0.00285) and ``count`` (values
  present in every run);
* per case first (``n`` and ``total`` count cases): each case's repeats are reduced to one
  value, then the function runs over those per-case values, so a case weighs the same
  however many of its repeats were recorded. ``ratio_true`` takes, per case, the share of
  true values, then their mean; every other function (``mean``, ``per_pass``, ``min``,
  ``max``, ``median``, ``p95``, ``stddev``, ``geomean``) takes, per case, the mean of its
  repeats' numeric values (booleans as ``1``/``0``). ``per_pass`` is the sum of those
  means: the expected total of one pass over the dataset.

With every case run ``K`` times, ``mean`` and ``ratio_true`` equal the same function over
the runs, and ``sum`` is ``K`` times ``per_pass``. The aggregate's ``spread`` is the mean,
over the cases with at least two numeric values, of the sample standard deviation of those
values: how far apart repeats of one case land. Without repeats (one run per case) nothing
of this applies and the aggregate is exactly the function over the runs.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

from autobench.records import aggregate
from autobench.report._metrics import MetricTable
from autobench.report._model import AggregateValue, MetricColumn
from autobench.report._numeric import numeric_aggregate

OVER_RUNS = frozenset({"count", "sum"})
"""Aggregates taken over every recorded run, never reduced per case first."""


def case_groups(table: MetricTable, runs: Sequence[int]) -> dict[str, Sequence[int]]:
    """The run indices ``runs`` grouped by case id, in first-seen order (the repeats of a
    case, in plan order, together); computed once per set of runs, as every column of a
    leaderboard row or comparison side aggregates the same runs. A case of one run holds a
    tuple (48 bytes, where a list took about 90: 40 MB per grouping of a million runs), of
    several a list. Do not modify the result."""
    memo: dict[tuple[int, ...], dict[str, Sequence[int]]]
    memo = table.memo.setdefault("case_groups", {})
    key = tuple(runs)
    groups = memo.get(key)
    if groups is None:
        groups = memo[key] = {}
        case_ids = table.case_ids
        for index in runs:
            case = case_ids[index]
            found = groups.get(case)
            if found is None:
                groups[case] = (index,)
            elif isinstance(found, tuple):
                groups[case] = [*found, index]
            else:
                found.append(index)  # type: ignore[attr-defined]
    return groups


def has_repeats(table: MetricTable) -> bool:
    """Whether some case has more than one run of one variant (``repeat: K``); memoised."""
    cached = table.memo.get("has_repeats")
    if cached is None:
        cached = table.memo["has_repeats"] = any(
            len(case_groups(table, runs)) != len(runs) for runs in table.by_variant.values()
        )
    return bool(cached)


def _numbers(values: Sequence[Any]) -> list[float]:
    return [
        float(value)
        for value in values
        if isinstance(value, bool | int | float) and math.isfinite(float(value))
    ]


def repeat_value(fn: str, values: Sequence[Any]) -> Any:
    """One case's value from the values of its repeats (``None``: no run has one): the
    share of true values for ``ratio_true``, else the mean of the numeric values; a
    non-numeric value is passed on as it is (the aggregate then reports it)."""
    present = [value for value in values if value is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    if fn == "ratio_true":
        flags = [bool(value) for value in present if isinstance(value, bool | int | float)]
        return sum(flags) / len(flags) if flags else present[0]
    numbers = _numbers(present)
    return statistics.fmean(numbers) if numbers else present[0]


def repeat_spread(values_by_case: Sequence[Sequence[Any]]) -> float | None:
    """The mean over cases of the sample standard deviation of their repeats' numeric
    values (cases with fewer than two such values are left out; ``None``: no case has two)."""
    spreads = [
        statistics.stdev(numbers)
        for values in values_by_case
        if len(numbers := _numbers([value for value in values if value is not None])) >= 2
    ]
    return statistics.fmean(spreads) if spreads else None


def aggregate_column(
    table: MetricTable, item: MetricColumn, runs: Sequence[int], *, scope: str
) -> AggregateValue:
    """``item.fn`` over the values of ``item.semantic_type`` in the runs at indices ``runs``:
    ``count`` and ``sum`` over every run (``total = len(runs)``), every other function over
    each case's repeats first reduced to one value (``total`` = cases; see the module
    docstring); diagnostics go to the table, prefixed with ``scope``."""
    values = table.values(item.semantic_type)
    by_run, numbers = values.by_run, values.numbers
    groups = case_groups(table, runs)
    context = f"{scope}{item.semantic_type}: "
    if item.fn in OVER_RUNS or len(groups) == len(runs):
        result = None
        if numbers is not None:
            # NaN marks a run without a value (x != x): no value present is NaN.
            present = [x for index in runs if (x := numbers[index]) == x]
            result = numeric_aggregate(item.fn, present, len(runs))
        if result is None:
            result = aggregate(
                item.fn,
                [by_run[index] for index in runs],
                labels=[table.run_labels[index] for index in runs],
                context=context,
            )
        spread = None
        if item.fn != "count" and len(groups) != len(runs):
            spread = repeat_spread(
                [[by_run[index] for index in group] for group in groups.values()]
            )
    else:
        values_by_case = [[by_run[index] for index in group] for group in groups.values()]
        result = aggregate(
            "mean" if item.fn == "ratio_true" else item.fn,
            [repeat_value(item.fn, values) for values in values_by_case],
            labels=[f"case {case}" for case in groups],
            context=context,
        )
        spread = repeat_spread(values_by_case)
    table.note(result.diagnostics)
    return AggregateValue(
        fn=item.fn,
        value=result.value,
        n=result.n,
        total=result.total,
        unit=item.unit,
        spread=spread,
    )
