"""Per-run rows: every projected metric of a run in its semantic type's unit, and why a run
did not pass."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from autobench.records import (
    ErrorLocation,
    ErrorRecord,
    ObservationRole,
    RunRecord,
    RunStatus,
    RunTable,
    TaskStatus,
    plan_column,
)
from autobench.report._metrics import MetricTable
from autobench.report._run_row_table import RunRows, not_passed


def _fails(value: Any) -> bool:
    """The constraint rule of the run status: ``False`` or a number equal to ``0`` fails."""
    if value is False:
        return True
    return isinstance(value, int | float) and not isinstance(value, bool) and value == 0


def _with_reason(text: str, reason: str | None) -> str:
    return text if not reason else f"{text}: {reason}"


_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>\S+)', re.M)


def _counted(run: RunRecord) -> list[tuple[int, ErrorRecord]]:
    """The run's errors with their index in ``run.errors``, leaving out optional scorers'."""
    optional = {score.name for score in run.scores if score.optional}
    return [
        (index, error)
        for index, error in enumerate(run.errors)
        if not (error.stage == "scorer" and error.source in optional)
    ]


def error_location(error: ErrorRecord) -> ErrorLocation | None:
    """Where ``error`` was raised in the user's code: its recorded ``location``, else (a
    record written before the field existed) the innermost frame of its traceback whose
    file is not one of the interpreter's places (``<autobench>/``, ``<site-packages>/``,
    ``<stdlib>/``, ``<python>/``, ``<frozen ...>``)."""
    if error.location is not None:
        return error.location
    frames = [m for m in _FRAME.finditer(error.traceback or "") if not m["file"].startswith("<")]
    if not frames:
        return None
    last = frames[-1]
    return ErrorLocation(file=last["file"], line=int(last["line"]), function=last["function"])


def traced_error(run: RunRecord) -> tuple[int, ErrorRecord] | None:
    """The error (with its index in ``run.errors``) whose traceback explains why ``run`` did
    not pass: the first counted error with a traceback, for a run that errored, was
    skipped or whose task failed; ``None`` otherwise."""
    if run.status is RunStatus.PASSED:
        return None
    if run.status is RunStatus.FAILED and run.task_status is not TaskStatus.FAILED:
        return None
    return next(((i, error) for i, error in _counted(run) if error.traceback), None)


def run_reason(run: RunRecord) -> str | None:
    """Why ``run`` did not pass (``None`` for a passed run).

    Errored: its first error (``type: message``), ignoring errors of optional
    scorers. Failed: the errors the task reported, else every failing
    constraint (``constraint <name> failed: <reason>``). Skipped: its first
    error, else ``"skipped"``.
    """
    if run.status is RunStatus.PASSED:
        return None
    errors = [error for _, error in _counted(run)]
    described = [_with_reason(error.type, error.message) for error in errors]
    if run.status is RunStatus.ERRORED or run.status is RunStatus.SKIPPED:
        fallback = "skipped" if run.status is RunStatus.SKIPPED else "errored"
        return described[0] if described else fallback
    if run.task_status is TaskStatus.FAILED and described:
        return "; ".join(described)
    failing = [
        _with_reason(f"constraint {score.name} failed", score.reason)
        for score in run.scores
        if score.error is None and score.role == ObservationRole.CONSTRAINT and _fails(score.value)
    ]
    failing += [
        _with_reason(f"constraint {obs.name} failed", obs.reason)
        for obs in run.observations
        if obs.role == ObservationRole.CONSTRAINT and _fails(obs.value)
    ]
    return "; ".join(failing or described) or "failed"


_PASSED = RunStatus.PASSED


def _records(runs: Sequence[RunRecord], positions: list[int]) -> list[RunRecord]:
    """The records of ``runs`` at ``positions`` (built only for those of a run table)."""
    if isinstance(runs, RunTable):
        return runs.records(positions)
    return [runs[index] for index in positions]


def runs_not_passed(runs: Sequence[RunRecord]) -> list[RunRecord]:
    """The runs that did not pass, in run order; of a :class:`~autobench.records.RunTable`,
    only those records are built."""
    if isinstance(runs, RunTable):
        return runs.records(not_passed(runs.statuses))
    return [run for run in runs if run.status is not _PASSED]


class _Policies(Sequence[Mapping[str, bool]]):
    """Each run's policy results by name (``True`` for a passed one), from the metric
    table's policy observations, converted when asked for (nearly every run has none)."""

    def __init__(self, verdicts: Sequence[Mapping[str, Any]]) -> None:
        self.verdicts = verdicts

    def __len__(self) -> int:
        return len(self.verdicts)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[position] for position in range(len(self))[index]]
        return {name: o.value is True for name, o in self.verdicts[index].items()}


def run_rows(table: MetricTable) -> RunRows:
    """One row per run (plan order) with ``metrics[semantic_type]`` for every projected type
    the run has a usable value of, its record path, and for a run that did not pass, the
    reason and (when an error with a traceback explains it) where the error was raised and
    the key of its traceback: as :class:`RunRows`, the columns of ``table`` (no model per
    run)."""
    metrics = {
        values.semantic_type: values.by_run
        for values in (table.values(semantic) for semantic in table.semantic_types)
    }
    # Whole records only for the runs that did not pass (their reason and error).
    failing = not_passed(table.statuses)
    details: dict[int, tuple[str | None, ErrorLocation | None, str | None]] = {}
    for index, run in zip(failing, _records(table.runs, failing), strict=True):
        traced = traced_error(run)
        details[index] = (
            run_reason(run),
            None if traced is None else error_location(traced[1]),
            None if traced is None else f"errors[{traced[0]}].traceback",
        )
    plan = table.result.experiment.plan

    def paths() -> dict[str, str]:
        ids, where = plan_column(plan, "id"), plan_column(plan, "path")
        return {i: p for i, p in zip(ids, where, strict=True) if i is not None and p is not None}

    return RunRows(
        run_ids=table.run_ids,
        case_ids=table.case_ids,
        variant_ids=table.variant_ids,
        statuses=table.statuses,
        task_statuses=table.task_statuses,
        evaluation_statuses=table.evaluation_statuses,
        metrics=metrics,
        policies=_Policies(table.policies),
        details=details,
        paths=paths,
    )
