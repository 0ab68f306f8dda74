"""The leaderboard: one row per variant, its pass rate, one aggregate per column, and the
best variants of each column that has a direction."""

from __future__ import annotations

from collections.abc import Sequence

from autobench.records import Direction, RunStatus, aggregate
from autobench.report._aggregates import aggregate_column
from autobench.report._directions import best_variants
from autobench.report._metrics import MetricTable
from autobench.report._model import AggregateValue, Leaderboard, LeaderboardRow, MetricColumn
from autobench.report._numeric import numeric_aggregate


def _pass_rate(table: MetricTable, runs: Sequence[int]) -> AggregateValue:
    """``ratio_true`` of "the run passed" over every run of the variant."""
    statuses = table.statuses
    passed = [1.0 if statuses[index] is RunStatus.PASSED else 0.0 for index in runs]
    result = numeric_aggregate("ratio_true", passed, len(runs))
    if result is None:  # never for ratio_true; records' aggregate is the reference
        result = aggregate("ratio_true", passed)
    return AggregateValue(fn=result.fn, value=result.value, n=result.n, total=result.total)


def leaderboard(table: MetricTable, columns: Sequence[MetricColumn]) -> Leaderboard:
    """Rows in variant order; each aggregate is over every run of the variant
    (``total`` = its run count, ``n`` = runs with a value)."""
    rows = []
    for variant in table.variants:
        runs = table.by_variant[variant]
        rows.append(
            LeaderboardRow(
                variant=variant,
                runs=len(runs),
                status=table.status_counts(variant),
                pass_rate=_pass_rate(table, runs),
                metrics={
                    item.name: aggregate_column(table, item, runs, scope=f"variant {variant}, ")
                    for item in columns
                },
            )
        )
    best = {
        item.name: best_variants(
            {row.variant: row.metrics[item.name].value for row in rows}, item.direction
        )
        for item in columns
    }
    pass_rates = {row.variant: row.pass_rate.value if row.pass_rate else None for row in rows}
    return Leaderboard(
        columns=tuple(columns),
        rows=tuple(rows),
        best={name: variants for name, variants in best.items() if variants},
        best_pass_rate=best_variants(pass_rates, Direction.MAXIMIZE),
    )
