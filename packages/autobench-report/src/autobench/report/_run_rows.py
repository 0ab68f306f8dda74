"""Per-run rows: every projected metric of a run in its semantic type's unit, and why a run
did not pass."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from autobench.records import (
    ErrorLocation,
    ErrorRecord,
    ObservationRole,
    RunRecord,
    RunStatus,
    RunTable,
    TaskStatus,
)
from autobench.records._fields_sets import share_fields_sets, share_flat_fields_sets
from autobench.report._metrics import MetricTable
from autobench.report._model import RunMetricRow


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
        return runs.records(
            [index for index, status in enumerate(runs.statuses) if status is not _PASSED]
        )
    return [run for run in runs if run.status is not _PASSED]


def _share_fields_sets(rows: list[RunMetricRow]) -> None:
    """``share_fields_sets(rows)`` for the rows :func:`run_rows` builds, whose only models
    inside are their error locations (metric values are recorded values, never models)."""
    share_flat_fields_sets(rows)
    for row in rows:
        if row.location is not None:
            share_fields_sets(row.location)


def run_rows(table: MetricTable) -> list[RunMetricRow]:
    """One row per run (plan order) with ``metrics[semantic_type]`` for every projected type
    the run has a usable value of, its record path, and for a run that did not pass, the
    reason and (when an error with a traceback explains it) where the error was raised and
    the key of its traceback."""
    # Column by column: each run's metrics in the order of the table's semantic types.
    metrics: list[dict[str, Any]] = [{} for _ in table.run_ids]
    for semantic in table.semantic_types:
        values = table.values(semantic)
        for index, value in enumerate(values.by_run):
            if value is not None:
                metrics[index][values.semantic_type] = value
    paths = {planned.id: planned.path for planned in table.result.experiment.plan}
    # Whole records only for the runs that did not pass (their reason and error).
    failing = [index for index, status in enumerate(table.statuses) if status is not _PASSED]
    records = dict(zip(failing, _records(table.runs, failing), strict=True))
    rows = []
    for index, run_id in enumerate(table.run_ids):
        run = records.get(index)
        traced = None if run is None else traced_error(run)
        # Validated in C: cheaper than model_construct...
        rows.append(
            RunMetricRow(
                run_id=run_id,
                case_id=table.case_ids[index],
                variant_id=table.variant_ids[index],
                status=table.statuses[index],
                task_status=table.task_statuses[index],
                evaluation_status=table.evaluation_statuses[index],
                metrics=metrics[index],
                policies={
                    name: observation.value is True
                    for name, observation in table.policies[index].items()
                },
                reason=None if run is None else run_reason(run),
                location=None if traced is None else error_location(traced[1]),
                traceback_key=None if traced is None else f"errors[{traced[0]}].traceback",
                record_path=paths.get(run_id),
            )
        )
    _share_fields_sets(rows)  # one row per run: one fields-set for all rows of a shape
    return rows
