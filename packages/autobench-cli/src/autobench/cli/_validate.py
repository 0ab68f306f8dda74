"""``autobench validate``: load a spec, resolve its sources and targets, show the plan,
never run it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from autobench.cli._console import stdout_console, user_errors
from autobench.cli._directionless import warn_directionless
from autobench.cli._factor_names import warn_factor_names
from autobench.cli._plugins import command_plugins
from autobench.cli._scalars import show_scalar_notes, strict_scalars_option

if TYPE_CHECKING:
    from autobench.core.spec import BenchmarkSpec

# The spec, the runtime and the report are imported when the command runs (not for --help).


def resolve_targets(spec: BenchmarkSpec) -> None:
    """Import what ``run`` imports before its first run, and refuse what it refuses: the
    task (a callable that takes ``(ctx, case)``) and each scorer's target (a python
    scorer's function, a schema scorer's model). Raises ``TaskResolutionError`` or
    ``ScorerResolutionError``, located at the target in the spec file."""
    from autobench.core.runtime import resolve_task

    if spec.task is not None:
        resolve_task(spec)
    for scorer in spec.scoring:
        scorer.prepare(spec.base_dir)


@click.command("validate")
@click.argument("spec_path", metavar="SPEC", type=click.Path(path_type=Path, dir_okay=False))
@strict_scalars_option
@click.option(
    "--no-import",
    is_flag=True,
    help="Do not import the task module or the scorers' targets (python scorer functions, "
    "schema scorer models), so a missing module, a missing function or a task that cannot "
    "take (ctx, case) goes unreported. Use it on a machine that lacks what the task needs "
    "(an SDK installed only where the benchmark runs) or when importing the task's module "
    "has side effects you do not want here.",
)
def validate_command(spec_path: Path, strict_scalars: bool, no_import: bool) -> None:
    """Validate the benchmark spec SPEC and show its planned matrix.

    Loads the YAML (both the authoring DSL and the structured form), reads
    the datasets it references, checks ids and scorers, imports the task and the
    scorers' targets as `run` does (never calling them), and prints the case,
    variant and planned-run counts. A missing module or function, or a task that
    cannot be called as task(ctx, case), is an error at the target's file:line:column
    with a did-you-mean, as `run` reports it (exit 1). A factor or case value YAML
    reads as a number that loses its written text (2.10, 007) gets a note with its
    file:line:column (an error with --strict-scalars). Every objective or constraint
    scorer with no direction anywhere (no goal, and a semantic type the catalog gives
    none) and every factor that some variants set and others do not (`model` here,
    `model_name` there) get a warning with their file:line:column; warnings leave the
    exit code 0.
    """
    from autobench.core.planning import build_benchmark_plan
    from autobench.core.spec import load_benchmark_spec
    from autobench.report import render_plan

    with user_errors():
        spec = load_benchmark_spec(
            spec_path, strict_scalars=strict_scalars, plugins=command_plugins()
        )
        plan = build_benchmark_plan(spec)
        if not no_import:
            resolve_targets(spec)
    show_scalar_notes(spec)
    warn_directionless(spec, spec_path)
    warn_factor_names(spec, spec_path)
    stdout_console().print(render_plan(plan, spec_path=str(spec_path)))
