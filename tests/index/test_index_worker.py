"""The live index written by a worker process: real ``autobench run`` processes on real
YAML specs (and the in-process API), real record directories. The worker exists while the
runs go on and is gone when the run exits; the index it leaves equals ``build_index``'s;
a SIGKILLed recording process leaves no index and no worker; a Ctrl-C to the process group
still ends with the index; a worker that dies or cannot write is one warning and the record
is complete; ``--no-index`` starts no worker."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from index_support import case
from test_live_index import (
    LIVE_TASK,
    assert_fresh_and_same_as_yaml,
    killed_session,
    no_leftovers,
    write_benchmark,
)
from test_live_index import run_cli as live_run_cli

from autobench import run_benchmark_spec
from autobench.core.spec import BenchmarkSpec
from autobench.index import build_index, index_root, load_index
from autobench.records import RecordDirectoryWriter, replay_experiment
from autobench.records._directory import SURELY_LARGE_TRACE

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")

WORKER = b"autobench.index._worker"

# LIVE_TASK, and what a case may do to the index worker of the process it runs in.
WATCHED_TASK = LIVE_TASK + textwrap.dedent(
    """
    import signal

    def _workers():
        found = []
        for task in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{task}/children") as file:
                    children = file.read().split()
            except OSError:
                continue
            for pid in children:
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as file:
                        if b"autobench.index._worker" in file.read():
                            found.append(int(pid))
                except OSError:
                    pass
        return found

    def watched(ctx, case):
        seen = os.environ.get("WORKERS_SEEN")
        if seen:
            with open(seen, "a") as file:
                file.write(" ".join(map(str, _workers())) + "\\n")
        action = case.input.get("action")
        if action == "kill-worker":
            for pid in _workers():
                os.kill(pid, signal.SIGKILL)
                while os.path.exists(f"/proc/{pid}") and "Z" not in _state(pid):
                    time.sleep(0.01)
        if action == "pause":
            time.sleep(0.5)
        if action == "ctrl-c":  # as a terminal's Ctrl-C: the whole process group
            os.killpg(os.getpgrp(), signal.SIGINT)
        for index in range(case.input.get("wide", 0)):  # a trace stored beside the run
            with ctx.span("step", kind="tool", attributes={"i": index}):
                pass
        return run(ctx, case)

    def _state(pid):
        try:
            with open(f"/proc/{pid}/stat") as file:
                return file.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            return "gone"
    """
)


def write_spec(directory: Path, cases: list[dict[str, Any]]) -> None:
    write_benchmark(directory, cases, task=WATCHED_TASK, function="watched")


def run_cli(directory: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return live_run_cli(directory, *args, new_session=True, **env)


def exited(pid: int) -> bool:
    """Whether process ``pid`` has ended (gone, or a zombie its parent did not reap)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def workers_in(directory: Path) -> list[int]:
    """Index workers running with ``directory`` as their working directory."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if WORKER in (entry / "cmdline").read_bytes() and (entry / "cwd").resolve() == (
                directory.resolve()
            ):
                found.append(int(entry.name))
        except OSError:
            continue
    return [pid for pid in found if not exited(pid)]


def seen_workers(path: Path) -> list[set[int]]:
    return [set(map(int, line.split())) for line in path.read_text().splitlines()]


def rows(record_dir: Path) -> dict[str, list[str]]:
    """Every table of the index, each row as JSON text, sorted (the live index holds rows in
    the order runs ended, a build in plan order); the files table as paths and hashes."""
    manifest = json.loads((index_root(record_dir) / "manifest.json").read_text())
    where = index_root(record_dir) / manifest["partition"]
    tables = {
        name: sorted(
            json.dumps(row, default=str, sort_keys=True)
            for row in pq.read_table(where / f"{name}.parquet").to_pylist()
        )
        for name in ("runs", "observations", "scores", "spans", "llm_calls")
    }
    files = pq.read_table(index_root(record_dir) / "files.parquet").to_pylist()
    tables["files"] = sorted(f"{row['path']} {row['sha256']}" for row in files)
    manifest.pop("built_at")
    tables["manifest"] = [json.dumps(manifest, sort_keys=True)]
    return tables


CASES = [case(n, llm=n % 2 == 0, boom=n == 5) for n in range(1, 9)]


def test_the_worker_writes_what_build_index_writes_and_is_gone_when_the_run_exits(
    tmp_path: Path,
) -> None:
    write_spec(tmp_path, CASES)
    seen = tmp_path / "workers-seen"
    done = run_cli(tmp_path, "--record", "rec", "--concurrency", "4", WORKERS_SEEN=str(seen))
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr
    # One worker followed the whole experiment, and it ended with the run.
    during = seen_workers(seen)
    assert len(during) == 16 and len(set().union(*during)) == 1 and all(during)
    (worker,) = set().union(*during)
    assert exited(worker) and not workers_in(tmp_path)
    record_dir = tmp_path / "rec"
    assert_fresh_and_same_as_yaml(record_dir)
    assert no_leftovers(record_dir)
    live = rows(record_dir)
    assert len(live["spans"]) > 16 and len(live["llm_calls"]) == 8
    build_index(record_dir)
    assert rows(record_dir) == live


def test_the_worker_starts_without_numpy(tmp_path: Path) -> None:
    # pyarrow imports numpy when it is installed (a third of the worker's start-up); the
    # worker keeps it out. Its imports are done once it says it is ready: what it mapped
    # then is what it loaded.
    worker = subprocess.Popen(
        [sys.executable, "-m", "autobench.index._worker", str(tmp_path), str(os.getpid()), "0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert worker.stdin is not None and worker.stdout is not None
    try:
        assert worker.stdout.readline() == b"R\n"
        libraries = Path(f"/proc/{worker.pid}/maps").read_text()
    finally:
        worker.stdin.close()  # end of input: nothing staged, the worker exits
        status = worker.wait(timeout=60)
        worker.stdout.close()
    assert "/pyarrow/" in libraries and "/numpy/" not in libraries
    assert status == 0


PRELOAD = """
import select, sys
from pathlib import Path
from autobench.index._worker_link import WorkerIndex
link = WorkerIndex(Path(sys.argv[1]), resumed=False)
select.select([link.process.stdout], [], [], 60)  # the worker said it is ready: R
link._preload_while_busy()
print("autobench.index._load" in sys.modules)
link._finalizer()  # abandoned: the worker's input ends and it exits
"""


def test_the_closing_preloads_the_index_reader_while_a_ready_worker_works(
    tmp_path: Path,
) -> None:
    """At the end of a new experiment the worker's "ready" line is still unread: that is
    not its answer, so the recording process imports what reading the index back needs
    (pyarrow) while the worker completes the index. (The check took any output for an
    answer and never preloaded.) In a fresh interpreter, where nothing imported it yet."""
    done = subprocess.run(
        [sys.executable, "-c", PRELOAD, str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"]


def test_a_trace_stored_as_an_artifact_is_read_back_by_the_worker(tmp_path: Path) -> None:
    write_spec(tmp_path, [case(1, llm=True, wide=SURELY_LARGE_TRACE + 5), case(2, llm=True)])
    done = run_cli(tmp_path, "--record", "rec")
    assert done.returncode == 0, done.stderr
    record_dir = tmp_path / "rec"
    artifacts = sorted(p.name for p in (record_dir / "artifacts").rglob("trace.yaml"))
    assert artifacts == ["trace.yaml", "trace.yaml"]  # both variants of case 1
    assert_fresh_and_same_as_yaml(record_dir)
    live = rows(record_dir)
    assert len(live["spans"]) > 2 * SURELY_LARGE_TRACE and len(live["llm_calls"]) == 4
    build_index(record_dir)
    assert rows(record_dir) == live


def test_the_index_written_in_process_is_the_same(tmp_path: Path) -> None:
    write_spec(tmp_path, CASES)
    seen = tmp_path / "workers-seen"
    done = run_cli(tmp_path, "--record", "rec", AUTOBENCH_INDEX_WORKER="0", WORKERS_SEEN=str(seen))
    assert done.returncode == 0, done.stderr
    assert not any(seen_workers(seen))
    record_dir = tmp_path / "rec"
    assert_fresh_and_same_as_yaml(record_dir)
    live = rows(record_dir)
    build_index(record_dir)
    assert rows(record_dir) == live


def test_no_index_starts_no_worker(tmp_path: Path) -> None:
    write_spec(tmp_path, CASES[:3])
    seen = tmp_path / "workers-seen"
    done = run_cli(tmp_path, "--record", "rec", "--no-index", WORKERS_SEEN=str(seen))
    assert done.returncode == 0, done.stderr
    assert len(seen_workers(seen)) == 6 and not any(seen_workers(seen))
    assert not index_root(tmp_path / "rec").exists()


def test_a_sigkilled_recording_process_leaves_no_index_and_no_worker(tmp_path: Path) -> None:
    write_spec(tmp_path, CASES)
    # Killed while cases 7 and 8 sleep, after the twelve runs of cases 1 to 6 finished.
    workers = killed_session(tmp_path, "start", 12, "7,8", lambda: workers_in(tmp_path))
    assert len(workers) == 1
    # Its input ends with the recording process: the worker removes what it staged and exits.
    deadline = time.monotonic() + 30
    while not exited(workers[0]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert exited(workers[0])
    record_dir = tmp_path / "rec"
    assert not index_root(record_dir).exists() and load_index(record_dir) is None
    assert no_leftovers(record_dir)
    assert len(replay_experiment(record_dir, evidence_only=True).runs) == 12


def test_ctrl_c_to_the_process_group_still_ends_with_the_index(tmp_path: Path) -> None:
    write_spec(tmp_path, [case(n, action="ctrl-c" if n == 4 else None) for n in range(1, 9)])
    done = run_cli(tmp_path, "--record", "rec")
    assert done.returncode == 130, done.stderr
    record_dir = tmp_path / "rec"
    partial = replay_experiment(record_dir, evidence_only=True)
    assert partial.summary is not None and not partial.summary.complete
    assert partial.runs  # those already started may all end before the session stops
    assert_fresh_and_same_as_yaml(record_dir)
    assert not workers_in(tmp_path) and no_leftovers(record_dir)
    assert "Warning" not in done.stderr


def test_a_worker_that_dies_is_one_warning_and_the_record_is_complete(tmp_path: Path) -> None:
    write_spec(tmp_path, [case(n, action="kill-worker" if n == 2 else None) for n in (1, 2, 3)])
    done = run_cli(tmp_path, "--record", "rec", "--concurrency", "1")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("Warning") == 1, done.stderr
    assert "columnar index of rec was not written" in done.stderr
    assert "autobench index rec" in done.stderr
    record_dir = tmp_path / "rec"
    result = replay_experiment(record_dir)
    assert len(result.runs) == 6 and result.summary is not None and result.summary.complete
    assert not index_root(record_dir).exists() and not workers_in(tmp_path)


def test_paths_past_the_bound_are_dropped_and_the_worker_reads_the_rest_from_the_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In process (run_experiment records so), with a bound smaller than one group's paths,
    # as a worker far behind would meet: the recording process keeps no more, tells the
    # worker, and at the end the worker reads the planned run files it has not seen (one
    # file at a time, not a replay of the whole record).
    import autobench.index._worker_link as link

    monkeypatch.setattr(link, "MAX_PENDING_BYTES", 8)
    monkeypatch.syspath_prepend(str(tmp_path))
    # Case 2 pauses: its runs end after later ones, so rows written live would not be in
    # plan order.
    write_spec(tmp_path, [case(n, action="pause" if n == 2 else None) for n in range(1, 9)])
    spec = BenchmarkSpec.model_validate(json.loads((tmp_path / "autobench.yaml").read_text()))
    spec = spec.model_copy(update={"base_dir": tmp_path})
    try:
        asyncio.run(
            run_benchmark_spec(
                spec, concurrency_limit=2, sink=RecordDirectoryWriter(tmp_path / "r")
            )
        )
    finally:
        sys.modules.pop("live_task", None)
    record_dir = tmp_path / "r"
    assert_fresh_and_same_as_yaml(record_dir)
    manifest = json.loads((index_root(record_dir) / "manifest.json").read_text())
    where = index_root(record_dir) / manifest["partition"]
    order = pq.read_table(where / "runs.parquet").column("run_id").to_pylist()
    assert sorted(order) == sorted(run.run_id for run in replay_experiment(record_dir).runs)
    assert len(order) == len(set(order))  # each run once, the live ones and those read after
    assert not workers_in(tmp_path)


def test_a_worker_stopped_takes_the_processes_it_started_with_it(tmp_path: Path) -> None:
    # A worker past its finish deadline may be building the index from the YAML, whose
    # replay runs a pool of processes: stopping the worker stops them too (they used to
    # go on replaying the record after the command had ended).
    from autobench.index._worker_link import stop_worker

    started = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys, time\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
            "print(child.pid, flush=True)\n"
            "time.sleep(120)\n",
        ],
        stdout=subprocess.PIPE,
        process_group=0,  # as the worker is started
    )
    assert started.stdout is not None
    child = int(started.stdout.readline())
    started.stdout.close()
    stop_worker(started)
    assert started.returncode is not None
    for _ in range(500):  # the orphan is reaped by init once killed
        if (
            not Path(f"/proc/{child}").exists()
            or "State:\tZ" in Path(f"/proc/{child}/status").read_text()
        ):
            break
        time.sleep(0.01)
    else:
        pytest.fail(f"process {child} started by the worker is still running")
