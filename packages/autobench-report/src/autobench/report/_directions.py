"""Which way is better for a report column, and which variants are best at it.

A column's direction is the one its observations declare (``direction:`` on a
score or metric, a scorer's ``goal``). When none declares one, the semantic catalog
says (:meth:`~autobench.records.SemanticRegistry.direction_of`): a type's own or
inherited ``direction``, else its namespace's (``quality.*`` and ``result.*``
maximize, ``time.*`` and ``money.*`` minimize); tokens and requests minimize.
Aggregates that describe spread or presence (``count``, ``stddev``) have no
direction.
"""

from __future__ import annotations

from collections.abc import Mapping

from autobench.records import Direction
from autobench.report._metrics import MetricTable

UNDIRECTED = frozenset({"count", "stddev"})
"""Aggregates that describe spread or presence: no direction, nothing to test."""


def column_direction(table: MetricTable, semantic_type: str, fn: str) -> Direction | None:
    """The direction of ``fn`` over ``semantic_type``: the one its observations declare,
    else the catalog's (the type's, an ancestor's or its namespace's); ``None`` when runs
    declare different directions, when none is known, or for an undirected aggregate."""
    if fn in UNDIRECTED:
        return None
    declared = table.directions(semantic_type)
    if declared:
        return next(iter(declared)) if len(declared) == 1 else None
    return table.registry.direction_of(semantic_type)


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
