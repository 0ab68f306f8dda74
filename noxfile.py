"""Developer sessions. Every session runs inside the uv workspace environment.

uv run nox -s tests      # the whole pytest suite (examples included)
uv run nox -s lint       # ruff (lint and format check), mypy and the import contracts
uv run nox -s examples   # every example end to end: validate, run --record, replay
uv run nox -s bench      # the performance harness in tools/bench.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import nox

nox.options.sessions = ["tests", "lint", "examples"]
nox.options.default_venv_backend = "none"

ROOT = Path(__file__).parent
EXAMPLES = (
    "minimal",
    "basic",
    "mid",
    "advanced",
    "abp_manual",
    "abp_concurrent",
    "llm_native",
    "pydantic_ai",
    "judges",
)
# extra `autobench run` options of an example
RUN_OPTIONS: dict[str, tuple[str, ...]] = {"abp_concurrent": ("--concurrency", "2")}
# script examples: (script, the example whose record directory it reads)
SCRIPT_EXAMPLES = {"abp_replay": ("replay_and_extract.py", "abp_concurrent")}
STANDALONE_SCRIPTS = (
    ("abp_openai", "run_openai_streaming.py"),
    ("abp_openai_agents", "run_openai_agents.py"),
    ("pydantic_ai", "openrouter_instrument_all.py"),  # live: says it skipped without a key
    ("pydantic_ai", "openrouter_instrument_all.py", "--offline"),
    ("judges", "live_judge.py"),  # live: says it skipped without a key
)
"""Examples that run on their own (no record directory): (example, script, arguments...)."""
SOURCES = ("packages", "tests", "tools", "examples", "noxfile.py")


def _uv_run(session: nox.Session, *args: str) -> None:
    session.run("uv", "run", "--all-packages", *args, external=True)


@nox.session
def tests(session: nox.Session) -> None:
    """Run the whole test suite, with the test-only plugins of tests/plugins installed."""
    _uv_run(session, "--group", "test-plugins", "pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Ruff lint, ruff format check and mypy over every distribution, then the import
    contracts of pyproject.toml's [tool.importlinter] (import-linter, over the whole
    autobench namespace: see tools/lint_imports.py)."""
    _uv_run(session, "ruff", "check", *SOURCES)
    _uv_run(session, "ruff", "format", "--check", *SOURCES)
    _uv_run(session, "mypy")
    _uv_run(session, "python", "tools/lint_imports.py", "--no-cache")


@nox.session
def examples(session: nox.Session) -> None:
    """Validate, run with recording, replay, report and export every example, then run the
    script examples on the record directories."""
    with tempfile.TemporaryDirectory(prefix="autobench-examples-") as tmp:
        for name in EXAMPLES:
            spec = str(ROOT / "examples" / name / "autobench.yaml")
            record = str(Path(tmp) / name)
            _uv_run(session, "autobench", "validate", spec)
            _uv_run(
                session,
                "autobench",
                "run",
                spec,
                "--record",
                record,
                "--no-progress",
                *RUN_OPTIONS.get(name, ()),
            )
            _uv_run(session, "autobench", "replay", record)
            _uv_run(session, "autobench", "report", record)
            for fmt, suffix in (
                ("yaml", "yaml"),
                ("csv", "csv"),
                ("markdown", "md"),
                ("junit", "xml"),
            ):
                _uv_run(
                    session,
                    "autobench",
                    "export",
                    record,
                    "--format",
                    fmt,
                    "--path",
                    f"{record}-report.{suffix}",
                )
        for name, (script, source) in SCRIPT_EXAMPLES.items():
            _uv_run(
                session, "python", str(ROOT / "examples" / name / script), str(Path(tmp) / source)
            )
        for name, script, *arguments in STANDALONE_SCRIPTS:
            _uv_run(session, "python", str(ROOT / "examples" / name / script), *arguments)


@nox.session
def bench(session: nox.Session) -> None:
    """Measure the performance budgets and print figures and ratios."""
    _uv_run(session, "python", "tools/bench.py", *session.posargs)
