"""``autobench replay``: rebuild an experiment from its record directory, without the task."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Group

from autobench.cli._console import stdout_console, user_errors
from autobench.records import replay_experiment
from autobench.report import render_experiment_overview, render_status_table


@click.command("replay")
@click.argument("record_dir", metavar="DIR", type=click.Path(path_type=Path, file_okay=False))
def replay_command(record_dir: Path) -> None:
    """Replay the experiment recorded in DIR and show its status.

    Reads experiment.yaml, summary.yaml and every run.yaml. Neither the task
    nor any scorer module is imported, no model is called and nothing in DIR
    is modified.
    """
    with user_errors():
        result = replay_experiment(record_dir)
    stdout_console().print(Group(render_experiment_overview(result), render_status_table(result)))
