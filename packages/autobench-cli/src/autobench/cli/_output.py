"""Shared endings of the commands that show results."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.text import Text

from autobench.cli._console import stderr_console
from autobench.cli._gate import EXIT_GATE

if TYPE_CHECKING:
    from autobench.records import ExperimentResult


def show_first_traceback(console: Console, result: ExperimentResult, spec_dir: Path | None) -> None:
    """Print the traceback of the first run that errored, and how many others did (for a
    run without records, where no run.yaml keeps them). ``console`` redacts what it prints."""
    from autobench.report._error_trace import first_traceback

    text = first_traceback(result, spec_dir)
    if text is not None:
        console.print()
        console.print(Text(text), soft_wrap=True)


def recorded_spec_dir(result: ExperimentResult, record_dir: Path) -> Path | None:
    """Where the spec of the experiment recorded in ``record_dir`` is on this machine: the
    current directory or a directory above the record that holds its recorded files.
    Only looked for when a run has an error to locate (``None`` otherwise)."""
    from autobench.report._error_trace import spec_directory
    from autobench.report._run_rows import runs_not_passed, traced_error

    if not any(traced_error(run) is not None for run in runs_not_passed(result.runs)):
        return None
    return spec_directory(result, [Path.cwd(), *Path(record_dir).resolve().parents])


def exit_for_gate(problems: list[str]) -> None:
    """Exit with :data:`EXIT_GATE` after saying why, when ``--fail-on`` found problems."""
    if problems:
        stderr_console().print(Text(f"--fail-on: {'; '.join(problems)}", style="red"))
        raise click.exceptions.Exit(EXIT_GATE)
