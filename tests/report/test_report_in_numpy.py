"""The report's views computed over whole columns (numpy, ``map`` in C) give what the
run-by-run rules give: a column's values by run, as numbers and their classes; status
counts; the pass rate; the case matrix's cells, their sharing and its rows; the pass/fail
test of a comparison; the matrix's differing cases. Checked against those rules written
plainly here, on generated values (hypothesis) and on a real benchmark whose values mix
booleans, integers (one too large for a float, one above 2**53), floats (a NaN, an
infinity, a negative zero), texts and missing values, with failed and errored runs."""

from __future__ import annotations

import math
from array import array
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from report_support import RunBench

from autobench.records import RunStatus
from autobench.report import build_report
from autobench.report._compare import Side, _is_pass_fail
from autobench.report._leaderboard import leaderboard
from autobench.report._matrix import _cells_in_numpy, case_matrix, factorize
from autobench.report._metrics import MetricTable, _held
from autobench.report._model import CaseMatrix, MatrixCell, MetricColumn
from autobench.report._render import differing_cases
from autobench.report._run_row_table import not_passed

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=3),
    st.sampled_from([2**53 + 1, 2**70, 10**400, -(2**63)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1.0, 0.5]),
    st.text(max_size=2),
)


def _by_run_rule(count: int, positions: list[int], values: list[Any]) -> list[Any]:
    """A run's value, ``None`` for no value or a NaN (the rule of MetricTable.values)."""
    by_run: list[Any] = [None] * count
    for index, value in zip(positions, values, strict=True):
        if value is not None and not (isinstance(value, float) and math.isnan(value)):
            by_run[index] = value
    return by_run


def _numbers_rule(by_run: list[Any]) -> list[float] | None:
    """The values as floats (``None`` as NaN) when each is a boolean or a number finite as a
    float, else ``None``."""
    numbers = []
    for value in by_run:
        if value is None:
            numbers.append(math.nan)
            continue
        if value.__class__ not in (bool, int, float):
            return None
        try:
            number = float(value)
        except OverflowError:
            return None
        if not math.isfinite(number):
            return None
        numbers.append(number)
    return numbers


def _exact(values: Any) -> list[tuple[type, str]]:
    """Values with their class and representation (a negative zero stays one)."""
    return [(type(value), repr(value)) for value in values]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_columns_values_follow_the_run_by_run_rule(data: st.DataObject) -> None:
    count = data.draw(st.integers(min_value=0, max_value=12))
    chosen = data.draw(st.lists(st.booleans(), min_size=count, max_size=count))
    positions = [index for index, keep in enumerate(chosen) if keep]
    values = data.draw(st.lists(_VALUES, min_size=len(positions), max_size=len(positions)))
    known = data.draw(st.booleans())  # the caller gives the classes, or not
    by_run, numbers, kinds = _held(
        count,
        array("q", positions),
        list(values),
        {type(value) for value in values} if known else None,
    )
    expected = _by_run_rule(count, positions, values)
    assert _exact(by_run) == _exact(expected)
    assert kinds == {type(value) for value in expected if value is not None}
    reference = _numbers_rule(expected)
    if reference is None:
        assert numbers is None
    else:
        assert numbers is not None
        assert _exact(numbers.tolist()) == _exact(reference)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=-5, max_value=5) | st.sampled_from([10**12, -(10**15)])))
def test_factorize_numbers_keys_in_order_of_first_appearance(keys: list[int]) -> None:
    numbers, first = factorize(np.array(keys, dtype=np.int64))
    order: dict[int, int] = {}
    expected = [order.setdefault(key, len(order)) for key in keys]
    assert numbers.tolist() == expected
    assert first.tolist() == [keys.index(key) for key in order]


TASK = """
VALUES = {
    "c1": {"a": True, "b": False},
    "c2": {"a": 1, "b": 1.0},
    "c3": {"a": None, "b": 2},
    "c4": {"a": 2**53 + 1, "b": 2**53},
    "c5": {"a": -0.0, "b": 0.0},
    "c6": {"a": float("nan"), "b": float("inf")},
    "c7": {"a": "x", "b": "x"},
    "c8": {"a": 0.5, "b": 0.5},
    "c9": {"a": 10**400, "b": 3},
}
KINDS = {
    "flag": lambda v: isinstance(v, bool),
    "whole": lambda v: isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2**53,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool) and abs(v) < 1e300,
    "float": lambda v: isinstance(v, float) and v == v and abs(v) < 1e300,
    "mixed": lambda v: isinstance(v, bool | int | float) and v == v and abs(v) < 2**53,
    "any": lambda v: True,
}

def run(ctx, case):
    mode = ctx.factor("mode")
    if case.id == "c6" and mode == "b":
        raise RuntimeError("c6 errors in b")
    for name, fits in KINDS.items():
        for key, values in VALUES.items():
            value = values[mode]
            if key == case.id and value is not None and fits(value):
                ctx.metric(name, value, semantic_type=f"test.{name}")
    answer = "yes" if case.id in ("c1", "c2", "c8") else "no"
    return {"answer": answer, "matched": case.id != "c4" or mode == "a"}
"""

VARIANTS = [{"id": "a", "factors": {"mode": "a"}}, {"id": "b", "factors": {"mode": "b"}}]
SCORING = [
    {
        "kind": "exact",
        "name": "correct",
        "actual": "output.answer",
        "expected": "case.expected.answer",
        "semantic": "quality.correctness",
    },
    {
        "kind": "pass_fail",
        "name": "success",
        "path": "output.matched",
        "semantic": "result.success",
    },
]


