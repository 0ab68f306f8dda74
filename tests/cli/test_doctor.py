"""``autobench instrumentation doctor`` on this environment."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from autobench.cli import cli

AUTOBENCH = str(Path(sys.executable).parent / "autobench")


def test_the_doctor_lists_every_integration(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["instrumentation", "doctor"])
    assert result.exit_code == 0, result.output
    for name in ("pydantic_ai", "openai", "openai_agents", "httpx", "opentelemetry"):
        assert f"\n{name}" in "\n" + result.output
    assert "capture defaults" in result.output
    assert "5 of 5 integrations can be installed here" in " ".join(result.output.split())


def test_the_doctor_imports_no_sdk() -> None:
    probe = (
        "import sys; from click.testing import CliRunner; from autobench.cli import cli; "
        "r = CliRunner().invoke(cli, ['instrumentation', 'doctor']); assert r.exit_code == 0; "
        "print(sorted(m for m in ('openai', 'httpx', 'httpx2', 'agents', 'pydantic_ai') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
