"""The record writer process (autobench.records._commit_process), with real ``autobench run``
processes: an experiment of 500 planned runs or more is stored by it and a small one on a
thread; a writer process that dies ends the experiment with an error naming it, every run
reported stored is on disk and ``--resume`` completes the record; a recording process killed
outright takes its writer process with it (none is left storing runs behind a resume).

The processes are found through /proc (Linux, as the kernel's parent-death signal the
writer relies on there)."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest
from writer_support import AUTOBENCH, WRITERS_SOURCE, child_env, run_cli, write_benchmark, writers

from autobench.records import load_experiment_summary, load_run_record, replay_experiment

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

TASK = (
    """
import os
import time
from pathlib import Path
"""
    + WRITERS_SOURCE
    + """

def run(ctx, case):
    n = case.input["n"]
    action = os.environ.get("WRITER_TEST_ACTION", "")
    if action == "kill-writer" and n == 300 and not os.environ.get("WRITER_TEST_RESUMED"):
        for _ in range(30_000):  # until the writer has stored a run (at most 30 s)
            if any(Path("rec/cases").glob("*/*/run.yaml")):
                break
            time.sleep(0.001)
        for pid in writers(os.getpid()):
            os.kill(pid, 9)
    if action == "observe":
        return {"n": n, "writers": len(writers(os.getpid()))}
    return {"n": n}
"""
)


def _write(root: Path, cases: int) -> None:
    write_benchmark(root, cases, TASK, "writer_task")


def _run(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_cli(root, *args, **{"AUTOBENCH_RECORD_WRITER": "", **env})


@pytest.mark.parametrize(("cases", "expected"), [(20, 0), (500, 1)])
def test_the_experiment_size_chooses_the_writer(tmp_path: Path, cases: int, expected: int) -> None:
    _write(tmp_path, cases)
    done = _run(tmp_path, "--record", "rec", "--concurrency", "8", WRITER_TEST_ACTION="observe")
    assert done.returncode == 0, done.stderr
    result = replay_experiment(tmp_path / "rec")
    assert len(result.runs) == cases
    assert {run.output["writers"] for run in result.runs} == {expected}  # type: ignore[index]


def test_a_dead_writer_process_ends_the_experiment_and_resume_completes_it(
    tmp_path: Path,
) -> None:
    _write(tmp_path, 600)
    done = _run(tmp_path, "--record", "rec", "--concurrency", "4", WRITER_TEST_ACTION="kill-writer")
    assert done.returncode != 0
    flat = " ".join(row.strip("│ ") for row in done.stderr.splitlines())
    assert "record writer process" in flat and "exited with code -9" in flat, done.stderr
    assert flat.count("exited with code -9") == 1, done.stderr  # said once, in the panel
    assert "--resume" in flat
    record = tmp_path / "rec"
    stored = list(record.glob("cases/*/*/run.yaml"))
    assert 0 < len(stored) < 600
    for path in stored:  # whatever reached a final name is whole
        load_run_record(path, root=record)
    assert not (record / "summary.yaml").exists()

    resumed = _run(
        tmp_path, "--resume", "rec", WRITER_TEST_ACTION="kill-writer", WRITER_TEST_RESUMED="1"
    )
    assert resumed.returncode == 0, resumed.stderr
    result = replay_experiment(record)
    assert sorted(run.output["n"] for run in result.runs) == list(range(600))  # type: ignore[index]
    summary = load_experiment_summary(record)
    assert summary is not None and summary.runs == 600


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_killed_recording_process_takes_its_writer_process_with_it(tmp_path: Path) -> None:
    (tmp_path / "writer_task.py").write_text(
        "import time\n\ndef run(ctx, case):\n    time.sleep(0.01)\n"
    )
    case_list = ", ".join(f"{{id: c{index:04d}}}" for index in range(2000))
    (tmp_path / "autobench.yaml").write_text(
        f"benchmark:\n  store:\n    cases: [{case_list}]\n"
        "    run: {python: writer_task:run}\n    variants: {v: {}}\n"
    )
    process = subprocess.Popen(
        [AUTOBENCH, "run", "autobench.yaml", "--no-progress", "--record", "rec"],
        cwd=tmp_path,
        env=child_env(AUTOBENCH_RECORD_WRITER=""),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    found: list[int] = []
    while not found or not list((tmp_path / "rec").glob("cases/*/*/run.yaml")):
        assert process.poll() is None, "the run ended before it stored a run"
        assert time.monotonic() < deadline, "no record writer process appeared"
        found = found or writers(process.pid)
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    deadline = time.monotonic() + 60
    while any(_alive(pid) for pid in found):
        assert time.monotonic() < deadline, f"writer process {found} outlived its parent"
        time.sleep(0.01)
