"""The case x variant matrix of one semantic metric."""

from __future__ import annotations

from autobench.report._metrics import MetricTable
from autobench.report._model import CaseMatrix, MatrixCell


def case_matrix(table: MetricTable, semantic_type: str) -> CaseMatrix:
    """``cells[case][variant]``: the run's status and its value of ``semantic_type`` in the
    metric's unit (``None``: no value). A case x variant without a run has no cell."""
    values = table.values(semantic_type)
    cells: dict[str, dict[str, MatrixCell]] = {case: {} for case in table.cases}
    for index, run in enumerate(table.runs):
        # Built from already-validated records: skip re-validating 10,000s of cells.
        cells[run.case_id][run.variant_id] = MatrixCell(
            status=run.status, value=values.by_run[index]
        )
    return CaseMatrix(
        semantic_type=values.semantic_type,
        unit=values.unit,
        variants=table.variants,
        cases=table.cases,
        cells=cells,
    )
