"""The click application: the ``autobench`` group and ``--version``."""

from __future__ import annotations

from importlib import metadata

import click
from autobench.cli._replay import replay_command
from autobench.cli._run import run_command
from autobench.cli._validate import validate_command

DISTRIBUTIONS = (
    "autobench",
    "autobench-abp",
    "autobench-records",
    "autobench-core",
    "autobench-report",
    "autobench-cli",
)


def _installed_versions() -> str:
    lines = []
    for name in DISTRIBUTIONS:
        try:
            lines.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            lines.append(f"{name} (not installed)")
    return "\n".join(lines)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(_installed_versions())
        ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version of every installed Autobench distribution and exit.",
)
def cli() -> None:
    """Autobench: run benchmark matrices, record immutable evidence, replay it.

    \b
    Typical workflow:
      autobench validate autobench.yaml
      autobench run autobench.yaml --record runs/latest
      autobench replay runs/latest

    Exit codes: 0 when the command completed (even if some runs failed),
    1 for invalid specs, unresolved tasks, recording collisions and missing
    records, 2 for wrong command-line usage.
    """


cli.add_command(validate_command)
cli.add_command(run_command)
cli.add_command(replay_command)


def main() -> None:
    """Entry point of the ``autobench`` console script."""
    cli(prog_name="autobench")
