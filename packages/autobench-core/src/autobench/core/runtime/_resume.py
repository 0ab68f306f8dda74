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
from pathlib import Path, PurePosixPath

from autobench.records import (
    ExperimentRecord,
    RecordingError,
    RunRecord,
    experiment_changes,
    load_experiment_record,
    load_run_record,
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
    :class:`ResumeError` when ``root`` holds no experiment or a run path leaves it."""
    root = Path(root)
    if not (root / "experiment.yaml").is_file():
        raise ResumeError(
            f"cannot resume {root}: it holds no experiment.yaml", path=root / "experiment.yaml"
        )
    plan = load_experiment_record(root).plan
    missing = 0
    for planned in plan:
        pure = PurePosixPath(planned.path)
        if pure.is_absolute() or ".." in pure.parts or not pure.parts:
            raise ResumeError(f"run path {planned.path!r} leaves {root}", path=root)
        missing += not root.joinpath(*pure.parts).is_file()
    return missing, len(plan)


def load_for_resume(root: Path) -> tuple[ExperimentRecord, tuple[RunRecord, ...]]:
    """The recorded experiment and its recorded runs (plan order, without post-derived
    observations). Raises :class:`ResumeError` when ``root`` holds no experiment, and
    :class:`~autobench.records.RecordFormatError` (with the file's line:column) when a
    recorded ``run.yaml`` cannot be read: such a file is neither taken as recorded nor
    run again, since its run would have to overwrite it."""
    root = Path(root)
    if not (root / "experiment.yaml").is_file():
        raise ResumeError(
            f"cannot resume {root}: it holds no experiment.yaml", path=root / "experiment.yaml"
        )
    recorded = load_experiment_record(root)
    runs: list[RunRecord] = []
    for planned in recorded.plan:
        pure = PurePosixPath(planned.path)
        if pure.is_absolute() or ".." in pure.parts or not pure.parts:
            raise ResumeError(f"run path {planned.path!r} leaves {root}", path=root)
        path = root.joinpath(*pure.parts)
        if path.is_file():
            runs.append(load_run_record(path, root=root))
    return recorded, tuple(runs)


def plan_order(recorded: ExperimentRecord, runs: Sequence[RunRecord]) -> tuple[RunRecord, ...]:
    """``runs`` in the recorded plan's order."""
    position = {planned.id: index for index, planned in enumerate(recorded.plan)}
    return tuple(sorted(runs, key=lambda run: position.get(run.run_id, len(position))))