def _run_mixed(run_bench: RunBench) -> MetricTable:
    cases = [{"id": f"c{i}", "expected": {"answer": "yes"}} for i in range(1, 10)]
    result = run_bench(TASK, cases=cases, variants=VARIANTS, scoring=SCORING)
    return MetricTable(result)


def _matrix_by_loop(table: MetricTable, semantic_type: str) -> dict[str, dict[str, MatrixCell]]:
    """The matrix rule run by run (no repeats): each case's cells in run order, one cell per
    (status, class, value), rows shared by equal cells."""
    by_run = table.values(semantic_type).by_run
    cells: dict[tuple[Any, ...], MatrixCell] = {}
    rows: dict[str, dict[str, MatrixCell]] = {case: {} for case in table.cases}
    for index, (case, variant) in enumerate(zip(table.case_ids, table.variant_ids, strict=True)):
        status, value = table.statuses[index], by_run[index]
        key = (status, type(value), value)
        cell = cells.setdefault(key, MatrixCell(status=status, value=value))
        rows[case][variant] = cell
    return rows


def _shape(cells: dict[str, dict[str, MatrixCell]]) -> list[Any]:
    """Each case's row as (variant, status, class, repr, which cell, which row)."""
    cell_ids: dict[int, int] = {}
    row_ids: dict[tuple[tuple[str, int], ...], int] = {}
    out = []
    for case, row in cells.items():
        pairs = [
            (
                variant,
                cell.status,
                type(cell.value),
                repr(cell.value),
                cell_ids.setdefault(id(cell), len(cell_ids)),
            )
            for variant, cell in row.items()
        ]
        key = tuple((variant, ident) for variant, *_, ident in pairs)
        out.append((case, pairs, row_ids.setdefault(key, len(row_ids))))
    return out


def test_the_views_in_numpy_give_the_run_by_run_results(run_bench: RunBench) -> None:
    table = _run_mixed(run_bench)
    result = table.result
    statuses = set(table.statuses)
    assert RunStatus.ERRORED in statuses and RunStatus.FAILED in statuses

    # Values by run, numbers and classes: the rule over the projected values.
    for semantic in table.semantic_types:
        values = table.values(semantic)
        assert values.kinds == {type(v) for v in values.by_run if v is not None}
        reference = _numbers_rule(list(values.by_run))
        assert (values.numbers is None) == (reference is None)
        if reference is not None and values.numbers is not None:
            assert _exact(values.numbers.tolist()) == _exact(reference)

    # Status counts and the pass rate: the records' own counts.
    assert table.status_counts() == result.status_counts()
    for variant in table.variants:
        assert table.status_counts(variant) == result.status_counts(variant)
    board = leaderboard(table, [])
    for row in board.rows:
        runs = [run for run in result.runs if run.variant_id == row.variant]
        passed = sum(run.status is RunStatus.PASSED for run in runs)
        assert row.pass_rate is not None and row.pass_rate.value == passed / len(runs)
    assert not_passed(table.statuses) == [
        index for index, status in enumerate(table.statuses) if status is not RunStatus.PASSED
    ]

    # The matrix: the same cells, shared the same way, wherever numpy can number them.
    numbered = []
    for semantic in table.semantic_types:
        fast = _cells_in_numpy(table, table.values(semantic))
        expected = _matrix_by_loop(table, semantic)
        matrix = case_matrix(table, semantic)
        assert _shape(matrix.cells) == _shape(expected)
        if fast is not None:
            numbered.append(semantic)
            assert _shape(fast) == _shape(expected)
    # Booleans, scores, small whole numbers, floats (a negative zero among them) and all of
    # these in one column (``True``, ``1`` and ``1.0`` three cells) are numbered in numpy; a column with integers from 2**53 on, and one with texts, are
    # left to the loop.
    assert {"test.flag", "test.whole", "test.float", "test.mixed"} <= set(numbered)
    assert "quality.correctness" in numbered
    assert "test.number" not in numbered and "test.any" not in numbered

    # The pass/fail test of each side: booleans, or scores of 0 and 1 only.
    for semantic in table.semantic_types:
        item = MetricColumn(name=semantic, semantic_type=semantic, fn="mean")
        for variant in table.variants:
            side = Side.of(table, variant)
            cases = tuple(case for case in table.cases if case in side.cases)
            runs = [i for case in cases for i in side.cases[case]]
            by_run = table.values(semantic).by_run
            present = [i for i in runs if by_run[i] is not None]
            expected_pf = bool(present) and (
                all(isinstance(by_run[i], bool) for i in present)
                or (
                    all(by_run[i] in (0, 1) for i in present)
                    and all(i in table.scored(semantic) for i in present)
                )
            )
            assert _is_pass_fail(side, item, cases) == expected_pf, (semantic, variant)

    # The whole report builds (and its matrix is the loop's).
    report = build_report(result)
    assert report.status == result.status_counts()


def _cell(status: RunStatus, value: Any) -> MatrixCell:
    return MatrixCell(status=status, value=value)


def test_differing_cases_are_those_whose_cells_differ() -> None:
    one, other = _cell(RunStatus.PASSED, 1), _cell(RunStatus.FAILED, 1)
    same_value = _cell(RunStatus.PASSED, 1)
    shared = {"a": one, "b": one}
    cells = {
        "c1": shared,
        "c2": {"a": one, "b": other},
        "c3": shared,
        "c4": {"a": one, "b": same_value},  # equal cells, two objects: not different
        "c5": {"a": one},  # no run of b
    }
    matrix = CaseMatrix(
        semantic_type="t",
        variants=("a", "b"),
        cases=("c1", "c2", "c3", "c4", "c5", "c6"),
        cells=cells,
    )
    assert differing_cases(matrix) == ["c2", "c5"]
