"""Aggregating a column over a set of runs of the metric table."""

from __future__ import annotations

from collections.abc import Sequence

from autobench.records import aggregate
from autobench.report._metrics import MetricTable
from autobench.report._model import AggregateValue, MetricColumn


def aggregate_column(
    table: MetricTable, item: MetricColumn, runs: Sequence[int], *, scope: str
) -> AggregateValue:
    """``item.fn`` over the values of ``item.semantic_type`` in the runs at indices ``runs``
    (``total = len(runs)``); diagnostics go to the table, prefixed with ``scope``."""
    by_run = table.values(item.semantic_type).by_run
    result = aggregate(
        item.fn,
        [by_run[index] for index in runs],
        labels=[f"run {table.runs[index].run_id}" for index in runs],
        context=f"{scope}{item.semantic_type}: ",
    )
    table.note(result.diagnostics)
    return AggregateValue(
        fn=item.fn, value=result.value, n=result.n, total=result.total, unit=item.unit
    )
