"""Accounting: the total of one additive quantity in one run, each operation counted once.

The rules are the spec's "Direct And Aggregate Evidence". They apply to the
*candidates* of one semantic type in one run: measured values, each with the
span it belongs to, its abstraction layer, its logical operation id and two
flags. Where the candidates come from (trace spans and measurements for
:class:`~autobench.records.UsageExtractor`, a run's observations for
:mod:`autobench.records._run_accounting`) is not this module's business.

1. A candidate is *aggregate* when it says so, or when its span has a
   descendant that carries a direct candidate of the same layer: it is the
   roll-up of its children and is never added to them.
2. One abstraction layer is used: the first of client, framework,
   application, transport (then any other layer, alphabetically) that has a
   direct candidate.
3. Direct candidates of that layer that share a logical operation id are one
   operation. Equal values count once. Conflicting values are settled by the
   single candidate marked *authority*; without one, the operation is left out
   of the total and an ``ambiguous_direct_measurement`` problem names it. An
   operation known only implicitly (by its span, for values that carry no
   operation id) with several values is ambiguous even when they are equal:
   nothing says whether they are one call recorded twice or several calls.
4. The total is the sum over the operations (``basis`` ``direct``). A run with
   no direct candidate at all sums its outermost aggregates instead (``basis``
   ``aggregate``; rule 3 applies to them).
5. Every aggregate stays as validation evidence: it is compared with the total
   of the counted direct operations in its span's subtree, and a difference is
   an ``aggregate_measurement_mismatch`` problem (integers compare exactly,
   other numbers with a relative tolerance of 1e-9).

A total of integers is an integer; with any float it is :func:`math.fsum`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

LAYER_PRIORITY = ("client", "framework", "application", "transport")
"""Abstraction layers in the order a total prefers them (rule 2)."""

AMBIGUOUS_DIRECT_MEASUREMENT = "ambiguous_direct_measurement"
AGGREGATE_MEASUREMENT_MISMATCH = "aggregate_measurement_mismatch"


@dataclass(frozen=True, slots=True)
class Candidate:
    """One measured value of the quantity being totalled.

    ``operation`` is the logical operation id (equal ids are one operation);
    ``explicit`` is false when that id is only implied (the span of a value that
    names no operation); ``origin`` is whatever the value was read from (an
    observation, a span), handed back untouched in :class:`Accounted`.
    """

    value: int | float
    span_id: str | None
    layer: str
    operation: str
    aggregate: bool = False
    authority: bool = False
    explicit: bool = True
    origin: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class AccountingProblem:
    """Why some evidence is not in a total, or disagrees with it (``code`` is stable)."""

    code: str
    message: str
    span_id: str | None
    details: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Accounted:
    """The total of one quantity and how it was reached.

    ``value`` is ``None`` when no operation could be counted. ``counted`` holds
    one candidate per operation in the total, ``conflicting`` the candidates
    of operations left out by rule 3, ``aggregates`` the validation evidence
    of rule 5 (empty when the total itself is made of aggregates).
    """

    semantic: str
    value: int | float | None
    basis: Literal["direct", "aggregate"]
    layer: str | None
    counted: tuple[Candidate, ...]
    conflicting: tuple[Candidate, ...]
    aggregates: tuple[Candidate, ...]
    problems: tuple[AccountingProblem, ...]

    @property
    def operations(self) -> int:
        """The number of operations in the total."""
        return len(self.counted)


def layer_rank(layer: str) -> tuple[int, str]:
    """Sort key of rule 2: the known layers in :data:`LAYER_PRIORITY` order, then the rest."""
    if layer in LAYER_PRIORITY:
        return LAYER_PRIORITY.index(layer), ""
    return len(LAYER_PRIORITY), layer


def ancestors(span_id: str | None, parents: Mapping[str, str | None]) -> list[str]:
    """The ancestors of ``span_id``, nearest first (a parent loop ends the walk)."""
    chain: list[str] = []
    seen = {span_id}
    current = parents.get(span_id) if span_id is not None else None
    while current is not None and current not in seen:
        chain.append(current)
        seen.add(current)
        current = parents.get(current)
    return chain


def account(
    semantic: str, candidates: Sequence[Candidate], parents: Mapping[str, str | None]
) -> Accounted:
    """The total of ``candidates`` (in recording order) by the module's rules.

    ``parents`` maps each span id to its parent's id (``None`` for a root);
    candidates on spans it does not know have no ancestors.
    """
    marked = _mark_rollups(candidates, parents)
    direct = [c for c in marked if not c.aggregate]
    aggregates = [c for c in marked if c.aggregate]
    if not direct:
        outer_spans = {c.span_id for c in aggregates}
        outermost = [
            c
            for c in aggregates
            if not any(a in outer_spans for a in ancestors(c.span_id, parents))
        ]
        layer = min((c.layer for c in outermost), key=layer_rank, default=None)
        counted, conflicting, problems = _operations(semantic, outermost, layer)
        return Accounted(
            semantic, _total(counted), "aggregate", layer, counted, conflicting, (), problems
        )
    layer = min((c.layer for c in direct), key=layer_rank)
    counted, conflicting, problems = _operations(
        semantic, [c for c in direct if c.layer == layer], layer
    )
    problems += _mismatches(semantic, counted, aggregates, parents, layer)
    return Accounted(
        semantic,
        _total(counted),
        "direct",
        layer,
        counted,
        conflicting,
        tuple(aggregates),
        problems,
    )


def _mark_rollups(
    candidates: Sequence[Candidate], parents: Mapping[str, str | None]
) -> list[Candidate]:
    """Rule 1: a direct candidate whose span is an ancestor of a direct candidate of the same
    layer becomes an aggregate (another layer measuring the same call is not a roll-up)."""
    holders = {
        (ancestor, candidate.layer)
        for candidate in candidates
        if not candidate.aggregate
        for ancestor in ancestors(candidate.span_id, parents)
    }
    if not holders:
        return list(candidates)
    return [
        replace(c, aggregate=True) if not c.aggregate and (c.span_id, c.layer) in holders else c
        for c in candidates
    ]


def _operations(
    semantic: str, candidates: Sequence[Candidate], layer: str | None
) -> tuple[tuple[Candidate, ...], tuple[Candidate, ...], tuple[AccountingProblem, ...]]:
    """Rule 3: one candidate per operation, the conflicting ones, and their problems."""
    by_operation: dict[str, list[Candidate]] = defaultdict(list)
    for candidate in candidates:
        by_operation[candidate.operation].append(candidate)
    counted: list[Candidate] = []
    conflicting: list[Candidate] = []
    problems: list[AccountingProblem] = []
    for operation, group in by_operation.items():
        values = {c.value for c in group}
        authorities = [c for c in group if c.authority]
        implicit = len(group) > 1 and not any(c.explicit for c in group)
        if len(values) == 1 and not implicit:
            counted.append(group[0])
        elif len({c.value for c in authorities}) == 1:
            counted.append(authorities[0])
        else:
            conflicting += group
            shown = [c.value for c in group] if implicit else sorted(values)
            what = (
                f"{len(group)} {semantic} values ({', '.join(map(str, shown))}) and no "
                "operation id to tell one call recorded twice from several calls"
                if implicit
                else f"conflicting {semantic} values {', '.join(map(str, shown))} and no "
                "single authority"
            )
            where = f"span {group[0].span_id}" if implicit else f"operation {operation!r}"
            problems.append(
                AccountingProblem(
                    code=AMBIGUOUS_DIRECT_MEASUREMENT,
                    message=f"{where} reports {what}; it is left out of the total (record "
                    "each call in a span of its own, or tag each value with its operation_id, "
                    "or tag the trusted one authority)",
                    span_id=group[0].span_id,
                    details={"operation": operation, "values": shown, "layer": layer},
                )
            )
    return tuple(counted), tuple(conflicting), tuple(problems)


def _mismatches(
    semantic: str,
    counted: Sequence[Candidate],
    aggregates: Sequence[Candidate],
    parents: Mapping[str, str | None],
    layer: str,
) -> tuple[AccountingProblem, ...]:
    """Rule 5: each aggregate against the counted direct total beneath its span."""
    if not aggregates:
        return ()
    beneath: dict[str, list[int | float]] = defaultdict(list)
    for candidate in counted:
        if candidate.span_id is None:
            continue
        beneath[candidate.span_id].append(candidate.value)
        for ancestor in ancestors(candidate.span_id, parents):
            beneath[ancestor].append(candidate.value)
    problems: list[AccountingProblem] = []
    for aggregate in aggregates:
        inside = beneath.get(aggregate.span_id) if aggregate.span_id is not None else None
        if not inside:
            continue
        total = _sum_values(inside)
        if _differs(aggregate.value, total):
            problems.append(
                AccountingProblem(
                    code=AGGREGATE_MEASUREMENT_MISMATCH,
                    message=f"aggregate {semantic} {aggregate.value} differs from the total "
                    f"{total} of the {len(inside)} direct operation(s) beneath it ({layer} layer)",
                    span_id=aggregate.span_id,
                    details={"aggregate": aggregate.value, "direct": total, "layer": layer},
                )
            )
    return tuple(problems)


def _total(candidates: Sequence[Candidate]) -> int | float | None:
    return _sum_values([c.value for c in candidates]) if candidates else None


def _sum_values(values: Sequence[int | float]) -> int | float:
    if all(isinstance(value, int) for value in values):
        return sum(values)
    return math.fsum(values)


def _differs(first: int | float, second: int | float) -> bool:
    if isinstance(first, int) and isinstance(second, int):
        return first != second
    return not math.isclose(first, second, rel_tol=1e-9, abs_tol=0.0)
