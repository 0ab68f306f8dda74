"""The leaderboard: one row per variant, one aggregate per column."""

from __future__ import annotations

from collections.abc import Sequence

from autobench.report._aggregates import aggregate_column
from autobench.report._metrics import MetricTable
from autobench.report._model import Leaderboard, LeaderboardRow, MetricColumn


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
                status=table.result.status_counts(variant),
                metrics={
                    item.name: aggregate_column(table, item, runs, scope=f"variant {variant}, ")
                    for item in columns
                },
            )
        )
    return Leaderboard(columns=tuple(columns), rows=tuple(rows))
