"""Distributions: the values of one semantic metric per variant, with summary aggregates."""

from __future__ import annotations

from collections.abc import Sequence

from autobench.report._aggregates import aggregate_column
from autobench.report._columns import column
from autobench.report._metrics import MetricTable
from autobench.report._model import Distribution, VariantDistribution


def distribution(
    table: MetricTable, name: str, semantic_type: str, summaries: Sequence[str]
) -> Distribution:
    """Per variant: the numeric values (booleans as ``1.0``/``0.0``, other values left
    out) in run order, and one aggregate per name in ``summaries``."""
    values = table.values(semantic_type)
    variants: dict[str, VariantDistribution] = {}
    for variant in table.variants:
        runs = table.by_variant[variant]
        numbers = tuple(
            float(values.by_run[index])
            for index in runs
            if isinstance(values.by_run[index], int | float)
        )
        variants[variant] = VariantDistribution(
            values=numbers,
            summaries={
                fn: aggregate_column(
                    table,
                    column(table, fn, values.semantic_type, fn),
                    runs,
                    scope=f"distribution {name}, variant {variant}, ",
                )
                for fn in summaries
            },
        )
    return Distribution(
        name=name,
        semantic_type=values.semantic_type,
        unit=values.unit,
        summaries=tuple(summaries),
        variants=variants,
    )
