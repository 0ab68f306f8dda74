"""The headline: each comparison's answer in one line, and the Pareto front of the variants.

Built from report models only (comparisons and the leaderboard), so a report of one
experiment and a comparison of two experiments get it the same way, and every format
(terminal, ``run``'s closing output, ``compare``, Markdown, HTML) renders this one model
(:mod:`autobench.report._headline_text`).

A comparison's items, in this order:

* ``quality``: one per objective or constraint type the comparison has (its first column),
  when its statistics have a direction;
* ``cost``: the ``mean`` column of ``money.cost`` (or a child type): the cost of a case
  (else its ``per_pass``, else its ``sum``);
* ``latency``: the ``median`` column of ``time.latency`` (or a child type), else its
  ``mean``, ``p95`` or ``max``;
* ``pairwise``: one per pairwise judging of the same pair stored beside the record (the
  candidate's win rate, its Wilson interval and the sign test's verdict), added by
  :func:`autobench.report._pairwise.with_pairwise` when the report is built.

The Pareto front is taken over the leaderboard's first quality column with a direction
(else the pass rate), its cost and its latency columns in the same order of preference
(whichever exist, at
least two axes, at least two variants with a value on every axis): a variant is dominated
when another is at least as good on every axis and better on one (Pareto 1906; the usual
definition of multi-objective optimisation, e.g. Deb, *Multi-Objective Optimization using
Evolutionary Algorithms*, 2001, §2.4).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from autobench.records import Direction, Semantic
from autobench.report._columns import default_columns
from autobench.report._metrics import MetricTable
from autobench.report._model import (
    Comparison,
    ComparisonMetric,
    Headline,
    HeadlineComparison,
    HeadlineItem,
    Leaderboard,
    MetricColumn,
    ParetoAxis,
    ParetoFront,
)

Kind = Callable[[str], str | None]
"""``semantic_type -> "quality" | "cost" | "latency" | None``."""

_PREFERRED_FN = {
    "cost": ("mean", "per_pass", "sum"),
    "latency": ("median", "mean", "p95", "max"),
}
"""The aggregates a cost or latency item is read from, in order of preference."""
PASS_RATE = "pass rate"
"""The name of the pass-rate axis (every leaderboard row has one)."""


def kind_of(objectives: Collection[str], ancestors: Callable[[str], Sequence[str]]) -> Kind:
    """The kind of a semantic type: ``cost`` and ``latency`` for ``money.cost`` and
    ``time.latency`` and their children (``ancestors(type)`` lists the type and its
    parents), even when a spec makes them objectives; ``quality`` for the other
    ``objectives`` (objective and constraint types); else ``None``."""

    def kind(semantic_type: str) -> str | None:
        lineage = ancestors(semantic_type)
        if Semantic.MONEY_COST in lineage:
            return "cost"
        if Semantic.TIME_LATENCY in lineage:
            return "latency"
        return "quality" if semantic_type in objectives else None

    return kind


def headline_kinds(table: MetricTable) -> Kind:
    """The kind of each semantic type of ``table``: its objective and constraint types are
    ``quality``; cost and latency by the registry's type hierarchy."""
    objectives = {item.semantic_type for item in default_columns(table)}
    return kind_of(objectives, lambda semantic: tuple(table.registry.ancestors(semantic)))


def _pick(metrics: Sequence[ComparisonMetric], kind: Kind, wanted: str) -> ComparisonMetric | None:
    candidates = [metric for metric in metrics if kind(metric.semantic_type) == wanted]
    for fn in _PREFERRED_FN[wanted]:
        for metric in candidates:
            if metric.fn == fn:
                return metric
    return None


def _item(kind: str, metric: ComparisonMetric) -> HeadlineItem:
    before, after = metric.baseline.value, metric.candidate.value
    ratio = None
    if isinstance(before, int | float) and isinstance(after, int | float) and before > 0 < after:
        ratio = after / before
    statistics = metric.statistics
    return HeadlineItem(
        kind=kind,
        name=metric.name,
        semantic_type=metric.semantic_type,
        fn=metric.fn,
        unit=metric.unit,
        baseline=before,
        candidate=after,
        delta=metric.delta,
        ratio=ratio,
        estimate=None if statistics is None else statistics.estimate,
        interval_of=None if statistics is None else statistics.interval_of,
        exact=statistics is not None and statistics.test == "exact",
        ci_low=None if statistics is None else statistics.ci_low,
        ci_high=None if statistics is None else statistics.ci_high,
        level=None if statistics is None else statistics.level,
        verdict=None if statistics is None else statistics.verdict,
        note=None if statistics is None else statistics.note,
    )


