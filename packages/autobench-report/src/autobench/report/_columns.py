"""Which metrics a view shows: columns from the report spec, or sensible defaults.

Defaults (used when the spec leaves a view out):

* evaluated columns: one per semantic type whose projected values carry the
  role ``objective`` or ``constraint`` in some run, in order of first
  appearance; the aggregate is ``ratio_true`` when every value present is a
  boolean, else ``mean`` (also when no run has a value: the column then shows
  "no value"); types whose values are all non-numeric (strings) are left out;
* leaderboard and comparisons: the evaluated columns, then the columns that
  answer the usual first questions, each only when some run recorded the type:
  latency (median and p95 of ``time.latency``), tokens (mean ``llm.tokens.input``
  and ``llm.tokens.output`` per run, else mean ``llm.tokens.total``) and cost
  (mean and total ``money.cost``, and under repeats the cost per pass over the dataset:
  the sum over cases of each case's mean), and the total ``judge.cost`` of judge scorers
  (apart from ``money.cost``, which never includes it); an evaluated column that reads the same type
  with the same aggregate as one of these is shown once, under the latter's name;
* matrix: the first evaluated column whose type is an objective, else the first one;
* comparisons: none, except when the experiment has exactly two variants
  (then the first against the second, with the default columns less the judge's cost:
  :func:`comparison_columns`).

Every column carries its direction (see :mod:`autobench.report._directions`).
"""

from __future__ import annotations

from collections.abc import Sequence

from autobench.core.spec import MetricAggregation
from autobench.records import ObservationRole, Semantic
from autobench.report._aggregates import has_repeats
from autobench.report._directions import column_direction
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
    return MetricColumn(
        name=name,
        semantic_type=semantic,
        fn=fn,
        unit=unit,
        direction=column_direction(table, semantic, fn),
    )


def spec_columns(table: MetricTable, metrics: Sequence[MetricAggregation]) -> list[MetricColumn]:
    """Columns for the spec's ``metrics`` (name, semantic type, aggregate)."""
    return [column(table, m.name, m.semantic_type, m.fn) for m in metrics]


def _is_number_kind(kind: type) -> bool:
    """Whether a value of class ``kind`` is a number (an ``int`` or a ``float``, not a
    boolean)."""
    return issubclass(kind, int | float) and not issubclass(kind, bool)


def _kinds(table: MetricTable, semantic_type: str) -> frozenset[type]:
    """The classes of the values of ``semantic_type`` present in any run."""
    values = table.values(semantic_type)
    if values.kinds is not None:
        return values.kinds
    return frozenset(type(value) for value in values.by_run if value is not None)


def default_columns(table: MetricTable) -> list[MetricColumn]:
    """The evaluated columns (see the module docstring); computed once per table."""
    cached = table.memo.get("default_columns")
    if cached is None:
        cached = table.memo["default_columns"] = _default_columns(table)
    return list(cached)


def _default_columns(table: MetricTable) -> list[MetricColumn]:
    columns: list[MetricColumn] = []
    for semantic in table.semantic_types:
        if not table.roles(semantic) & _EVALUATED:
            continue
        kinds = _kinds(table, semantic)
        if kinds and all(issubclass(kind, bool) for kind in kinds):
            columns.append(column(table, semantic, semantic, "ratio_true"))
        elif not kinds or any(_is_number_kind(kind) for kind in kinds):
            columns.append(column(table, semantic, semantic, "mean"))
    return columns


_LATENCY = (("latency median", "median"), ("latency p95", "p95"))
_TOKENS = (
    ("input tokens mean", Semantic.LLM_TOKENS_INPUT),
    ("output tokens mean", Semantic.LLM_TOKENS_OUTPUT),
)
_COST = (("cost mean", "mean"), ("cost total", "sum"))
_COST_PER_PASS = ("cost per pass", "per_pass")
"""Under repeats, beside the total: the expected cost of one pass over the dataset."""


def _recorded(table: MetricTable, semantic_type: str) -> bool:
    return any(_is_number_kind(kind) for kind in _kinds(table, semantic_type))


def _usual_columns(table: MetricTable) -> list[MetricColumn]:
    """Latency, tokens and cost columns for the types some run recorded as numbers."""
    columns: list[MetricColumn] = []
    if _recorded(table, Semantic.TIME_LATENCY):
        columns += [column(table, name, Semantic.TIME_LATENCY, fn) for name, fn in _LATENCY]
    tokens = [(name, semantic) for name, semantic in _TOKENS if _recorded(table, semantic)]
    if not tokens and _recorded(table, Semantic.LLM_TOKENS_TOTAL):
        tokens = [("tokens mean", Semantic.LLM_TOKENS_TOTAL)]
    columns += [column(table, name, semantic, "mean") for name, semantic in tokens]
    if _recorded(table, Semantic.MONEY_COST):
        cost = [*_COST, _COST_PER_PASS] if has_repeats(table) else _COST
        columns += [column(table, name, Semantic.MONEY_COST, fn) for name, fn in cost]
    if _recorded(table, Semantic.JUDGE_COST):  # what grading cost, never in the cost above
        columns.append(column(table, "judge cost total", Semantic.JUDGE_COST, "sum"))
    return columns


def summary_columns(table: MetricTable) -> list[MetricColumn]:
    """The default leaderboard and comparison columns (see the module docstring);
    computed once per table."""
    cached = table.memo.get("summary_columns")
    if cached is None:
        usual = _usual_columns(table)
        shown = {(item.semantic_type, item.fn) for item in usual}
        evaluated = [
            item for item in default_columns(table) if (item.semantic_type, item.fn) not in shown
        ]
        cached = table.memo["summary_columns"] = [*evaluated, *usual]
    return list(cached)


def comparison_columns(table: MetricTable) -> list[MetricColumn]:
    """The default comparison columns: :func:`summary_columns` less what grading cost
    (``judge.cost``). A judge's spend is what the evaluation cost, not an outcome of the
    variant: tested beside the objectives it would only widen the Holm adjustment of every
    verdict. The leaderboard still shows it."""
    return [
        item
        for item in summary_columns(table)
        if Semantic.JUDGE_COST not in table.registry.ancestors(item.semantic_type)
    ]


def default_matrix_metric(table: MetricTable, columns: Sequence[MetricColumn]) -> str | None:
    """The default matrix metric: the first column whose type has the role objective, else
    the first column's type, else ``None`` (no matrix)."""
    for item in columns:
        if ObservationRole.OBJECTIVE in table.roles(item.semantic_type):
            return item.semantic_type
    return columns[0].semantic_type if columns else None
