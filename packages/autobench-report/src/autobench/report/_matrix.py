"""The case x variant matrix of one semantic metric."""

from __future__ import annotations

from autobench.records import RunStatus
from autobench.report._aggregates import repeat_value
from autobench.report._metrics import MetricTable
from autobench.report._model import CaseMatrix, MatrixCell

_WORST_FIRST = (RunStatus.ERRORED, RunStatus.FAILED, RunStatus.SKIPPED, RunStatus.PASSED)


def case_matrix(table: MetricTable, semantic_type: str) -> CaseMatrix:
    """``cells[case][variant]``: the run's status and its value of ``semantic_type`` in the
    metric's unit (``None``: no value). A case x variant without a run has no cell. With
    repeats, a cell holds the mean of its repeats' values and the worst of their statuses
    (errored, failed, skipped, passed)."""
    values = table.values(semantic_type)
    cells: dict[str, dict[str, MatrixCell]] = {case: {} for case in table.cases}
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
        # Built from already-validated records: skip re-validating 10,000s of cells.
        cells[case][variant] = MatrixCell(status=status, value=value)
    return CaseMatrix(
        semantic_type=values.semantic_type,
        unit=values.unit,
        variants=table.variants,
        cases=table.cases,
        cells=cells,
    )
