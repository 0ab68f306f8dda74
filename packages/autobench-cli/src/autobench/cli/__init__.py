"""The ``autobench`` command line (click, with Rich output)."""

from autobench.cli._app import cli, main

__all__ = ["cli", "main"]
