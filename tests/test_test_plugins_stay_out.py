"""The test-only plugins of ``tests/plugins`` (an export format and a metric pack) and the
developer tools never reach a user's environment: the README's set-up installs neither, only its
test command does, and ``autobench export --help`` tells Autobench's own formats from the formats plugins add."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEST_PLUGINS = ("autobench-test-exporter", "autobench-test-pack")
DEVELOPER_TOOLS = ("pytest", "hypothesis", "mypy", "ruff", "nox", "selenium", "import-linter")


def _uv() -> str:
    found = os.environ.get("UV") or shutil.which("uv")
    if found is None:
        pytest.fail("this test needs uv (run the suite through `uv run pytest`)")
    return found


def _readme_commands() -> list[str]:
    """The two commands README.md starts with: set up + example, set up + test suite."""
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```bash\n(python3 -m pip install[^\n]*)\n```", text)[:2]


def _sync_arguments(command: str) -> list[str]:
    """The arguments of the ``python3 -m uv sync`` step of a README command."""
    (sync,) = [part.strip() for part in command.split("&&") if " uv sync" in part]
    arguments = sync.split()
    assert arguments[:4] == ["python3", "-m", "uv", "sync"], sync
    return arguments[3:]


def _would_install(sync_arguments: list[str], tmp_path: Path) -> set[str]:
    """The distributions ``uv sync`` with these arguments installs into a new environment,
    from the lock file, without installing anything."""
    env = {**os.environ, "UV_PROJECT_ENVIRONMENT": str(tmp_path / "fresh-venv")}
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run(
        [_uv(), *sync_arguments, "--frozen", "--dry-run"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert not (tmp_path / "fresh-venv").exists()
    return set(re.findall(r"^ \+ ([A-Za-z0-9_.-]+)", done.stderr + done.stdout, re.MULTILINE))


def test_the_readme_set_up_installs_autobench_without_the_test_plugins(tmp_path: Path) -> None:
    example, _tests = _readme_commands()
    installed = _would_install(_sync_arguments(example), tmp_path)
    assert {"autobench", "autobench-core", "autobench-report", "autobench-cli"} <= installed
    assert installed.isdisjoint(TEST_PLUGINS)
    assert installed.isdisjoint(DEVELOPER_TOOLS)  # a user's set-up, not a developer's
    assert not any(name.startswith("autobench-instrument-") for name in installed)


def test_the_readme_test_command_adds_the_test_plugins(tmp_path: Path) -> None:
    _example, tests = _readme_commands()
    installed = _would_install(_sync_arguments(tests), tmp_path)
    assert set(TEST_PLUGINS) <= installed
    assert set(DEVELOPER_TOOLS) <= installed
    assert {"autobench-instrument-openai", "autobench-ray", "autobench-opentelemetry"} <= installed
    # CI runs exactly this command.
    assert tests in (ROOT / ".ci" / "run").read_text().splitlines()


def test_export_help_lists_the_built_in_formats_apart_from_plugin_formats() -> None:
    """This environment has the test exporter: the help names it as a plugin's format, with
    its distribution, and lists as built in exactly the formats autobench-report registers."""
    report_entry = {ep.name: ep for ep in importlib.metadata.entry_points(group="autobench")}[
        "report"
    ]
    assert report_entry.dist is not None and report_entry.dist.name == "autobench-report"
    built_in = sorted(exporter.name for exporter in report_entry.load().autobench_exporters())
    assert built_in == ["csv", "github", "html", "junit", "markdown", "yaml"]

    autobench = Path(sys.executable).parent / "autobench"
    done = subprocess.run(
        [str(autobench), "export", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    # click wraps the help at 80 columns and may break a word after its hyphen (json- lines)
    help_text = re.sub(r"(\w)- (\w)", r"\1-\2", " ".join(done.stdout.split()))
    assert (
        f"Export format: {', '.join(built_in)}; "
        "from installed plugins: json-lines (autobench-test-exporter), "
        "otlp (autobench-opentelemetry), otlp-json (autobench-opentelemetry), "
        "parquet (autobench-index)." in help_text
    ), help_text
    assert "any format an installed plugin adds" in help_text
