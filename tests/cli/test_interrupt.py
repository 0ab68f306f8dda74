"""Ctrl-C during ``autobench run``: exit 130, finished runs stay recorded and replayable."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from autobench.records import replay_experiment


def test_sigint_exits_130_and_keeps_finished_runs(tmp_path: Path) -> None:
    (tmp_path / "slow_task.py").write_text(
        "import time\ndef run(ctx, case):\n    time.sleep(0.3)\n    return {}\n"
    )
    cases = ", ".join(f"{{id: c{index}}}" for index in range(20))
    (tmp_path / "autobench.yaml").write_text(
        f"benchmark:\n  slow:\n    cases: [{cases}]\n    run: {{python: slow_task:run}}\n    variants: {{v: {{}}}}\n"
    )
    command = [
        str(Path(sys.executable).parent / "autobench"),
        "run",
        "autobench.yaml",
        "--record",
        "rec",
    ]
    process = subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120  # a safety net, not a measure: a loaded machine is slow
    while len(list(tmp_path.glob("rec/cases/*/*/run.yaml"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "Interrupted" in err and "autobench replay rec" in " ".join(err.split())
    result = replay_experiment(tmp_path / "rec")
    assert 3 <= len(result.runs) < 20
    assert len(result.runs) + len(result.missing_runs) == 20
    assert all(run.status.value == "passed" for run in result.runs)