def comparison_headline(comparison: Comparison, kind: Kind) -> HeadlineComparison:
    """The headline of ``comparison`` (module docstring)."""
    items: list[HeadlineItem] = []
    seen: set[str] = set()
    for metric in comparison.metrics:
        if kind(metric.semantic_type) != "quality" or metric.semantic_type in seen:
            continue
        seen.add(metric.semantic_type)
        if metric.statistics is not None and metric.statistics.direction is not None:
            items.append(_item("quality", metric))
    for wanted in ("cost", "latency"):
        picked = _pick(comparison.metrics, kind, wanted)
        if picked is not None:
            items.append(_item(wanted, picked))
    return HeadlineComparison(
        baseline=comparison.baseline,
        candidate=comparison.candidate,
        paired_cases=len(comparison.paired_cases),
        confounded=comparison.confounded,
        items=tuple(items),
    )


def _axes(leaderboard: Leaderboard, kind: Kind) -> list[ParetoAxis]:
    columns = leaderboard.columns
    quality = next(
        (
            column
            for column in columns
            if kind(column.semantic_type) == "quality" and column.direction is not None
        ),
        None,
    )
    axes = [
        _axis("quality", quality)
        if quality is not None
        else ParetoAxis(
            kind="quality",
            name=PASS_RATE,
            semantic_type=Semantic.RESULT_SUCCESS,
            fn="ratio_true",
            direction=Direction.MAXIMIZE,
        )
    ]
    for wanted in ("cost", "latency"):
        matching = [column for column in columns if kind(column.semantic_type) == wanted]
        for fn in _PREFERRED_FN[wanted]:
            found = next((column for column in matching if column.fn == fn), None)
            if found is not None:
                axes.append(_axis(wanted, found))
                break
    return axes


def _axis(kind: str, column: MetricColumn) -> ParetoAxis:
    direction = column.direction or (
        Direction.MAXIMIZE if kind == "quality" else Direction.MINIMIZE
    )
    return ParetoAxis(
        kind=kind,
        name=column.name,
        semantic_type=column.semantic_type,
        fn=column.fn,
        unit=column.unit,
        direction=direction,
    )


def _value(leaderboard: Leaderboard, variant: str, axis: ParetoAxis) -> float | None:
    row = next(row for row in leaderboard.rows if row.variant == variant)
    aggregate = row.pass_rate if axis.name == PASS_RATE and axis.kind == "quality" else None
    if aggregate is None:
        aggregate = row.metrics.get(axis.name)
    value = None if aggregate is None else aggregate.value
    return float(value) if isinstance(value, int | float) else None


def dominates(first: Sequence[float], second: Sequence[float]) -> bool:
    """Whether ``first`` is at least as good as ``second`` on every axis and better on one
    (both already oriented so that larger is better)."""
    pairs = list(zip(first, second, strict=True))
    return all(a >= b for a, b in pairs) and any(a > b for a, b in pairs)


def pareto_front(leaderboard: Leaderboard, kind: Kind) -> ParetoFront | None:
    """The Pareto front of the leaderboard's variants (module docstring), or ``None`` with
    fewer than two axes or fewer than two variants with a value on every axis."""
    axes = _axes(leaderboard, kind)
    if len(axes) < 2:
        return None
    points: dict[str, list[float]] = {}
    for row in leaderboard.rows:
        values = [_value(leaderboard, row.variant, axis) for axis in axes]
        if all(value is not None for value in values):
            points[row.variant] = [
                value if axis.direction is Direction.MAXIMIZE else -value
                for value, axis in zip(values, axes, strict=True)
                if value is not None
            ]
    if len(points) < 2:
        return None
    dominated = {
        variant: tuple(
            other
            for other, theirs in points.items()
            if other != variant and dominates(theirs, mine)
        )
        for variant, mine in points.items()
    }
    return ParetoFront(
        axes=tuple(axes),
        front=tuple(variant for variant, by in dominated.items() if not by),
        dominated={variant: by for variant, by in dominated.items() if by},
    )


def build_headline(
    comparisons: Sequence[Comparison], leaderboard: Leaderboard | None, kind: Kind
) -> Headline:
    """The headline of a report: one :class:`HeadlineComparison` per comparison, and the
    Pareto front of ``leaderboard`` (``None`` for a comparison of two experiments)."""
    return Headline(
        comparisons=tuple(comparison_headline(item, kind) for item in comparisons),
        pareto=None if leaderboard is None else pareto_front(leaderboard, kind),
    )
