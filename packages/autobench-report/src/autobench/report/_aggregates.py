"""Aggregating a column over a set of runs of the metric table.

Repeats (``repeat: K``) give a case several runs of one variant. Two kinds of aggregate
follow, and each is named for what it is:

* over every recorded run, not reduced (``n`` and ``total`` count runs): ``sum`` (what was
  spent or counted in all, so 15 runs at $0.00019 are $0.00285) and ``count`` (values
  present in every run);
* per case first (``n`` and ``total`` count cases): each case's repeats are reduced to one
  value, then the function runs over those per-case values, so a case weighs the same
  however many of its repeats were recorded. ``ratio_true`` takes, per case, the share of
  true values, then their mean; every other function (``mean``, ``per_pass``, ``min``,
  ``max``, ``median``, ``p95``, ``stddev``, ``geomean``) takes, per case, the mean of its
  repeats' numeric values (booleans as ``1``/``0``). ``per_pass`` is the sum of those
  means: the expected total of one pass over the dataset.

With every case run ``K`` times, ``mean`` and ``ratio_true`` equal the same function over
the runs, and ``sum`` is ``K`` times ``per_pass``. The aggregate's ``spread`` is the mean,
over the cases with at least two numeric values, of the sample standard deviation of those
values: how far apart repeats of one case land. Without repeats (one run per case) nothing
of this applies and the aggregate is exactly the function over the runs.
"""

from __future__ import annotations

import math
import statistics
from array import array
from collections.abc import ItemsView, Iterator, Mapping, Sequence, ValuesView
from itertools import repeat
from typing import TYPE_CHECKING, Any, cast

from autobench.records import aggregate
from autobench.report._metrics import CaseCoding, MetricTable
from autobench.report._model import AggregateValue, MetricColumn
from autobench.report._numeric import numeric_aggregate

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

OVER_RUNS = frozenset({"count", "sum"})
"""Aggregates taken over every recorded run, never reduced per case first."""


def case_groups(table: MetricTable, runs: Sequence[int]) -> CaseGroups:
    """The run indices ``runs`` grouped by case id, in first-seen order (the repeats of a
    case, in plan order, together); computed once per set of runs, as every column of a
    leaderboard row or comparison side aggregates the same runs. Do not modify the
    result."""
    memo: dict[bytes, CaseGroups]
    memo = table.memo.setdefault("case_groups", {})
    key = (runs if isinstance(runs, array) else array("q", runs)).tobytes()
    groups = memo.get(key)
    if groups is None:
        groups = memo[key] = CaseGroups.of(table.case_coding(), runs)
    return groups


