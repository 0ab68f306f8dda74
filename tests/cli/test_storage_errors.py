"""A storage failure during ``autobench run`` (real subprocess, real file system limits).

The write of one run fails (EFBIG through RLIMIT_FSIZE, ENOSPC on a tiny tmpfs, EACCES on a
directory made read-only mid-run). The CLI must show a "Recording failed" panel naming the
path (no traceback), exit non-zero, stop starting new runs, and leave every committed run
readable and no truncated file under a final name.
"""

from __future__ import annotations

import ctypes
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autobench.records import load_run_record, replay_experiment, run_record_path

AUTOBENCH = str(Path(sys.executable).parent / "autobench")
CASES = 40
FAILING = 3
"""The case whose record cannot be written."""

TASK = """
import os, sys, time

def run(ctx, case):
    print(f"STARTED {case.id}", file=sys.stderr, flush=True)
    action = case.input.get("action")
    if action == "big":
        return {"text": "x" * 300_000}
    time.sleep(0.05)
    if action == "lock":
        cases = os.path.join(os.environ["RECORD_DIR"], "cases")
        for _ in range(30_000):  # until a run is stored (at most 30 s): a record writer
            if os.path.isdir(cases):  # process may store the first runs after this one starts
                break
            time.sleep(0.001)
        os.chmod(cases, 0o555)
    return {"n": case.input["n"]}
"""

pytestmark = pytest.mark.usefixtures("record_writer")  # thread and process


def write_benchmark(directory: Path, action: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "store_task.py").write_text(TASK)
    cases = ", ".join(
        f"{{id: c{index:02d}, input: {{n: {index}"
        + (f", action: {action}" if index == FAILING else "")
        + "}}"
        for index in range(CASES)
    )
    (directory / "autobench.yaml").write_text(
        f"benchmark:\n  store:\n    cases: [{cases}]\n"
        "    run: {python: store_task:run}\n    variants: {v: {}}\n"
    )


def child_env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    env.update(COLUMNS="200", NO_COLOR="1", PYTHONDONTWRITEBYTECODE="1", **extra)
    return env


def assert_failed_cleanly(
    done: subprocess.CompletedProcess[str],
    record: Path,
    *,
    failing: int,
    sequential: bool = True,
    or_earlier: bool = False,
) -> None:
    """The CLI printed one "Recording failed" panel naming the run file of case ``failing``
    (or, with ``or_earlier``, of an earlier case: run files are written by the group commit's
    thread while the next runs go on, so an earlier run's file may still be waiting to be
    written when ``failing``'s task fills the disk or takes the permission away), exited 1,
    stopped starting runs; what is under ``record`` is complete and replayable."""
    err = done.stderr
    assert done.returncode == 1, err
    assert "Recording failed" in err
    assert "Traceback" not in err and "Traceback" not in done.stdout
    message = " ".join(err.replace("│", " ").split())
    named = re.search(r"cannot write \S*rec/cases/c(\d\d)/v/run\.yaml: ", message)
    assert named is not None, message
    assert int(named.group(1)) in (range(failing + 1) if or_earlier else (failing,)), message
    if int(named.group(1)) != failing:
        assert not (record / f"cases/c{failing:02d}/v/run.yaml").exists()
        failing = int(named.group(1))
    failing_file = f"/cases/c{failing:02d}/v/run.yaml"
    started = [line for line in err.splitlines() if line.startswith("STARTED ")]
    assert len(started) < CASES, "new runs kept starting after the storage failure"
    # Every file under a final name is complete: each run file reads back whole.
    assert not [path for path in record.rglob("*.tmp")]
    assert not (record / failing_file[1:]).exists()
    result = replay_experiment(record)
    committed = {run.case_id for run in result.runs}
    if sequential:  # runs before the failing one were handed to the writer first
        assert {f"c{index:02d}" for index in range(failing)} <= committed
    assert f"c{failing:02d}" not in committed
    for run in result.runs:
        assert load_run_record(record / run_record_path(run.case_id, "v")).output == {
            "n": int(run.case_id[1:])
        }
    assert len(result.runs) + len(result.missing_runs) == CASES
    assert not (record / "summary.yaml").exists()


def limit_file_size() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.RLIM_INFINITY))


