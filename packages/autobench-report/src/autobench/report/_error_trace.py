"""Tracing a run that errored, in the terminal: where the user's code raised, where the full
traceback is recorded, and (with nothing recorded) the first traceback itself.

Records name files relative to the spec's directory (``autobench.core.runtime._portable``);
the terminal names them relative to the current directory when they are under it, else
by their absolute path. Placeholder paths (``<site-packages>/...``, ``~/...``) stay as
recorded. Every text returned here is printed through the CLI's redacting console.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path, PurePosixPath

from autobench.records import ErrorLocation, ExperimentResult
from autobench.report._model import RunMetricRow
from autobench.report._run_rows import runs_not_passed, traced_error

_FILE = re.compile(r'^(?P<lead>\s*File ")(?P<file>[^"]+)(?P<rest>", line \d+)', re.M)


def shown_path(path: Path) -> str:
    """``path`` relative to the current directory when under it, else absolute."""
    absolute = Path(os.path.abspath(path))
    try:
        return str(absolute.relative_to(Path.cwd()))
    except ValueError:
        return str(absolute)


def _spec_file(recorded: str, spec_dir: Path | None) -> str:
    """A file as a record names it, as the terminal shows it."""
    if spec_dir is None or recorded.startswith(("<", "~")) or Path(recorded).is_absolute():
        return recorded
    return shown_path(spec_dir / recorded)


def location_text(location: ErrorLocation, spec_dir: Path | None) -> str:
    """``file:line in function``, the file as :func:`shown_path` shows it."""
    return f"{_spec_file(location.file, spec_dir)}:{location.line} in {location.function}"


def traced_text(row: RunMetricRow, records: str | None, spec_dir: Path | None) -> str | None:
    """The lines under a row's reason: ``at <file>:<line> in <function>`` and, when the run
    has a record, ``traceback: <run.yaml> <key>``; ``None`` when neither is known."""
    lines = []
    if row.location is not None:
        lines.append(f"at {location_text(row.location, spec_dir)}")
    if row.traceback_key is not None and records is not None and row.record_path is not None:
        record = Path(records).joinpath(*PurePosixPath(row.record_path).parts)
        lines.append(f"traceback: {shown_path(record)} {row.traceback_key}")
    return "\n".join(lines) or None


def terminal_traceback(traceback: str, spec_dir: Path | None) -> str:
    """A recorded traceback with the files of the spec's directory named as the terminal
    names them."""
    if spec_dir is None:
        return traceback
    return _FILE.sub(lambda m: m["lead"] + _spec_file(m["file"], spec_dir) + m["rest"], traceback)


def first_traceback(result: ExperimentResult, spec_dir: Path | None) -> str | None:
    """The traceback of the first run (plan order) that did not pass because of an error
    with a traceback, headed by the run, followed by a count of the other such runs;
    ``None`` when no run has one."""
    traced = [
        (run, found[1])
        for run in runs_not_passed(result.runs)
        if (found := traced_error(run)) is not None
    ]
    if not traced:
        return None
    run, error = traced[0]
    assert error.traceback is not None  # traced_error only picks errors with one
    text = (
        f"Traceback of run {run.run_id} (case {run.case_id}, variant {run.variant_id}; "
        f"{error.stage} error):\n{terminal_traceback(error.traceback, spec_dir).rstrip()}"
    )
    others = len(traced) - 1
    if others:
        runs = "1 more run" if others == 1 else f"{others} more runs"
        text += (
            f"\n{runs} did not pass because of an error; their tracebacks are not shown "
            "(with --record DIR, each run's run.yaml keeps its traceback)."
        )
    return text


def spec_directory(result: ExperimentResult, candidates: list[Path]) -> Path | None:
    """The first of ``candidates`` that holds every file of the spec's directory the
    experiment recorded (the spec, its dataset and task module), at least one of them with
    the recorded content: where the spec of a recorded experiment is on this machine.
    ``None`` when none does, or the record lists no file of the spec's directory."""
    files = {
        name: digest
        for name, digest in result.experiment.files.items()
        if not name.startswith(("<", "~", "..", "/"))
    }
    if not files:
        return None
    for directory in candidates:
        if all((directory / name).is_file() for name in files) and any(
            _digest(directory / name) == digest for name, digest in files.items()
        ):
            return directory
    return None


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
