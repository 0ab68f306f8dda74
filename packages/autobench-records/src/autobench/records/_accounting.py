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
2. A call measured at several abstraction layers counts at the preferred one:
   client, then framework, application, transport (then any other layer,
   alphabetically). A direct candidate is left out when a candidate of a
   preferred layer measures the same call: on its span, above it, beneath it,
   or with the same explicit operation id. Candidates of other layers in
   unrelated parts of the trace are other calls and all count. A candidate
   left out for a preferred layer *beneath* it is, like a roll-up, checked
   against what is counted beneath it (rule 5).
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
   other numbers with a relative tolerance of 1e-9). A *nested run* aggregate
   (``nested``: the roll-up of an agent run started inside another run, which the
   framework adds to the enclosing run's roll-ups only when the two runs share
   their usage: an OpenAI Agents guardrail or tool running its own ``Runner.run``)
   makes the roll-ups above it agree either way: an aggregate agrees when it equals
   the total beneath it with the operations of any of the nested runs beneath it
   left out (each nested run's own operations, those of runs nested in it apart).

A total of integers is an integer; with any float it is :func:`math.fsum`. A
total too large for a float is no value, with an ``accounting_overflow``
problem. Layer names compare in lower case.
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
ACCOUNTING_OVERFLOW = "accounting_overflow"


@dataclass(frozen=True, slots=True)
class Candidate:
    """One measured value of the quantity being totalled.

    ``operation`` is the logical operation id (equal ids are one operation);
    ``explicit`` is false when that id is only implied (the span of a value that
    names no operation); ``nested`` marks the roll-up of a nested run (rule 5);
    ``origin`` is whatever the value was read from (an
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
    nested: bool = False


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
    basis: Literal["direct", "aggregate"] = "direct"
    if not direct:
        outer_spans = {c.span_id for c in aggregates}
        direct = [
            c
            for c in aggregates
            if not any(a in outer_spans for a in ancestors(c.span_id, parents))
        ]
        aggregates, basis = [], "aggregate"
    kept, covering = _preferred_layers(direct, parents)
    counted, conflicting, problems = _operations(semantic, kept)
    validated = [*aggregates, *covering]
    problems += _mismatches(semantic, counted, validated, parents)
    total, overflow = _total(semantic, counted)
    return Accounted(
        semantic,
        total,
        basis,
        _layers(counted or kept),
        counted,
        conflicting,
        tuple(validated),
        problems + overflow,
    )


def _layers(candidates: Sequence[Candidate]) -> str | None:
    """The layer of ``candidates``, or their layers joined by ``+`` in preference order."""
    layers = sorted({c.layer for c in candidates}, key=layer_rank)
    return "+".join(layers) if layers else None


def _preferred_layers(
    candidates: Sequence[Candidate], parents: Mapping[str, str | None]
) -> tuple[list[Candidate], list[Candidate]]:
    """Rule 2: the candidates kept, and those left out for a preferred layer beneath them."""
    if len({c.layer for c in candidates}) < 2:
        return list(candidates), []
    Rank = tuple[int, str]
    chains = [ancestors(c.span_id, parents) for c in candidates]
    on_span: dict[str, Rank] = {}
    beneath: dict[str, Rank] = {}
    by_operation: dict[str, Rank] = {}

    def lower(table: dict[str, Rank], key: str, rank: Rank) -> None:
        if key not in table or rank < table[key]:
            table[key] = rank

    for candidate, chain in zip(candidates, chains, strict=True):
        rank = layer_rank(candidate.layer)
        if candidate.span_id is not None:
            lower(on_span, candidate.span_id, rank)
            for ancestor in chain:
                lower(beneath, ancestor, rank)
        if candidate.explicit:
            lower(by_operation, candidate.operation, rank)
    kept: list[Candidate] = []
    covering: list[Candidate] = []
    for candidate, chain in zip(candidates, chains, strict=True):
        rank = layer_rank(candidate.layer)
        span = candidate.span_id
        if span is not None and beneath.get(span, rank) < rank:
            covering.append(candidate)
            continue
        related = [on_span.get(key, rank) for key in (span, *chain) if key is not None]
        if candidate.explicit:
            related.append(by_operation.get(candidate.operation, rank))
        if min(related, default=rank) >= rank:
            kept.append(candidate)
    return kept, covering


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
    semantic: str, candidates: Sequence[Candidate]
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
                    details={"operation": operation, "values": shown, "layer": group[0].layer},
                )
            )
    return tuple(counted), tuple(conflicting), tuple(problems)


def _mismatches(
    semantic: str,
    counted: Sequence[Candidate],
    validated: Sequence[Candidate],
    parents: Mapping[str, str | None],
) -> tuple[AccountingProblem, ...]:
    """Rule 5: each validation candidate against the counted total beneath its span."""
    if not validated:
        return ()
    nested_runs = {c.span_id for c in validated if c.nested and c.span_id is not None}
    beneath: dict[str, list[int | float]] = defaultdict(list)
    # per span: the counted values of each nested run beneath it, outside the runs in it
    runs_beneath: dict[str, dict[str, list[int | float]]] = defaultdict(lambda: defaultdict(list))
    for candidate in counted:
        if candidate.span_id is None:
            continue
        beneath[candidate.span_id].append(candidate.value)
        chain = ancestors(candidate.span_id, parents)
        run = candidate.span_id if candidate.span_id in nested_runs else None
        for ancestor in chain:
            beneath[ancestor].append(candidate.value)
            if run is not None:
                runs_beneath[ancestor][run].append(candidate.value)
            elif ancestor in nested_runs:
                run = ancestor
    problems: list[AccountingProblem] = []
    for aggregate in validated:
        inside = beneath.get(aggregate.span_id) if aggregate.span_id is not None else None
        if not inside:
            continue
        total = _sum_values(inside)
        runs = runs_beneath.get(aggregate.span_id or "", {})
        if runs and total is not None and _agrees_without_runs(aggregate.value, total, runs):
            continue
        if total is not None and _differs(aggregate.value, total):
            problems.append(
                AccountingProblem(
                    code=AGGREGATE_MEASUREMENT_MISMATCH,
                    message=f"aggregate {semantic} {aggregate.value} ({aggregate.layer} layer) "
                    f"differs from the total {total} of the {len(inside)} operation(s) counted "
                    "beneath it",
                    span_id=aggregate.span_id,
                    details={"aggregate": aggregate.value, "direct": total},
                )
            )
    return tuple(problems)


_NESTED_RUN_LIMIT = 12
"""Above this many nested runs beneath one roll-up, only "all in" and "all out" are tried."""


def _agrees_without_runs(
    value: int | float, total: int | float, runs: Mapping[str, Sequence[int | float]]
) -> bool:
    """Whether ``value`` equals ``total`` less the operations of some of the nested ``runs``
    (rule 5)."""
    own = [t for values in runs.values() if (t := _sum_values(values)) is not None]
    if len(own) > _NESTED_RUN_LIMIT:
        left_out = {0, _sum_values(own) or 0}
    else:
        left_out = {0}
        for part in own:
            left_out |= {seen + part for seen in left_out}
    return any(not _differs(value, total - part) for part in left_out)


def _total(
    semantic: str, candidates: Sequence[Candidate]
) -> tuple[int | float | None, tuple[AccountingProblem, ...]]:
    if not candidates:
        return None, ()
    total = _sum_values([c.value for c in candidates])
    if total is None:
        problem = AccountingProblem(
            code=ACCOUNTING_OVERFLOW,
            message=f"the {semantic} total of {len(candidates)} operation(s) is too large "
            "for a number; the run has no total",
            span_id=None,
            details={"operations": len(candidates)},
        )
        return None, (problem,)
    return total, ()


def _sum_values(values: Sequence[int | float]) -> int | float | None:
    """The exact sum of integers, else :func:`math.fsum`; ``None`` when it overflows."""
    if all(isinstance(value, int) for value in values):
        return sum(values)
    try:
        total = math.fsum(values)
    except (OverflowError, ValueError):
        return None
    return total if math.isfinite(total) else None


def _differs(first: int | float, second: int | float) -> bool:
    if isinstance(first, int) and isinstance(second, int):
        return first != second
    try:
        return not math.isclose(first, second, rel_tol=1e-9, abs_tol=0.0)
    except OverflowError:
        return True
