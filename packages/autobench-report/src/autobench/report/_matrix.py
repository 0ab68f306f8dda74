"""The case x variant matrix of one semantic metric."""

from __future__ import annotations

from typing import Any

from autobench.records import RunStatus
from autobench.report._aggregates import has_repeats, repeat_value
from autobench.report._metrics import MetricTable, MetricValues
from autobench.report._model import CaseMatrix, MatrixCell

_PLAIN = frozenset({type(None), bool, int, float, str})
_WORST_FIRST = (RunStatus.ERRORED, RunStatus.FAILED, RunStatus.SKIPPED, RunStatus.PASSED)


def case_matrix(table: MetricTable, semantic_type: str) -> CaseMatrix:
    """``cells[case][variant]``: the run's status and its value of ``semantic_type`` in the
    metric's unit (``None``: no value). A case x variant without a run has no cell. With
    repeats, a cell holds the mean of its repeats' values and the worst of their statuses
    (errored, failed, skipped, passed)."""
    values = table.values(semantic_type)
    rows = _Rows(table.cases)
    alike: dict[tuple[Any, type, Any], MatrixCell] = {}
    if not has_repeats(table):  # one run per case x variant: its cell
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
