"""``--strict-scalars`` and the notes on numbers whose written text YAML does not keep."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
from rich.text import Text

from autobench.cli._console import stderr_console

if TYPE_CHECKING:
    from autobench.core.spec import BenchmarkSpec

strict_scalars_option = click.option(
    "--strict-scalars",
    is_flag=True,
    help="Refuse a factor or case value that YAML reads as a number losing its written text "
    "(2.10 read as 2.1, 007 as 7): an error at its file:line:column instead of a note. "
    "`strict_scalars: true` in the spec does the same.",
)


def show_scalar_notes(spec: BenchmarkSpec) -> None:
    """One note per such value on stderr (nothing when there is none)."""
    console = stderr_console()
    for note in spec.scalar_notes:
        console.print(Text(f"note: {note}", style="yellow"))
