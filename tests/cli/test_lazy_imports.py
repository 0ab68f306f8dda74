"""`autobench run --help` and `autobench validate --help` import neither the runtime, the
records nor the report: a fresh interpreter runs the real command and lists what it loaded."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("autobench.core.runtime", "autobench.records", "autobench.report", "numpy")

SCRIPT = """
import json, sys
from autobench.cli import cli
try:
    cli.main(sys.argv[1:], prog_name="autobench")
except SystemExit as end:
    code = end.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _loaded(*args: str) -> tuple[object, set[str], str]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, check=True
    )
    *help_lines, last = done.stdout.rstrip("\n").split("\n")
    found = json.loads(last)
    return found["code"], set(found["modules"]), "\n".join(help_lines)


@pytest.mark.parametrize("command", ["run", "validate"])
def test_help_of_a_command_imports_no_runtime_records_or_report(command: str) -> None:
    code, modules, text = _loaded(command, "--help")
    assert code == 0
    assert f"Usage: autobench {command}" in text
    assert [name for name in HEAVY if name in modules] == []


def test_an_error_panel_still_names_an_autobench_error(tmp_path) -> None:
    """The error classes are imported when an Autobench error is raised: a spec that does
    not parse is still the "Invalid benchmark spec" panel with exit code 1."""
    spec = tmp_path / "autobench.yaml"
    spec.write_text("benchmark: [unclosed\n")
    done = subprocess.run(
        [sys.executable, "-m", "autobench.cli", "validate", str(spec), "--no-import"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert "Invalid benchmark spec" in done.stderr
    assert "Traceback" not in done.stderr
