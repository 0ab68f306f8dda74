"""``autobench view``: the local viewer (autobench-view, imported when the command runs)."""

from __future__ import annotations

import importlib
from pathlib import Path

import click

from autobench.abp import AutobenchError
from autobench.core.distributions import install_hint


@click.command("view")
@click.argument(
    "directories",
    nargs=-1,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    default=0,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on (0: any free port).",
)
@click.option("--no-open", is_flag=True, help="Do not open a browser.")
def view_command(directories: tuple[Path, ...], host: str, port: int, no_open: bool) -> None:
    """Browse the experiments recorded under DIRECTORIES (default: .) in a browser.

    Read-only; served on 127.0.0.1 unless --host says otherwise (with a warning: the pages
    show recorded inputs, outputs and traces to whoever reaches the address)."""
    try:
        view = importlib.import_module("autobench.view")
    except ImportError as exc:
        if exc.name is not None and not exc.name.startswith("autobench.view"):
            raise
        raise AutobenchError(
            "autobench view needs the autobench-view distribution (the view extra). In a "
            "checkout of Autobench: python3 -m uv sync --extra view (or --all-packages). "
            f"Elsewhere: {install_hint('autobench-view')}"
        ) from exc
    view.serve(
        directories or (Path("."),),
        host=host,
        port=port,
        open_browser=not no_open,
        say=lambda line: click.echo(line, err=True),
    )