class CaseGroups(Mapping[str, Sequence[int]]):
    """Runs grouped by case id, in order of each case's first run, held as arrays rather
    than a dictionary of lists (a million runs in half a million cases took about 84 MB
    per grouping that way; this, 20 MB): group ``g`` is case ``names[g]``, its runs
    ``order[ends[g - 1]:ends[g]]`` in the order given (an ``array`` of ints); a case id is
    found through the table's codes (``coding``: :meth:`MetricTable.case_coding`)."""

    __slots__ = ("_code_of", "_coding", "_group_of", "ends", "names", "order")

    def __init__(
        self,
        names: list[str],
        order: array[int],
        ends: array[int],
        group_of: array[int],
        code_of: Mapping[str, int],
        coding: CaseCoding | None = None,
    ) -> None:
        self.names = names
        self.order = order
        self.ends = ends
        self._group_of = group_of
        self._code_of = code_of
        self._coding = coding

    @classmethod
    def of(cls, coding: CaseCoding, runs: Sequence[int]) -> CaseGroups:
        """The groups of ``runs`` (run indices) by the case codes of ``coding``."""
        import numpy as np

        picked = run_array(runs)
        codes = coding.codes[picked]
        distinct, first = np.unique(codes, return_index=True)
        seen = distinct[np.argsort(first, kind="stable")]  # codes in first-seen order
        group_of = np.full(len(coding.names), -1, dtype=np.int64)
        group_of[seen] = np.arange(len(seen), dtype=np.int64)
        group = group_of[codes]
        order = picked[np.argsort(group, kind="stable")]  # each group's runs as given
        ends = np.cumsum(np.bincount(group, minlength=len(seen)), dtype=np.int64)
        names = coding.names
        return cls(
            list(map(names.__getitem__, seen.tolist())),
            int_array(order),
            int_array(ends),
            int_array(group_of),
            coding.code_of,
            coding,
        )

    def __len__(self) -> int:
        return len(self.names)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __contains__(self, case: object) -> bool:
        code = self._code_of.get(case) if isinstance(case, str) else None
        return code is not None and self._group_of[code] >= 0

    def __getitem__(self, case: str) -> Sequence[int]:
        code = self._code_of.get(case) if isinstance(case, str) else None
        group = -1 if code is None else self._group_of[code]
        if group < 0:
            raise KeyError(case)
        return self.group(group)

    def get(self, case: str, default: Any = None) -> Any:
        code = self._code_of.get(case)
        group = -1 if code is None else self._group_of[code]
        return default if group < 0 else self.group(group)

    def groups_of(self, cases: Sequence[str]) -> npt.NDArray[np.int64]:
        """The group number of each of ``cases`` (``-1``: a case without runs here)."""
        import numpy as np

        group_of = np.frombuffer(self._group_of, dtype=np.int64)
        if self._coding is not None:
            codes = self._coding.codes_of(cases)
        else:
            codes = np.fromiter(
                map(self._code_of.get, cases, repeat(-1)), dtype=np.int64, count=len(cases)
            )
        found = codes >= 0
        if not len(group_of):  # no run has a case
            return np.full(len(cases), -1, dtype=np.int64)
        return np.where(found, group_of[np.where(found, codes, 0)], -1)

    def runs_of(self, groups: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The runs of ``groups`` (group numbers, none ``-1``), one group after the other."""
        import numpy as np

        ends = np.frombuffer(self.ends, dtype=np.int64)
        order = np.frombuffer(self.order, dtype=np.int64)
        stops = ends[groups]
        starts = stops - np.diff(ends, prepend=0)[groups]
        lengths = stops - starts
        if len(lengths) == 0 or bool((lengths == 1).all()):
            return order[starts]
        offsets = np.cumsum(lengths) - lengths
        at = np.arange(int(lengths.sum()), dtype=np.int64)
        return order[at - np.repeat(offsets, lengths) + np.repeat(starts, lengths)]

    def single_runs(self, cases: Sequence[str]) -> Sequence[int] | None:
        """The one run of each of ``cases`` when each has exactly one, else ``None``; raises
        ``KeyError`` for a case without runs here."""
        import numpy as np

        groups = self.groups_of(cases)
        if bool((groups < 0).any()):
            raise KeyError(cases[int(np.flatnonzero(groups < 0)[0])])
        ends = np.frombuffer(self.ends, dtype=np.int64)
        if not bool((np.diff(ends, prepend=0)[groups] == 1).all()):
            return None
        return int_array(self.runs_of(groups))

    def group(self, group: int) -> Sequence[int]:
        """The runs of group ``group`` (in first-seen order of the cases)."""
        return self.order[self.ends[group - 1] if group else 0 : self.ends[group]]

    def values(self) -> ValuesView[Sequence[int]]:
        return _Groups(self)

    def items(self) -> ItemsView[str, Sequence[int]]:
        return _GroupItems(self)


class _Groups(ValuesView[Sequence[int]]):
    _mapping: CaseGroups

    def __iter__(self) -> Iterator[Sequence[int]]:
        groups = self._mapping
        return map(groups.group, range(len(groups)))


class _GroupItems(ItemsView[str, Sequence[int]]):
    _mapping: CaseGroups

    def __iter__(self) -> Iterator[tuple[str, Sequence[int]]]:
        groups = self._mapping
        return zip(groups.names, map(groups.group, range(len(groups))), strict=True)


def run_array(runs: Sequence[int]) -> npt.NDArray[np.int64]:
    """Run indices as an int64 numpy array (an ``array("q")``'s buffer as it is)."""
    import numpy as np

    if isinstance(runs, array) and runs.typecode == "q":
        return np.frombuffer(runs, dtype=np.int64) if len(runs) else np.zeros(0, np.int64)
    if isinstance(runs, np.ndarray):
        return runs.astype(np.int64, copy=False)
    return np.fromiter(runs, dtype=np.int64, count=len(runs))


def present_numbers(numbers: array[float], runs: Sequence[int]) -> list[float]:
    """The numbers of the runs at ``runs``, in that order, without the runs that have none
    (NaN in :attr:`MetricValues.numbers`): picked in numpy, given as Python floats."""
    import numpy as np

    if not len(numbers):
        return []
    picked = np.frombuffer(numbers, dtype=np.float64)[run_array(runs)]
    return cast(list[float], picked[~np.isnan(picked)].tolist())


def int_array(values: npt.NDArray[np.int64]) -> array[int]:
    """An int64 numpy array as an ``array`` (its items read back as Python ints)."""
    import numpy as np

    held = array("q")
    held.frombytes(values.astype(np.int64, copy=False).tobytes())
    return held


def has_repeats(table: MetricTable) -> bool:
    """Whether some case has more than one run of one variant (``repeat: K``); memoised."""
    cached = table.memo.get("has_repeats")
    if cached is None:
        cached = table.memo["has_repeats"] = any(
            len(case_groups(table, runs)) != len(runs) for runs in table.by_variant.values()
        )
    return bool(cached)


def _numbers(values: Sequence[Any]) -> list[float]:
    return [
        float(value)
        for value in values
        if isinstance(value, bool | int | float) and math.isfinite(float(value))
    ]


def repeat_value(fn: str, values: Sequence[Any]) -> Any:
    """One case's value from the values of its repeats (``None``: no run has one): the
    share of true values for ``ratio_true``, else the mean of the numeric values; a
    non-numeric value is passed on as it is (the aggregate then reports it)."""
    present = [value for value in values if value is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    if fn == "ratio_true":
        flags = [bool(value) for value in present if isinstance(value, bool | int | float)]
        return sum(flags) / len(flags) if flags else present[0]
    numbers = _numbers(present)
    return statistics.fmean(numbers) if numbers else present[0]


def repeat_spread(values_by_case: Sequence[Sequence[Any]]) -> float | None:
    """The mean over cases of the sample standard deviation of their repeats' numeric
    values (cases with fewer than two such values are left out; ``None``: no case has two)."""
    spreads = [
        statistics.stdev(numbers)
        for values in values_by_case
        if len(numbers := _numbers([value for value in values if value is not None])) >= 2
    ]
    return statistics.fmean(spreads) if spreads else None


def aggregate_column(
    table: MetricTable, item: MetricColumn, runs: Sequence[int], *, scope: str
) -> AggregateValue:
    """``item.fn`` over the values of ``item.semantic_type`` in the runs at indices ``runs``:
    ``count`` and ``sum`` over every run (``total = len(runs)``), every other function over
    each case's repeats first reduced to one value (``total`` = cases; see the module
    docstring); diagnostics go to the table, prefixed with ``scope``."""
    values = table.values(item.semantic_type)
    by_run, numbers = values.by_run, values.numbers
    groups = case_groups(table, runs)
    context = f"{scope}{item.semantic_type}: "
    if item.fn in OVER_RUNS or len(groups) == len(runs):
        result = None
        if numbers is not None:
            # NaN marks a run without a value: no value present is NaN.
            result = numeric_aggregate(item.fn, present_numbers(numbers, runs), len(runs))
        if result is None:
            result = aggregate(
                item.fn,
                [by_run[index] for index in runs],
                labels=[table.run_labels[index] for index in runs],
                context=context,
            )
        spread = None
        if item.fn != "count" and len(groups) != len(runs):
            spread = repeat_spread(
                [[by_run[index] for index in group] for group in groups.values()]
            )
    else:
        values_by_case = [[by_run[index] for index in group] for group in groups.values()]
        result = aggregate(
            "mean" if item.fn == "ratio_true" else item.fn,
            [repeat_value(item.fn, values) for values in values_by_case],
            labels=[f"case {case}" for case in groups],
            context=context,
        )
        spread = repeat_spread(values_by_case)
    table.note(result.diagnostics)
    return AggregateValue(
        fn=item.fn,
        value=result.value,
        n=result.n,
        total=result.total,
        unit=item.unit,
        spread=spread,
    )
