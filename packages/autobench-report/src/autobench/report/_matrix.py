"""The case x variant matrix of one semantic metric."""

from __future__ import annotations

import math
from typing import Any

from autobench.records import RunStatus
from autobench.report._aggregates import has_repeats, repeat_value
from autobench.report._metrics import STATUSES, MetricTable, MetricValues
from autobench.report._model import CaseMatrix, MatrixCell

_PLAIN = frozenset({type(None), bool, int, float, str})
_WORST_FIRST = (RunStatus.ERRORED, RunStatus.FAILED, RunStatus.SKIPPED, RunStatus.PASSED)


def case_matrix(table: MetricTable, semantic_type: str) -> CaseMatrix:
    """``cells[case][variant]``: the run's status and its value of ``semantic_type`` in the
    metric's unit (``None``: no value). A case x variant without a run has no cell. With
    repeats, a cell holds the mean of its repeats' values and the worst of their statuses
    (errored, failed, skipped, passed)."""
    values = table.values(semantic_type)
    if not has_repeats(table):  # one run per case x variant: its cell
        cells = _cells_in_numpy(table, values)
        if cells is not None:
            return _matrix(table, values, cells)
    rows = _Rows(table.cases)
    alike: dict[tuple[Any, type, Any], MatrixCell] = {}
    if not has_repeats(table):
        by_run, run_statuses = values.by_run, table.statuses
        keys = zip(table.case_ids, table.variant_ids, strict=True)
        for index, (case, variant) in enumerate(keys):
            rows.set(case, variant, _cell(alike, run_statuses[index], by_run[index]))
        return _matrix(table, values, rows.cells())
    repeats: dict[tuple[str, str], list[int]] = {}
    for index, key in enumerate(zip(table.case_ids, table.variant_ids, strict=True)):
        repeats.setdefault(key, []).append(index)
    for (case, variant), indices in repeats.items():
        if len(indices) == 1:
            status, value = table.statuses[indices[0]], values.by_run[indices[0]]
        else:
            statuses = {table.statuses[index] for index in indices}
            status = next(item for item in _WORST_FIRST if item in statuses)
            value = repeat_value("mean", [values.by_run[index] for index in indices])
        rows.set(case, variant, _cell(alike, status, value))
    return _matrix(table, values, rows.cells())


_EXACT_FLOAT = 2.0**53
"""Integers below this in magnitude are exactly their float."""


def _cells_in_numpy(
    table: MetricTable, values: MetricValues
) -> dict[str, dict[str, MatrixCell]] | None:
    """The cells of a matrix without repeats as the run-by-run loop makes them (the same
    cells shared the same way, rows in the same order, each row's variants in run order),
    found in numpy: each run's cell is numbered by its status, its value's class and the
    value's float (so only for values that are booleans or numbers exact as floats, and
    statuses that are :data:`STATUSES`; -0.0 and 0.0 are one value to numpy as to a
    dictionary, the cell the first run's), each case's row by the
    sequence of its runs' variant and cell numbers. ``None`` where that does not hold: the
    caller goes run by run."""
    import numpy as np

    kinds, numbers = values.kinds, values.numbers
    if kinds is None or numbers is None or not kinds <= _NUMBER_KINDS:
        return None
    count = len(table.runs)
    status = table.status_codes()  # int8
    if count == 0 or bool((status < 0).any()):
        return None
    # One array of a million runs at a time where it can (8 MB each): numbered in place.
    value = np.frombuffer(numbers, dtype=np.float64).copy()
    absent = np.isnan(value)
    value[absent] = 0.0
    if int in kinds and bool((np.abs(value) >= _EXACT_FLOAT).any()):
        return None
    low, high = float(value.min()), float(value.max())
    if high - low < 2**40 and bool((value == np.floor(value)).all()):
        value -= low  # whole numbers: their own codes
        key = value.astype(np.int64)
    else:
        key = np.unique(value, return_inverse=True)[1].astype(np.int64).reshape(-1)
    del value
    # The value's class: one per run when the column has one, else read per run (in C).
    key *= 4
    if len(kinds) == 1:
        key[~absent] += _KIND_CODE[next(iter(kinds))]
    else:
        key += np.fromiter(
            map(_KIND_CODE.__getitem__, map(type, values.by_run)), dtype=np.int8, count=count
        )
    del absent
    key *= len(STATUSES)
    key += status
    cell_of, first = factorize(key)
    del key
    by_run = values.by_run
    # Each cell made from its first run, in run order (as the loop made them).
    cells = [
        MatrixCell(status=STATUSES[int(status[run])], value=by_run[run]) for run in first.tolist()
    ]
    return _rows_in_numpy(table, cell_of, cells)


def factorize(keys: Any) -> tuple[Any, Any]:
    """Number the distinct values of ``keys`` (a numpy int64 array) in order of first
    appearance: each key's number, and where each number first appears (int64 arrays). By
    counting when the keys span a range of a few times their count (no sort), else by
    ``numpy.unique``."""
    import numpy as np

    size = len(keys)
    if size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    low, high = int(keys.min()), int(keys.max())
    if high - low < 4 * size + 1024:
        shifted = keys - low
        first = np.full(high - low + 1, size, dtype=np.int64)
        np.minimum.at(first, shifted, np.arange(size, dtype=np.int64))
        firsts = np.sort(first[first < size])
        del first
        number = np.empty(high - low + 1, dtype=np.int64)
        number[shifted[firsts]] = np.arange(len(firsts), dtype=np.int64)
        numbered = number[shifted]
        return numbered, firsts
    distinct, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    made = np.argsort(first, kind="stable")
    renumber = np.empty(len(distinct), dtype=np.int64)
    renumber[made] = np.arange(len(distinct), dtype=np.int64)
    return renumber[inverse.reshape(-1)], first[made]


