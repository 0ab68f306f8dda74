"""``autobench replay``: rebuild an experiment from its record directory, without the task."""

from __future__ import annotations

from pathlib import Path

import click

from autobench.cli._console import stdout_console, user_errors
from autobench.records import replay_experiment
from autobench.report import build_report, render_report


@click.command("replay")
@click.argument("record_dir", metavar="DIR", type=click.Path(path_type=Path, file_okay=False))
def replay_command(record_dir: Path) -> None:
    """Replay the experiment recorded in DIR and show its report.

    Reads experiment.yaml, summary.yaml and every run.yaml in full (traces
    and artifacts references included), so a damaged record is reported.
    Neither the task nor any scorer module is imported, no model is called
    and nothing in DIR is modified. `autobench report` shows the same views
    reading only what they need.
    """
    with user_errors():
        result = replay_experiment(record_dir)
        report = build_report(result)
    stdout_console().print(render_report(report, records=str(record_dir), runs="none"))
