"""Shared endings of the commands that show results."""

from __future__ import annotations

import click
from rich.text import Text

from autobench.cli._console import stderr_console
from autobench.cli._gate import EXIT_GATE


def exit_for_gate(problems: list[str]) -> None:
    """Exit with :data:`EXIT_GATE` after saying why, when ``--fail-on`` found problems."""
    if problems:
        stderr_console().print(Text(f"--fail-on: {'; '.join(problems)}", style="red"))
        raise click.exceptions.Exit(EXIT_GATE)
