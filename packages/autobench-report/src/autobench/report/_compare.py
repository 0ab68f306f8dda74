"""Comparison of two variants, paired by case.

The comparison reports associations: which factors differ and how the
aggregates of the paired runs differ. It never says which factor caused a
difference; with more than one changed factor it is marked ``confounded``.

Each row (a metric's aggregate) also gets its own paired statistics
(:mod:`autobench.report._statistics`) over per-case values: a case with several runs of a
variant (repeats) counts once, with the mean of its runs' values (the sum of them for a
``sum`` row, so the row's total is the sum over every run), so repeats sharpen a case's
value without counting as more cases. A ``mean``/``ratio_true`` row gets the per-case
location test, any other aggregate the paired bootstrap of its own difference; each row is
one hypothesis, counted once by Holm (two columns with the same type and aggregate share
one). The two sides may come from two experiments
(:func:`autobench.report._experiments.compare_experiments`).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping, MutableSequence, Sequence
from dataclasses import dataclass
from itertools import compress
from typing import Any

from autobench.records import Direction, RunStatus, Variant
from autobench.report._aggregates import CaseGroups, aggregate_column, case_groups, int_array
from autobench.report._directions import UNDIRECTED
from autobench.report._metrics import STATUSES, MetricTable, MetricValues
from autobench.report._model import (
    DEFAULT_LEVEL,
    Comparison,
    ComparisonMetric,
    FactorChange,
    MetricColumn,
    MetricStatistics,
    UnpairedCase,
)

_UNPAIRABLE = (RunStatus.ERRORED, RunStatus.SKIPPED)
"""Run statuses that leave a case unpaired: such a run has no comparable measurement
(it is never counted as a zero)."""


def variant_definition(table: MetricTable, variant_id: str) -> Variant | None:
    """The variant as the experiment declared it, else as its first run recorded it."""
    for variant in table.result.experiment.benchmark.variants:
        if variant.id == variant_id:
            return variant
    runs = table.by_variant.get(variant_id)
    return table.runs[runs[0]].variant if runs else None


def changed_factors(baseline: Variant | None, candidate: Variant | None) -> list[FactorChange]:
    """Factors whose values differ, in declaration order (baseline's first), including a
    factor present on one side only."""
    before: dict[str, Any] = {} if baseline is None else baseline.factor_values
    after: dict[str, Any] = {} if candidate is None else candidate.factor_values
    changes: list[FactorChange] = []
    for name in dict.fromkeys([*before, *after]):
        if name not in after:
            changes.append(FactorChange(name=name, baseline=before[name], only_in="baseline"))
        elif name not in before:
            changes.append(FactorChange(name=name, candidate=after[name], only_in="candidate"))
        elif before[name] != after[name]:
            changes.append(FactorChange(name=name, baseline=before[name], candidate=after[name]))
    return changes


def _unpaired_reason(baseline: list[RunStatus], candidate: list[RunStatus]) -> str | None:
    if not baseline:
        return "missing in baseline"
    if not candidate:
        return "missing in candidate"
    reasons = []
    for side, runs in (("baseline", baseline), ("candidate", candidate)):
        for status in _UNPAIRABLE:
            if status in runs:
                reasons.append(f"{status.value} in {side}")
    return "; ".join(reasons) or None


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a comparison: a variant's runs in a metric table, by case id."""

    table: MetricTable
    variant: str
    cases: Mapping[str, Sequence[int]]

    @classmethod
    def of(cls, table: MetricTable, variant: str) -> Side:
        """The runs of ``variant`` grouped by case (every repeat of a case together);
        raises :class:`~autobench.report.UnknownVariantError` for an unknown id."""
        table.check_variant(variant)
        # The leaderboard's grouping of the same runs (case_groups is memoised): one list
        # per case for both, not two.
        return cls(table, variant, case_groups(table, table.by_variant[variant]))


def _statistics() -> Any:
    """:mod:`autobench.report._statistics`, imported on the first comparison: it imports
    numpy (scipy only for an exact test), and loading the plugin manager imports this
    package."""
    return importlib.import_module("autobench.report._statistics")


def prepare_statistics() -> None:
    """Import what the comparisons' statistics need (numpy) now rather than at the first
    comparison; ``autobench compare`` does it while its records are read."""
    _statistics()


def _mean_of_numbers(values: Sequence[Any]) -> float | None:
    """The mean of the numeric values (booleans as ``1.0``/``0.0``); ``None``: none."""
    numbers = [float(value) for value in values if isinstance(value, bool | int | float)]
    return sum(numbers) / len(numbers) if numbers else None


def _sum_of_numbers(values: Sequence[Any]) -> float | None:
    """The sum of the numeric values (booleans as ``1.0``/``0.0``); ``None``: none."""
    numbers = [float(value) for value in values if isinstance(value, bool | int | float)]
    return math.fsum(numbers) if numbers else None


def _case_values(side: Side, item: MetricColumn, cases: Sequence[str]) -> _CaseValues:
    """Per case, the mean of its runs' numeric values of ``item`` (their sum for a ``sum``
    column: a case's share of the total over every run), as a float64 array, and which cases
    have one (a boolean array; a case without one holds NaN)."""
    np = _numpy()
    values = side.table.values(item.semantic_type)
    numbers = values.numbers
    if numbers is None:
        by_run = values.by_run
        reduce = _sum_of_numbers if item.fn == "sum" else _mean_of_numbers
        return _as_array([reduce([by_run[index] for index in side.cases[case]]) for case in cases])
    # Every value present is a number already (booleans as 1.0/0.0): the same sums,
    # without checking each value again.
    singles = _single_runs(side, cases)
    if singles is not None:  # one run per case: its value, as a sum of one value gives it
        # The numbers are a float64 array (NaN where a run has none: no value present is
        # NaN); a sum or a mean of one value is the value itself,
        # but for the sign of a zero: ``(0.0 + x) / 1`` and (on most Pythons) ``fsum`` make
        # -0.0 positive, which ``x + 0.0`` does too.
        column = np.frombuffer(numbers, dtype=float)  # the table's buffer, not a copy
        picked = column[np.asarray(singles, dtype=np.intp)]
        if item.fn != "sum" or not _FSUM_KEEPS_NEGATIVE_ZERO:
            picked = picked + 0.0
        return picked, ~np.isnan(picked)
    result: list[float | None] = []
    for case in cases:
        present = [x for index in side.cases[case] if (x := numbers[index]) == x]
        if not present:
            result.append(None)
        elif item.fn == "sum":
            result.append(math.fsum(present))
        else:
            result.append(sum(present) / len(present))
    return _as_array(result)


_FSUM_KEEPS_NEGATIVE_ZERO = math.copysign(1.0, math.fsum((-0.0,))) < 0
"""Whether ``math.fsum`` gives back -0.0 for a sum of -0.0 alone (Pythons differ)."""

_CaseValues = tuple[Any, Any]
"""Per-case values (a float64 array) and which cases have one (a boolean array)."""


def _as_array(values: Sequence[float | None]) -> _CaseValues:
    """``values`` (``None``: none) as :data:`_CaseValues`: a value that is NaN (a sum of
    infinities of both signs) stays a value."""
    np = _numpy()
    present = np.fromiter((value is not None for value in values), dtype=bool, count=len(values))
    return np.array(values, dtype=float), present


def _numpy() -> Any:
    """numpy, imported on the first comparison (as the statistics are)."""
    return importlib.import_module("numpy")


def _single_runs(side: Side, cases: Sequence[str]) -> Sequence[int] | None:
    """The run of each of ``cases`` on ``side`` when each has exactly one (no repeats), else
    ``None``; computed once per side and cases."""
    memo: dict[tuple[str, int], tuple[Sequence[str], Sequence[int] | None]]
    memo = side.table.memo.setdefault("single_runs", {})
    key = (side.variant, id(cases))  # the cases are kept with the answer: their id stays theirs
    known = memo.get(key)
    if known is not None and known[0] is cases and isinstance(cases, tuple):
        return known[1]
    if isinstance(side.cases, CaseGroups):
        runs = side.cases.single_runs(cases)
    else:
        groups = [side.cases[case] for case in cases]
        runs = [g[0] for g in groups] if all(len(g) == 1 for g in groups) else None
    if isinstance(cases, tuple):
        memo[key] = (cases, runs)
    return runs


def _is_pass_fail(side: Side, item: MetricColumn, cases: Sequence[str]) -> bool:
    """Whether ``item`` is pass/fail on ``side``: every value is a boolean, or every value
    is a score of 0 or 1 (what pass/fail scorers such as ``exact`` record)."""
    np = _numpy()
    values = side.table.values(item.semantic_type)
    by_run = values.by_run
    if isinstance(side.cases, CaseGroups):
        groups = side.cases.groups_of(cases)
        if bool((groups < 0).any()):
            raise KeyError(cases[int(np.flatnonzero(groups < 0)[0])])
        found = side.cases.runs_of(groups)
        if values.numbers is not None and values.kinds is not None:
            decided = _is_pass_fail_in_numpy(side, item, values, found)
            if decided is not None:
                return decided
        every = found.tolist()
    else:
        every = [i for case in cases for i in side.cases[case]]
    runs = [i for i in every if by_run[i] is not None]
    if not runs:
        return False
    if all(isinstance(by_run[i], bool) for i in runs):
        return True
    if not all(by_run[i] in (0, 1) for i in runs):
        return False
    if side.table.all_scored(item.semantic_type):
        return True
    scored = side.table.scored(item.semantic_type)
    return all(i in scored for i in runs)


def _is_pass_fail_in_numpy(
    side: Side, item: MetricColumn, values: MetricValues, runs: Any
) -> bool | None:
    """:func:`_is_pass_fail` over the runs ``runs`` (a numpy array) from the column's
    numbers and the classes of its values (``values.numbers`` and ``values.kinds`` set):
    ``None`` when that cannot tell (booleans among values of other classes)."""
    np = _numpy()
    kinds = values.kinds
    assert kinds is not None and values.numbers is not None
    numbers = np.frombuffer(values.numbers, dtype=np.float64) if len(values.numbers) else None
    picked = np.zeros(0) if numbers is None else numbers[runs]
    present = ~np.isnan(picked)  # no value present is NaN
    if not bool(present.any()):
        return False
    if all(issubclass(kind, bool) for kind in kinds):
        return True
    if any(issubclass(kind, bool) for kind in kinds):
        return None  # which runs hold the booleans: left to the run-by-run test
    held = picked[present]
    if not bool(((held == 0) | (held == 1)).all()):  # ``value in (0, 1)``
        return False
    if side.table.all_scored(item.semantic_type):
        return True
    scored = side.table.scored(item.semantic_type)
    return all(i in scored for i in runs[present].tolist())


_Paired = tuple[Any, Any, bool]
"""Per-case paired values of a type (baseline, candidate: float64 arrays) and whether they
are pass/fail."""


def _paired_values(
    base: Side, cand: Side, item: MetricColumn, cases: Sequence[str]
) -> _Paired | None:
    before, before_present = _case_values(base, item, cases)
    after, after_present = _case_values(cand, item, cases)
    both = before_present & after_present
    if not both.any():
        return None
    pass_fail = _is_pass_fail(base, item, cases) and _is_pass_fail(cand, item, cases)
    return before[both], after[both], pass_fail


def metric_statistics(
    base: Side,
    cand: Side,
    item: MetricColumn,
    cases: Sequence[str],
    *,
    level: float = DEFAULT_LEVEL,
    memo: dict[tuple[str, bool], _Paired | None] | None = None,
) -> MetricStatistics | None:
    """Paired statistics of the row ``item`` over ``cases`` (unadjusted, for its own
    aggregate ``item.fn``): per-case values of each side, paired where both have a value.
    ``None`` for an undirected aggregate (``count``, ``stddev``), for values that are not
    numbers, or when no case pairs. Pass/fail values (booleans) without a declared direction
    count passing as better. ``memo`` (one per ``base``, ``cand`` and ``cases``) keeps the
    per-case values of a type for its other rows."""
    if item.fn in UNDIRECTED:
        return None
    key = (base.table.normalize(item.semantic_type), item.fn == "sum")
    if memo is None or key not in memo:
        paired = _paired_values(base, cand, item, cases)
        if memo is not None:
            memo[key] = paired
    else:
        paired = memo[key]
    if paired is None:
        return None
    before, after, pass_fail = paired
    direction = item.direction
    if direction is None and pass_fail:
        direction = Direction.MAXIMIZE  # a pass/fail value: passing is better
    return _statistics().paired_statistics(
        before, after, pass_fail=pass_fail, direction=direction, fn=item.fn, level=level
    )


def _unpairable(table: MetricTable) -> set[int]:
    """The positions of ``table``'s runs whose status leaves their case unpaired."""
    np = _numpy()
    codes = table.status_codes()
    return set(np.flatnonzero(np.isin(codes, [STATUSES.index(s) for s in _UNPAIRABLE])).tolist())


def compare_sides(
    base: Side,
    cand: Side,
    columns: Sequence[MetricColumn],
    cases: Sequence[str],
    *,
    labels: tuple[str, str] | None = None,
    level: float = DEFAULT_LEVEL,
) -> Comparison:
    """Compare ``cand`` against ``base`` over ``cases`` (in this order); see :func:`compare`.
    ``labels`` name the sides (default: the variant ids)."""
    np = _numpy()
    baseline, candidate = labels or (base.variant, cand.variant)
    paired: list[str] = []
    found: tuple[str, ...] | None = None  # the paired cases found in numpy
    unpaired: list[UnpairedCase] = []
    base_runs: MutableSequence[int] = []
    cand_runs: MutableSequence[int] = []
    # The runs whose status leaves their case unpaired (usually none), each side's among its
    # own table's runs (two experiments compared have a table each): a case without any
    # pairs without building its statuses.
    base_unpairable = _unpairable(base.table)
    cand_unpairable = base_unpairable if cand.table is base.table else _unpairable(cand.table)
    fast = isinstance(base.cases, CaseGroups) and isinstance(cand.cases, CaseGroups)
    if fast and not base_unpairable and not cand_unpairable:
        # Every case with runs on both sides pairs: found in numpy, not case by case.
        assert isinstance(base.cases, CaseGroups) and isinstance(cand.cases, CaseGroups)
        before_groups, after_groups = base.cases.groups_of(cases), cand.cases.groups_of(cases)
        has_before, has_after = before_groups >= 0, after_groups >= 0
        both = has_before & has_after
        for k in np.flatnonzero(has_before ^ has_after).tolist():
            missing = "baseline" if has_after[k] else "candidate"
            unpaired.append(UnpairedCase(case=cases[k], reason=f"missing in {missing}"))
        # A tuple (the table's own when every case pairs): the views look its cases up
        # once (``CaseCoding.codes_of``).
        found = tuple(cases) if bool(both.all()) else tuple(compress(cases, both.tolist()))
        base_runs = int_array(base.cases.runs_of(before_groups[both]))
        cand_runs = int_array(cand.cases.runs_of(after_groups[both]))
        cases = ()
    for case in cases:
        before = base.cases.get(case, [])
        after = cand.cases.get(case, [])
        if not before and not after:
            continue
        if (
            before
            and after
            and base_unpairable.isdisjoint(before)
            and cand_unpairable.isdisjoint(after)
        ):
            paired.append(case)
            base_runs.extend(before)
            cand_runs.extend(after)
            continue
        reason = _unpaired_reason(
            [base.table.statuses[i] for i in before], [cand.table.statuses[i] for i in after]
        )
        if reason is not None:
            unpaired.append(UnpairedCase(case=case, reason=reason))
            continue
        paired.append(case)
        base_runs.extend(before)
        cand_runs.extend(after)
    chosen = tuple(paired) if found is None else found
    metrics = []
    scope = f"{baseline} -> {candidate}, "
    # Each row is one hypothesis about its own aggregate; two columns with the same type
    # and aggregate (under different names) test the same one: computed once, shared, and
    # counted once by Holm.
    by_row: dict[tuple[str, str], MetricStatistics | None] = {}
    memo: dict[tuple[str, bool], _Paired | None] = {}
    for item in columns:
        key = (base.table.normalize(item.semantic_type), item.fn)
        if key not in by_row:
            by_row[key] = metric_statistics(base, cand, item, chosen, level=level, memo=memo)
    present = {key: value for key, value in by_row.items() if value is not None}
    adjusted = dict(zip(present, _statistics().adjust_family(list(present.values())), strict=True))
    tested = [adjusted.get((base.table.normalize(item.semantic_type), item.fn)) for item in columns]
    for item, statistics in zip(columns, tested, strict=True):
        before_value = aggregate_column(base.table, item, base_runs, scope=f"{scope}{baseline}, ")
        after_value = aggregate_column(cand.table, item, cand_runs, scope=f"{scope}{candidate}, ")
        delta: float | None = None
        relative: float | None = None
        if before_value.value is not None and after_value.value is not None:
            delta = after_value.value - before_value.value
            relative = None if before_value.value == 0 else delta / abs(before_value.value)
        metrics.append(
            ComparisonMetric(
                name=item.name,
                semantic_type=item.semantic_type,
                fn=item.fn,
                unit=item.unit,
                baseline=before_value,
                candidate=after_value,
                delta=delta,
                relative=relative,
                statistics=statistics,
            )
        )
    changes = changed_factors(
        variant_definition(base.table, base.variant), variant_definition(cand.table, cand.variant)
    )
    return Comparison(
        baseline=baseline,
        candidate=candidate,
        paired_cases=chosen,
        unpaired=tuple(unpaired),
        changed_factors=tuple(changes),
        confounded=len(changes) > 1,
        metrics=tuple(metrics),
    )


def compare(
    table: MetricTable,
    baseline: str,
    candidate: str,
    columns: Sequence[MetricColumn],
    *,
    level: float = DEFAULT_LEVEL,
) -> Comparison:
    """Compare ``candidate`` against ``baseline`` over the cases both ran without error.

    A case is paired when each variant has a run of it and none of those runs
    errored or was skipped; otherwise it is listed in ``unpaired`` with the
    reason. Each metric is aggregated over the paired runs of each side
    (``total`` = paired runs of that side); ``delta = candidate - baseline``,
    ``None`` when either side has no value; ``relative = delta / |baseline|``,
    ``None`` without a delta or when the baseline is 0. Each row's ``statistics`` test
    its own aggregate over the per-case values at confidence ``level`` (Holm-adjusted
    across the rows of ``columns``).
    Raises :class:`~autobench.report.UnknownVariantError` for an unknown variant id.
    """
    base = Side.of(table, baseline)
    cand = Side.of(table, candidate)
    return compare_sides(base, cand, columns, table.cases, level=level)
