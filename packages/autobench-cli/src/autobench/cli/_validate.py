"""``autobench validate``: load a spec, resolve its sources and show the plan, never run it."""

from __future__ import annotations

from pathlib import Path

import click

from autobench.cli._console import stdout_console, user_errors
from autobench.cli._directionless import warn_directionless
from autobench.cli._plugins import command_plugins
from autobench.cli._scalars import show_scalar_notes, strict_scalars_option
from autobench.core.planning import build_benchmark_plan
from autobench.core.spec import load_benchmark_spec
from autobench.report import render_plan


@click.command("validate")
@click.argument("spec_path", metavar="SPEC", type=click.Path(path_type=Path, dir_okay=False))
@strict_scalars_option
def validate_command(spec_path: Path, strict_scalars: bool) -> None:
    """Validate the benchmark spec SPEC and show its planned matrix.

    Loads the YAML (both the authoring DSL and the structured form), reads
    the datasets it references, checks ids and scorers, and prints the case,
    variant and planned-run counts. The task is not imported or run. A factor or case
    value YAML reads as a number that loses its written text (2.10, 007) gets a note
    with its file:line:column (an error with --strict-scalars). Every objective or
    constraint scorer with no direction anywhere (no goal, and a semantic type the
    catalog gives none) gets a warning with its file:line:column; the exit code stays 0.
    """
    with user_errors():
        spec = load_benchmark_spec(
            spec_path, strict_scalars=strict_scalars, plugins=command_plugins()
        )
        plan = build_benchmark_plan(spec)
    show_scalar_notes(spec)
    warn_directionless(spec, spec_path)
    stdout_console().print(render_plan(plan, spec_path=str(spec_path)))
