"""Which metrics a view shows: columns from the report spec, or sensible defaults.

Defaults (used when the spec leaves a view out):

* leaderboard: one column per semantic type whose projected values carry the
  role ``objective`` or ``constraint`` in some run, in order of first
  appearance; the aggregate is ``ratio_true`` when every value present is a
  boolean, else ``mean`` (also when no run has a value: the column then shows
  "no value"); types whose values are all non-numeric (strings) are left out;
* matrix: the first default column whose type is an objective, else the first one;
* comparisons: none, except when the experiment has exactly two variants
  (then the first against the second, with the default columns).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autobench.core.spec import MetricAggregation
from autobench.records import ObservationRole
from autobench.report._metrics import MetricTable
from autobench.report._model import MetricColumn

_UNITLESS = frozenset({"count", "ratio_true"})
"""Aggregates whose value is not in the metric's unit."""

_EVALUATED = frozenset({ObservationRole.OBJECTIVE, ObservationRole.CONSTRAINT})


def column(table: MetricTable, name: str, semantic_type: str, fn: str) -> MetricColumn:
    """A column reading ``semantic_type`` (normalised) with aggregate ``fn``; its unit is the
    metric's unit, or ``None`` for ``count`` and ``ratio_true``."""
    semantic = table.normalize(semantic_type)
    unit = None if fn in _UNITLESS else table.values(semantic).unit
    return MetricColumn(name=name, semantic_type=semantic, fn=fn, unit=unit)


def spec_columns(table: MetricTable, metrics: Sequence[MetricAggregation]) -> list[MetricColumn]:
    """Columns for the spec's ``metrics`` (name, semantic type, aggregate)."""
    return [column(table, m.name, m.semantic_type, m.fn) for m in metrics]


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def default_columns(table: MetricTable) -> list[MetricColumn]:
    """The default leaderboard columns (see the module docstring); computed once per table."""
    cached = table.memo.get("default_columns")
    if cached is None:
        cached = table.memo["default_columns"] = _default_columns(table)
    return list(cached)


def _default_columns(table: MetricTable) -> list[MetricColumn]:
    columns: list[MetricColumn] = []
    for semantic in table.semantic_types:
        if not table.roles(semantic) & _EVALUATED:
            continue
        present = [value for value in table.values(semantic).by_run if value is not None]
        if present and all(_is_bool(value) for value in present):
            columns.append(column(table, semantic, semantic, "ratio_true"))
        elif not present or any(_is_number(value) for value in present):
            columns.append(column(table, semantic, semantic, "mean"))
    return columns


def default_matrix_metric(table: MetricTable, columns: Sequence[MetricColumn]) -> str | None:
    """The default matrix metric: the first column whose type has the role objective, else
    the first column's type, else ``None`` (no matrix)."""
    for item in columns:
        if ObservationRole.OBJECTIVE in table.roles(item.semantic_type):
            return item.semantic_type
    return columns[0].semantic_type if columns else None
