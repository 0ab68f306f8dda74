"""README's command table lists every command of the ``autobench`` CLI and every export format
Autobench's own distributions register, so a user reading it misses none of them."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import click

from autobench.cli import cli

ROOT = Path(__file__).resolve().parents[1]


def _table_rows() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text[text.index("| command | what it does |") :]
    return [line for line in table.splitlines() if line.startswith("| `autobench")] or [""]


def _commands(group: click.Group, prefix: str = "autobench") -> list[str]:
    context = click.Context(group)
    found = []
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        if command is None or command.hidden:
            continue
        path = f"{prefix} {name}"
        if isinstance(command, click.Group):
            found += _commands(command, path)
        else:
            found.append(path)
    return found


def test_every_command_has_a_row() -> None:
    rows = _table_rows()
    commands = _commands(cli)
    assert {"autobench run", "autobench schema", "autobench instrumentation doctor"} <= set(
        commands
    )
    missing = [
        command
        for command in commands
        if not any(re.match(rf"\| `{re.escape(command)}( |`)", row) for row in rows)
    ]
    assert missing == []
    assert any(row.startswith("| `autobench --version`") for row in rows)


def test_every_export_format_of_autobench_is_listed() -> None:
    formats: set[str] = set()
    for entry in importlib.metadata.entry_points(group="autobench"):
        if entry.dist is None or not entry.dist.name.startswith("autobench-"):
            continue
        if entry.dist.name.startswith("autobench-test-"):
            continue  # the test-only plugins of tests/plugins
        plugin = entry.load()
        hook = getattr(plugin, "autobench_exporters", None)
        if hook is not None:
            formats |= {exporter.name for exporter in hook()}
    assert {"yaml", "csv", "markdown", "junit", "html", "otlp", "otlp-json"} <= formats
    export_rows = " ".join(row for row in _table_rows() if row.startswith("| `autobench export"))
    listed = re.findall(r"--format ((?:[\w-]+(?:\\\|)?)+)", export_rows)  # a\|b in a table
    names = {name for group in listed for name in group.split("\\|")}
    assert formats <= names, sorted(formats - names)