def _rows_in_numpy(
    table: MetricTable, cell_of: Any, cells: list[MatrixCell]
) -> dict[str, dict[str, MatrixCell]]:
    """``cells[case][variant]`` from each run's cell number (``cell_of``) without repeats:
    a case's row is its runs' ``variant: cell`` in run order; cases whose rows hold the same
    pairs share one row dictionary; a case without runs has the one empty row."""
    import numpy as np

    coding = table.case_coding()
    names, variant_of = table.variant_codes()
    case_of = coding.codes
    token = cell_of  # each run's variant and cell as one number (in place: 8 MB a million)
    token += variant_of * len(cells)
    if bool((case_of[1:] >= case_of[:-1]).all()):  # each case's runs together already
        order = None
    else:
        order = np.argsort(case_of, kind="stable")  # each case's runs together, in run order
    sizes = np.bincount(case_of, minlength=len(coding.names))
    starts = np.cumsum(sizes) - sizes
    row_of = np.full(len(coding.names), -1, dtype=np.int64)  # each case code's row
    rows: list[dict[str, MatrixCell]] = []
    base = len(names) * len(cells)
    for size in np.unique(sizes[sizes > 0]).tolist():
        with_size = np.flatnonzero(sizes == size)  # case codes whose rows have ``size`` runs
        runs = starts[with_size][:, None] + np.arange(size, dtype=np.int64)
        if order is not None:
            runs = order[runs]
        tokens = token[runs]
        if size * math.log2(max(base, 2)) < 62:  # a row's tokens as the digits of one number
            key = np.zeros(len(with_size), dtype=np.int64)
            for column in range(size):
                key = key * base + tokens[:, column]
            row, first = factorize(key)
        else:
            _, first, row = np.unique(tokens, axis=0, return_index=True, return_inverse=True)
            row = row.reshape(-1)
        row_of[with_size] = row + len(rows)
        for row_runs in runs[first].tolist():
            rows.append(
                {
                    names[int(token[r]) // len(cells)]: cells[int(token[r]) % len(cells)]
                    for r in row_runs
                }
            )
        del runs, tokens
    rows.append({})  # the row of a case without runs
    codes = coding.codes_of(table.cases)
    found = row_of[np.where(codes >= 0, codes, 0)]
    chosen = np.where((codes >= 0) & (found >= 0), found, len(rows) - 1)
    return dict(zip(table.cases, map(rows.__getitem__, chosen.tolist()), strict=True))


_NUMBER_KINDS = frozenset({bool, int, float})
_KIND_CODE: dict[type, int] = {type(None): 0, bool: 1, int: 2, float: 3}


class _Rows:
    """The rows of a matrix (each case's cells by variant, in the order they were set),
    built so that cases whose rows hold the same cells share one row: a case holds the key
    of its row so far (a tuple of ``(variant, id(cell))`` pairs, one object per distinct
    row prefix), not a dictionary of its own. A million cases of a pass/fail metric make a
    few rows, not a million dictionaries (about 110 MB)."""

    def __init__(self, cases: tuple[str, ...]) -> None:
        self.keys: dict[str, tuple[tuple[str, int], ...]] = dict.fromkeys(cases, ())
        self.longer: dict[tuple[Any, str, int], tuple[tuple[str, int], ...]] = {}
        self.cell_of: dict[int, MatrixCell] = {}

    def set(self, case: str, variant: str, cell: MatrixCell) -> None:
        """``cells[case][variant] = cell``."""
        key = self.keys.get(case, ())
        step = (key, variant, id(cell))
        longer = self.longer.get(step)
        if longer is None:
            pairs = dict(key)
            pairs[variant] = id(cell)  # a variant set again keeps its place, as in a dict
            longer = self.longer[step] = tuple(pairs.items())
            self.cell_of[id(cell)] = cell
        self.keys[case] = longer

    def cells(self) -> dict[str, dict[str, MatrixCell]]:
        """``cells[case][variant]``; cases with equal rows share one dictionary (read it,
        do not change it)."""
        made: dict[tuple[tuple[str, int], ...], dict[str, MatrixCell]] = {}
        cell_of = self.cell_of
        out: dict[str, dict[str, MatrixCell]] = {}
        for case, key in self.keys.items():
            row = made.get(key)
            if row is None:
                row = made[key] = {variant: cell_of[ident] for variant, ident in key}
            out[case] = row
        return out


def _matrix(
    table: MetricTable, values: MetricValues, cells: dict[str, dict[str, MatrixCell]]
) -> CaseMatrix:
    # Built from validated parts: validating would copy a dictionary per case.
    return CaseMatrix.model_construct(
        semantic_type=values.semantic_type,
        unit=values.unit,
        variants=table.variants,
        cases=table.cases,
        cells=cells,
    )


def _cell(
    alike: dict[tuple[Any, type, Any], MatrixCell], status: RunStatus | None, value: Any
) -> MatrixCell:
    """The cell of ``status`` and ``value``: one frozen cell for every case x variant with
    the same status and value (of the same type: ``1``, ``1.0`` and ``True`` show
    differently), so a matrix of a million runs holds a few cells, not a million. Only
    plain values (``None``, numbers, text) are shared: equal values of other types may
    still show differently (``Decimal("1.0")`` and ``Decimal("1.00")``)."""
    kind = type(value)
    if kind not in _PLAIN:
        return MatrixCell(status=status, value=value)
    key = (status, kind, value)
    cell = alike.get(key)
    if cell is None:
        cell = alike[key] = MatrixCell(status=status, value=value)
    return cell
