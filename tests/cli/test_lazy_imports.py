"""The `--help` of `autobench run`, `validate`, `report`, `compare`, `rescore`, `label`,
`replay` and the `judge` and `instrumentation` commands imports neither the runtime, the
records nor the report (nor numpy, which the report's statistics load): a fresh interpreter
runs the real command and lists what it loaded."""

from __future__ import annotations

import json
import os
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


LAZY = (
    "run",
    "validate",
    "report",
    "compare",
    "rescore",
    "label",
    "judge",
    "judge calibrate",
    "judge pairwise",
    "replay",
    "instrumentation",
    "instrumentation trace",
    "instrumentation doctor",
)


@pytest.mark.parametrize("command", LAZY)
def test_help_of_a_command_imports_no_runtime_records_or_report(command: str) -> None:
    code, modules, text = _loaded(*command.split(), "--help")
    assert code == 0
    assert f"Usage: autobench {command}" in text
    assert [name for name in HEAVY if name in modules] == []


def test_the_help_of_export_still_lists_the_installed_formats() -> None:
    """`export --help` loads the plugins (the formats they add are in it); running the
    command module alone does not."""
    code, _, text = _loaded("export", "--help")
    assert code == 0
    assert "csv, github, html, junit" in " ".join(text.split())


def test_the_defaults_in_the_help_are_those_the_report_and_records_use() -> None:
    """`judge calibrate --help` shows its defaults without importing the report: the CLI's
    copies of the constants are the report's and the records' own."""
    from autobench.cli import _judge
    from autobench.records import LABELS_FILE
    from autobench.report._calibration import CALIBRATION_RESAMPLES, CALIBRATION_SEED

    assert (_judge.LABELS_FILE, _judge.CALIBRATION_RESAMPLES, _judge.CALIBRATION_SEED) == (
        LABELS_FILE,
        CALIBRATION_RESAMPLES,
        CALIBRATION_SEED,
    )


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


TASK = """
import json, os, sys

_SEEN = []


def run_case(ctx, case):
    if not _SEEN:
        _SEEN.append(sorted(sys.modules))
        with open(os.environ["MODULES_AT_FIRST_RUN"], "w") as stream:
            json.dump(_SEEN[0], stream)
    return case.input["n"] * 2
"""


def test_run_loads_no_statistics_before_its_first_run(tmp_path) -> None:
    """`autobench run` (recording) reaches its first run without numpy or scipy: the report's
    statistics are imported when a score is calibrated or compared, never to start."""
    (tmp_path / "modules_task.py").write_text(TASK)
    (tmp_path / "autobench.yaml").write_text(
        "benchmark:\n"
        "  lazy:\n"
        "    dataset:\n"
        "      cases:\n"
        "        - {id: a, input: {n: 1}, expected: 2}\n"
        "    run:\n"
        "      python: modules_task:run_case\n"
        "    variants:\n"
        "      v: {factors: {mode: a}}\n"
    )
    seen = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-m", "autobench.cli", "run", "autobench.yaml", "--record", "rec"],
        cwd=tmp_path,
        env={**os.environ, "MODULES_AT_FIRST_RUN": str(seen)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    modules = set(json.loads(seen.read_text()))
    assert "autobench.records" in modules  # the run did start, recording
    assert [name for name in ("numpy", "scipy") if name in modules] == []


def test_doctor_styles_every_compatibility_state() -> None:
    """`instrumentation doctor` styles a state by its value (no import of the states for
    `--help`): every state has a style."""
    from autobench.abp import CompatibilityState
    from autobench.cli._doctor import _STATE_STYLE

    assert set(_STATE_STYLE) == {state.value for state in CompatibilityState}
