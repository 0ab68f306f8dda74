"""A record file whose YAML parses but whose content does not match its record model is shown
as a located panel: the file and the line:column of the offending value, exit 1, no traceback;
nothing recorded is touched, so restoring the file makes the command work again."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.cli import cli


def _recorded(tmp_path: Path) -> Path:
    (tmp_path / "t.py").write_text(
        "def run(ctx, case):\n    with ctx.span('step', kind='tool'):\n        pass\n"
        "    return {'ok': True}\n"
    )
    spec = tmp_path / "autobench.yaml"
    spec.write_text(
        "benchmark:\n  b:\n    cases: [{id: c1}]\n    run: {python: 't:run'}\n"
        "    variants: {v1: {}}\n    score:\n      ok: {pass: output.ok}\n"
    )
    record = tmp_path / "rec"
    ran = CliRunner().invoke(cli, ["run", str(spec), "--record", str(record), "--no-progress"])
    assert ran.exit_code == 0, ran.output
    return record


def _position(text: str, needle: str) -> tuple[int, int]:
    """1-based line and column of the first ``needle`` in ``text``."""
    before = text[: text.index(needle)]
    return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*") if p.is_file()
    }


@pytest.mark.parametrize(
    ("command", "old", "new", "needle", "field"),
    [
        ("report", "status: passed", "status: exploded", "exploded", "run.status"),
        ("replay", "duration: ", "duration: soon\n    ignored: ", "soon", "trace.spans.1.duration"),
        ("report", "complete: true", "complete: [maybe]", "[maybe]", "complete"),
    ],
    ids=["run-status", "span-in-trace", "summary"],
)
def test_a_value_that_does_not_match_the_model_is_named_by_line_and_column(
    tmp_path: Path, command: str, old: str, new: str, needle: str, field: str
) -> None:
    record = _recorded(tmp_path)
    target = record / "summary.yaml" if field == "complete" else next(record.rglob("run.yaml"))
    kept = target.read_bytes()
    text = kept.decode()
    if field.startswith("trace."):  # the second span's duration (the first is the run's)
        start = text.index("- id:", text.index("spans:"))
        start = text.index("- id:", start + 1)
        edited = text[:start] + text[start:].replace(old, new, 1)
    else:
        edited = text.replace(old, new, 1)
    assert edited != text
    target.write_text(edited)
    before = _snapshot(record)
    runner = CliRunner(env={"COLUMNS": "300"})
    shown = runner.invoke(cli, [command, str(record)])
    assert shown.exit_code == 1 and "Traceback" not in shown.output, shown.output
    line, column = _position(edited, needle)
    assert f"{target.name}:{line}:{column}:" in shown.output, shown.output
    assert field in shown.output
    assert _snapshot(record) == before  # reading a malformed record writes nothing
    target.write_bytes(kept)
    assert runner.invoke(cli, [command, str(record)]).exit_code == 0
