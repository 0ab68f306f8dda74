"""``autobench index`` and ``autobench query``: the columnar index of autobench-index
(imported when a command runs; without it, a message names the extra to install)."""

from __future__ import annotations

import csv
import importlib
import io
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import click
from rich.table import Table

from autobench.abp import AutobenchError
from autobench.cli._console import stdout_console, user_errors
from autobench.core.distributions import install_hint


def _index_module(command: str) -> ModuleType:
    try:
        return importlib.import_module("autobench.index")
    except ImportError as exc:
        if exc.name is not None and not exc.name.startswith("autobench.index"):
            raise
        raise AutobenchError(
            f"autobench {command} needs the autobench-index distribution (the index extra). "
            "In a checkout of Autobench: python3 -m uv sync --extra index (or --all-packages). "
            f"Elsewhere: {install_hint('autobench-index')}"
        ) from exc


def _say(line: str) -> None:
    click.echo(line, err=True)


_directories = click.argument(
    "directories",
    metavar="DIR...",
    nargs=-1,
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
)
"""The record directories of ``index`` and ``query``: experiments at or below each."""


@click.command("index")
@_directories
@click.option("--check", is_flag=True, help="Only say whether each index is fresh; write nothing.")
def index_command(directories: tuple[Path, ...], check: bool) -> None:
    """Build the columnar index (Parquet, DIR/index/) of each experiment recorded at or
    below DIR: tables runs, observations, scores, spans and llm_calls (docs/scale.md).

    A fresh index is left as it is (a copied record's files get their new stamps
    stored, so that reports stat them instead of hashing them again); a missing or
    stale one (a record file added, changed or removed since) is rebuilt whole. The
    YAML records are never written.
    With --check, exits 1 when some index is missing or stale."""
    with user_errors():
        index = _index_module("index")
        query = importlib.import_module("autobench.index._query")
        records = query.record_dirs(directories)
        if not records:
            raise AutobenchError(
                "no recorded experiment (experiment.yaml) at or below "
                + ", ".join(str(d) for d in directories)
            )
        stale = 0
        for record in records:
            status = index.index_status(record)
            if status.fresh:
                renewed = 0 if check else index.restamp_index(record)
                stamps = f" (the stamps of {renewed:,} copied files renewed)" if renewed else ""
                click.echo(f"{record}: index fresh{stamps}")
                continue
            stale += 1
            if check:
                click.echo(f"{record}: index stale ({status.reason})")
                continue
            built = index.build_index(record)
            rows = ", ".join(f"{name} {count:,}" for name, count in built.rows.items())
            note = "" if built.reportable else f"; reports read the YAML: {built.reason}"
            click.echo(f"{record}: indexed {built.runs:,} runs ({status.reason}): {rows}{note}")
    if check and stale:
        raise SystemExit(1)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray):
        return value.hex()
    return str(value)


def _json_value(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_json_value(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _json_value(item) for key, item in value.items()}
    return str(value)


@click.command("query")
@_directories
@click.argument("sql", metavar="SQL")
@click.option(
    "--format",
    "output",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
    help="table (in the terminal), csv (RFC 4180) or json (a list of objects).",
)
def query_command(directories: tuple[Path, ...], sql: str, output: str) -> None:
    """Run SQL (DuckDB) over the columnar indexes of the experiments recorded at or below
    each DIR: tables runs, observations, scores, spans, llm_calls, each with benchmark
    and experiment columns (docs/scale.md). Missing or stale indexes are built first."""
    with user_errors():
        _index_module("query")
        module = importlib.import_module("autobench.index._query")
        result = module.query(directories, sql, say=_say)
    if output == "json":
        items = [
            {name: _json_value(value) for name, value in zip(result.columns, row, strict=True)}
            for row in result.rows
        ]
        click.echo(json.dumps(items, indent=2, ensure_ascii=False))
        return
    if output == "csv":
        stream = io.StringIO()
        writer = csv.writer(stream)
        writer.writerow(result.columns)
        writer.writerows([_cell(value) for value in row] for row in result.rows)
        click.echo(stream.getvalue(), nl=False)
        return
    table = Table(pad_edge=False)
    for name in result.columns:
        table.add_column(name, overflow="fold")
    for row in result.rows:
        table.add_row(*(_cell(value) for value in row))
    console = stdout_console()
    console.print(table)
    console.print(f"{len(result.rows):,} rows", style="dim")
