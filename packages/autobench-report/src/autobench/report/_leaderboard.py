"""The leaderboard: one row per variant, its pass rate, one aggregate per column, and the
best variants of each column that has a direction."""

from __future__ import annotations

from collections.abc import Sequence

from autobench.records import Direction, RunStatus
from autobench.report._aggregates import aggregate_column, run_array
from autobench.report._directions import best_variants
from autobench.report._metrics import STATUSES, MetricTable
from autobench.report._model import AggregateValue, Leaderboard, LeaderboardRow, MetricColumn


def _pass_rate(table: MetricTable, runs: Sequence[int]) -> AggregateValue:
    """``ratio_true`` of "the run passed" over every run of the variant."""
    import numpy as np

    # records' ``aggregate("ratio_true", [1.0 or 0.0 per run])``: the share of runs that
    # passed, counted in numpy over the status codes.
    passed = int(np.count_nonzero(table.status_codes()[run_array(runs)] == _PASSED))
    value = passed / len(runs) if len(runs) else None
    return AggregateValue(fn="ratio_true", value=value, n=len(runs), total=len(runs))


_PASSED = STATUSES.index(RunStatus.PASSED)


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
