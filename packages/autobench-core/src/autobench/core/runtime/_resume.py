"""Resuming an interrupted experiment: what changed since it began, and what is left to run.

A record directory is resumed against the current spec. The spec hash, the
dataset hash and the ``files`` sha256 map recorded in ``experiment.yaml`` are
compared with the current ones (:func:`resume_changes`); any difference
refuses the resume (:class:`ResumeError`) unless it is forced, in which case
the session's summary says so (``resumed.forced``, ``resumed.changed``).
Only planned runs of the recorded plan without a ``run.yaml`` are executed;
the experiment id and ``experiment.yaml`` stay as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from autobench.records import (
    ExperimentRecord,
    RecordFormatError,
    RecordingError,
    RunRecord,
    check_own_run,
    check_run_files,
    experiment_changes,
    load_experiment_record,
    load_run_record,
    record_file,
)


class ResumeError(RecordingError):
    """The experiment cannot be resumed: its record is missing, or the spec, dataset or
    source files changed since it began (and the resume was not forced)."""


def resume_changes(recorded: ExperimentRecord, current: ExperimentRecord) -> tuple[str, ...]:
    """What differs between the experiment as recorded and as it would start now:
    ``spec`` (its hash), ``dataset`` (its hash), and each source file path whose
    sha256 changed, that appeared or that disappeared
    (:func:`autobench.records.experiment_changes`)."""
    return experiment_changes(recorded, current)


def describe_changes(root: Path, recorded: ExperimentRecord, current: ExperimentRecord) -> str:
    lines = []
    for item in resume_changes(recorded, current):
        if item in ("spec", "dataset"):
            lines.append(f"the {item} hash differs")
        elif item not in current.files:
            lines.append(f"{item} was removed")
        elif item not in recorded.files:
            lines.append(f"{item} is new")
        else:
            lines.append(f"{item} changed")
    return (
        f"cannot resume {root}: {'; '.join(lines)} since experiment "
        f"{recorded.experiment_id} began; use --force (force=True) to resume anyway"
    )


def unrecorded_runs(root: Path) -> tuple[int, int]:
    """``(missing, planned)``: how many planned runs of the experiment in ``root`` have no
    ``run.yaml`` yet, of how many. Reads ``experiment.yaml`` only; raises
    :class:`ResumeError` when ``root`` holds no experiment and
    :class:`~autobench.records.RecordFormatError` when a run path leaves it."""
    root = Path(root)
    if not (root / "experiment.yaml").is_file():
        raise ResumeError(
            f"cannot resume {root}: it holds no experiment.yaml", path=root / "experiment.yaml"
        )
    plan = load_experiment_record(root).plan
    missing = 0
    for planned in plan:
        path = record_file(
            root, planned.path, what=f"run {planned.id!r}", source=root / "experiment.yaml"
        )
        missing += not path.is_file()
    return missing, len(plan)


def load_for_resume(root: Path) -> tuple[ExperimentRecord, tuple[RunRecord, ...]]:
    """The recorded experiment and its recorded runs (plan order, without post-derived
    observations). Raises :class:`ResumeError` when ``root`` holds no experiment, and
    :class:`~autobench.records.RecordFormatError` (with the file's line:column) when a
    recorded ``run.yaml`` cannot be read, or is not this experiment's run at that place
    (another experiment's, edited factors or case input: ``check_own_run``), or names a
    path outside the record: such a file is neither taken as recorded nor run again,
    since its run would have to overwrite it; moved out of the record, it is run again."""
    root = Path(root)
    if not (root / "experiment.yaml").is_file():
        raise ResumeError(
            f"cannot resume {root}: it holds no experiment.yaml", path=root / "experiment.yaml"
        )
    recorded = load_experiment_record(root)
    runs: list[RunRecord] = []
    for planned in recorded.plan:
        path = record_file(
            root, planned.path, what=f"run {planned.id!r}", source=root / "experiment.yaml"
        )
        if path.is_file():
            run = load_run_record(path, root=root)
            if run.run_id != planned.id:
                raise RecordFormatError(
                    f"holds run {run.run_id!r}, but the plan puts run {planned.id!r} here",
                    path=path,
                )
            check_own_run(recorded, planned, run, source=path)
            check_run_files(run, root, source=path)
            runs.append(run)
    return recorded, tuple(runs)


def plan_order(recorded: ExperimentRecord, runs: Sequence[RunRecord]) -> tuple[RunRecord, ...]:
    """``runs`` in the recorded plan's order."""
    position = {planned.id: index for index, planned in enumerate(recorded.plan)}
    return tuple(sorted(runs, key=lambda run: position.get(run.run_id, len(position))))
