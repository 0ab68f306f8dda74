"""Which way is better for a report column, and which variants are best at it.

A column's direction is the one its observations declare (``direction:`` on a
score or metric). When none declares one, the types every report asks about
have a built-in direction, inherited by their child types: less time, tokens,
requests and money are better, more success is better. Aggregates that
describe spread or presence (``count``, ``stddev``) have no direction.
"""

from __future__ import annotations

from collections.abc import Mapping

from autobench.records import Direction, Semantic
from autobench.report._metrics import MetricTable

UNDIRECTED = frozenset({"count", "stddev"})
"""Aggregates that describe spread or presence: no direction, nothing to test."""

_BUILT_IN: dict[str, Direction] = {
    Semantic.TIME_LATENCY: Direction.MINIMIZE,
    Semantic.MONEY_COST: Direction.MINIMIZE,
    Semantic.LLM_TOKENS_INPUT: Direction.MINIMIZE,
    Semantic.LLM_TOKENS_OUTPUT: Direction.MINIMIZE,
    Semantic.LLM_TOKENS_TOTAL: Direction.MINIMIZE,
    Semantic.LLM_REQUEST_COUNT: Direction.MINIMIZE,
    Semantic.RESULT_SUCCESS: Direction.MAXIMIZE,
}


def column_direction(table: MetricTable, semantic_type: str, fn: str) -> Direction | None:
    """The direction of ``fn`` over ``semantic_type``: the one its observations declare,
    else the built-in one of the type or its nearest ancestor; ``None`` when runs declare
    different directions, when none is known, or for an undirected aggregate."""
    if fn in UNDIRECTED:
        return None
    declared = table.directions(semantic_type)
    if declared:
        return next(iter(declared)) if len(declared) == 1 else None
    for ancestor in table.registry.ancestors(semantic_type):
        if ancestor in _BUILT_IN:
            return _BUILT_IN[ancestor]
    return None


def best_variants(
    values: Mapping[str, float | int | None], direction: Direction | None
) -> tuple[str, ...]:
    """The variants whose value is best in ``direction`` (every tied one), in the order of
    ``values``; empty without a direction, with fewer than two values, or when every
    value is the same (nothing stands out)."""
    present = {variant: value for variant, value in values.items() if value is not None}
    if direction is None or len(present) < 2 or len(set(present.values())) == 1:
        return ()
    pick = max if direction is Direction.MAXIMIZE else min
    best = pick(present.values())
    return tuple(variant for variant, value in present.items() if value == best)