@pytest.mark.parametrize("concurrency", ["1", "4"])
def test_file_too_large_mid_run_is_a_clean_error(tmp_path: Path, concurrency: str) -> None:
    write_benchmark(tmp_path, "big")
    done = subprocess.run(
        [
            AUTOBENCH,
            "run",
            "autobench.yaml",
            "--record",
            "rec",
            "--no-progress",
            "--concurrency",
            concurrency,
        ],
        cwd=tmp_path,
        env=child_env(),
        preexec_fn=limit_file_size,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "File too large" in done.stderr
    assert_failed_cleanly(done, tmp_path / "rec", failing=FAILING, sequential=concurrency == "1")


def _can_mount_tmpfs() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _can_mount_tmpfs(), reason="needs a private mount namespace (unshare -m)")
def test_full_disk_mid_run_is_a_clean_error(tmp_path: Path) -> None:
    write_benchmark(tmp_path / "bench", "big")
    disk = tmp_path / "disk"
    disk.mkdir()
    # The tmpfs lives only in the child's mount namespace: copy what was recorded out of it.
    script = textwrap.dedent(
        f"""
        mount -t tmpfs -o size=256k tmpfs {disk}
        cd {tmp_path / "bench"}
        {AUTOBENCH} run autobench.yaml --record {disk}/rec --no-progress
        status=$?
        cp -a {disk}/rec {tmp_path}/copied
        exit $status
        """
    )
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", script],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "No space left on device" in done.stderr
    assert_failed_cleanly(done, tmp_path / "copied", failing=FAILING, or_earlier=True)


PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2


def _without_permission_override() -> None:
    """As root: drop the capabilities that bypass file permissions before exec, so root
    meets EACCES like any user (the files it owns keep their owner bits)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@pytest.mark.skipif(sys.platform != "linux", reason="Linux permissions and capabilities")
def test_permission_denied_mid_run_is_a_clean_error(tmp_path: Path) -> None:
    # The task of the failing case makes rec/cases read-only: its run directory cannot be
    # created (EACCES).
    write_benchmark(tmp_path, "lock")
    done = subprocess.run(
        [AUTOBENCH, "run", "autobench.yaml", "--record", "rec", "--no-progress"],
        cwd=tmp_path,
        env=child_env(RECORD_DIR="rec"),
        preexec_fn=_without_permission_override if os.geteuid() == 0 else None,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    os.chmod(tmp_path / "rec" / "cases", 0o755)
    assert "Permission denied" in done.stderr
    assert_failed_cleanly(done, tmp_path / "rec", failing=FAILING, or_earlier=True)


def test_a_storage_failure_waits_for_the_runs_already_handed_over(tmp_path: Path) -> None:
    """In process: the run whose file is too large ends the experiment with a
    RecordingError, and by then the group commit has finished with the runs handed over
    before it (stored, no temporary file left) and its threads have ended (and the record
    writer process, when it stores the runs), instead of being left to the interpreter's
    exit (which stranded temporary files under load)."""
    import asyncio
    import threading

    from autobench.core.runtime import RunSession
    from autobench.core.spec import load_benchmark_spec
    from autobench.records import RecordingError

    write_benchmark(tmp_path, "big")
    storing = (
        "autobench-group-commit",
        "autobench-record-writer-feeder",
        "autobench-record-writer-reader",
    )
    before = set(threading.enumerate())
    sys.path.insert(0, str(tmp_path))
    spec = load_benchmark_spec(tmp_path / "autobench.yaml")
    session = RunSession.start(spec, record_dir=tmp_path / "rec")
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, limits[1]))
    try:
        with pytest.raises(RecordingError, match=r"cases/c03/v/run\.yaml"):
            asyncio.run(session.execute(concurrency_limit=1, listeners=False))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, handler)
        sys.path.remove(str(tmp_path))
    committing = [t for t in set(threading.enumerate()) - before if t.name in storing]
    assert committing == []
    record = tmp_path / "rec"
    assert not list(record.rglob("*.tmp"))
    for index in range(FAILING):
        assert (record / f"cases/c{index:02d}/v/run.yaml").is_file()
    assert not (record / f"cases/c{FAILING:02d}/v/run.yaml").exists()
