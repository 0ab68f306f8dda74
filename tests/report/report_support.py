"""Types shared by the report tests."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from autobench.records import ExperimentResult, PlannedRun, RunRecord

RunBench = Callable[..., ExperimentResult]


def scaled(result: ExperimentResult, count: int) -> ExperimentResult:
    """``result`` grown (or cut) to ``count`` runs: its runs repeated in turn under new case
    ids (two runs a case) and run ids, with a plan to match; for size tests of the report."""
    runs: list[RunRecord] = []
    for index in range(count):
        template = result.runs[index % len(result.runs)]
        case = f"case{index // 2:05d}"
        run_id = f"run_{index:05d}_{case}_{template.variant_id}"
        info = template.run.model_copy(update={"id": run_id, "case": case, "index": index})
        runs.append(template.model_copy(update={"run": info}))
    plan = tuple(
        PlannedRun(id=run.run_id, case=run.case_id, variant=run.variant_id, path="x")
        for run in runs
    )
    experiment = result.experiment.model_copy(update={"plan": plan})
    return dataclasses.replace(result, experiment=experiment, runs=tuple(runs))
