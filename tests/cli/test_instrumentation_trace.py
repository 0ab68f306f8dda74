"""`autobench instrumentation trace DIR`: recorded trace shape, from the records alone."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from autobench.cli import cli

LEGACY = Path(__file__).resolve().parents[1] / "fixtures" / "legacy" / "experiment"


def _record(runner: CliRunner, spec_dir: Path) -> Path:
    record = spec_dir / "runs"
    result = runner.invoke(cli, ["run", str(spec_dir / "autobench.yaml"), "--record", str(record)])
    assert result.exit_code == 0, result.output
    return record


def test_trace_shows_runs_kinds_and_instrumentors(runner: CliRunner, spec_dir: Path) -> None:
    record = _record(runner, spec_dir)
    result = runner.invoke(cli, ["instrumentation", "trace", str(record)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Traces per run" in out
    assert out.count("task 1, tool 1") == 4  # every run: the root and the compute span
    assert "Span kinds" in out and "Instrumentors" in out
    assert "autobench.manual" in out and "manual" in out
    assert "No diagnostics." in out


def test_trace_summarises_large_experiments(runner: CliRunner, spec_dir: Path) -> None:
    record = _record(runner, spec_dir)
    result = runner.invoke(cli, ["instrumentation", "trace", str(record), "--limit", "2"])
    assert result.exit_code == 0, result.output
    assert "Traces per variant (summarised)" in result.output
    assert "double" in result.output and "triple" in result.output


def test_trace_reads_legacy_records_and_reports_missing_runs(
    runner: CliRunner, tmp_path: Path
) -> None:
    root = tmp_path / "legacy"
    shutil.copytree(LEGACY, root)
    (root / "cases/ticket_2/route_v1/run.yaml").unlink()
    result = runner.invoke(cli, ["instrumentation", "trace", str(root)])
    assert result.exit_code == 0, result.output
    assert "autobench.legacy" in result.output
    assert "missing_run" in result.output


def test_trace_of_a_missing_directory_is_a_user_error(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(cli, ["instrumentation", "trace", str(tmp_path / "nope")])
    assert result.exit_code == 1


def test_trace_imports_neither_the_task_nor_an_sdk(runner: CliRunner, spec_dir: Path) -> None:
    record = _record(runner, spec_dir)
    (spec_dir / "cli_task.py").unlink()
    script = (
        "import json, sys\n"
        "from click.testing import CliRunner\n"
        "from autobench.cli import cli\n"
        f"result = CliRunner().invoke(cli, ['instrumentation', 'trace', {str(record)!r}])\n"
        "forbidden = ('cli_task', 'openai', 'pydantic_ai', 'agents', 'httpx', 'anthropic')\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in forbidden)\n"
        "print(json.dumps({'code': result.exit_code, 'loaded': loaded}))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=spec_dir
    )
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert report == {"code": 0, "loaded": []}
