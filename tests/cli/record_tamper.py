"""What the tampered-record tests share: a real record made by ``autobench run`` of a small
benchmark (two cases, two variants, an artifact per run, one run whose trace is large
enough to be stored beside it), and the commands that read a record."""

from __future__ import annotations

import textwrap
from pathlib import Path

from click.testing import CliRunner, Result

from autobench.cli import cli

TASK = """
def run(ctx, case):
    spans = 1200 if case.id == "big" else 1
    for number in range(spans):
        with ctx.span(f"step-{number}", kind="tool"):
            pass
    ctx.artifact("notes", {"x": case.input["x"]})
    return {"ok": True}
"""

SPEC = """
benchmark:
  tamper:
    cases:
      - {id: small, input: {x: 1}}
      - {id: big, input: {x: 2}}
    run: {python: 'tamper_task:run'}
    variants: {v1: {factors: {f: 1}}, v2: {factors: {f: 2}}}
    score:
      ok: {pass: output.ok}
"""


def record(directory: Path, name: str = "rec") -> Path:
    """Run the benchmark into ``directory / name`` (the spec is written once) and return it."""
    (directory / "tamper_task.py").write_text(textwrap.dedent(TASK))
    (directory / "autobench.yaml").write_text(textwrap.dedent(SPEC))
    target = directory / name
    ran = invoke("run", str(directory / "autobench.yaml"), "--record", str(target))
    assert ran.exit_code == 0, ran.output
    return target


def invoke(*args: str) -> Result:
    extra = ["--no-progress"] if args[0] == "run" else []
    return CliRunner(env={"COLUMNS": "400"}).invoke(cli, [*args, *extra])


def readers(record_dir: Path, out: Path) -> dict[str, list[str]]:
    """Every command that reads ``record_dir``, by name: replay, report, compare, each
    export format and ``instrumentation trace``."""
    commands = {
        "replay": ["replay", str(record_dir)],
        "report": ["report", str(record_dir)],
        "compare": ["compare", str(record_dir), "--baseline", "v1", "--candidate", "v2"],
        "instrumentation trace": ["instrumentation", "trace", str(record_dir)],
    }
    for name in ("csv", "yaml", "markdown", "html", "junit", "otlp-json"):
        commands[f"export {name}"] = [
            "export",
            str(record_dir),
            "--format",
            name,
            "--path",
            str(out / f"export.{name}"),
        ]
    return commands


def run_file(record_dir: Path, case: str = "small", variant: str = "v1") -> Path:
    return record_dir / "cases" / case / variant / "run.yaml"


def line_of(path: Path, text: str) -> int:
    """The 1-based number of the first line of ``path`` that starts with ``text``."""
    lines = path.read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if line.startswith(text))
