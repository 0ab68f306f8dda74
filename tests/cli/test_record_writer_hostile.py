"""The record writer process (autobench.records._commit_process) under what users do to it,
with real ``autobench run`` processes and real record directories: modules of theirs beside
the benchmark, interrupts and signals, runs that end while the process is stopped.
Each test forces the process (``AUTOBENCH_RECORD_WRITER=process``) whatever the size."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autobench.records import replay_experiment

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the writer process is POSIX's")

AUTOBENCH = str(Path(sys.executable).parent / "autobench")

TASK = """
def run(ctx, case):
    return {"n": case.input["n"]}
"""


def _write(root: Path, cases: int, task: str = TASK) -> None:
    (root / "hostile_task.py").write_text(task)
    case_list = ", ".join(f"{{id: c{index:04d}, input: {{n: {index}}}}}" for index in range(cases))
    (root / "autobench.yaml").write_text(
        f"benchmark:\n  store:\n    cases: [{case_list}]\n"
        "    run: {python: hostile_task:run}\n    variants: {v: {}}\n"
    )


def _env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    env.update(
        COLUMNS="200", NO_COLOR="1", AUTOBENCH_NO_INDEX="1", AUTOBENCH_RECORD_WRITER="process"
    )
    env.update(extra)
    return env


def _run(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AUTOBENCH, "run", "autobench.yaml", "--no-progress", "--runs", "none", *args],
        cwd=root,
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _outputs(record: Path) -> list[int]:
    return sorted(run.output["n"] for run in replay_experiment(record).runs)  # type: ignore[index]


def test_modules_beside_the_benchmark_never_replace_the_writer_processes_own(
    tmp_path: Path,
) -> None:
    # A benchmark directory holding modules named as standard ones (a mail benchmark's
    # email.py, a sampler's random.py): the recording process never imports them in place
    # of the standard library, and neither may its writer process, started there.
    _write(tmp_path, 30)
    (tmp_path / "email.py").write_text('"""Mails the report."""\nimport smtplib\n')
    (tmp_path / "random.py").write_text('"""Samples the cases."""\nSEED = 7\n')
    (tmp_path / "queue.py").write_text('raise SystemExit("a user module, not the queue")\n')
    done = _run(tmp_path, "--record", "rec")
    assert done.returncode == 0, done.stderr
    assert _outputs(tmp_path / "rec") == list(range(30))
