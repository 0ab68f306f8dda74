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
from writer_support import (
    AUTOBENCH,
    WRITERS_SOURCE,
    child_env,
    run_cli,
    run_script,
    write_benchmark,
)

from autobench.records import load_experiment_summary, replay_experiment

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the writer process is POSIX's")

TASK = """
def run(ctx, case):
    return {"n": case.input["n"]}
"""


def _write(root: Path, cases: int, task: str = TASK) -> None:
    write_benchmark(root, cases, task, "hostile_task")


def _env(**extra: str) -> dict[str, str]:
    return child_env(**{"AUTOBENCH_RECORD_WRITER": "process", **extra})


def _run(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_cli(root, *args, **{"AUTOBENCH_RECORD_WRITER": "process", **env})


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
    done = _run(tmp_path, "--record", "rec", AUTOBENCH_NO_INDEX="", AUTOBENCH_INDEX_WORKER="1")
    assert done.returncode == 0, done.stderr
    # stored by the writer process itself, not by the thread it falls back to
    assert "could not start" not in done.stderr, done.stderr
    assert _outputs(tmp_path / "rec") == list(range(30))
    # nor may the index's worker process, started there too
    assert "index" not in done.stderr, done.stderr
    query = subprocess.run(
        [AUTOBENCH, "query", "rec", "select count(*) as n from runs", "--format", "json"],
        cwd=tmp_path,
        env=_env(AUTOBENCH_NO_INDEX=""),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert query.returncode == 0, query.stderr
    assert '"n": 30' in query.stdout.replace('"n":30', '"n": 30'), query.stdout


LAST_RUN_TOO_LARGE = (
    """
import asyncio, os, resource, sys
from pathlib import Path

from autobench.core.runtime import run_benchmark_spec
from autobench.core.spec import load_benchmark_spec
from autobench.records import RecordDirectoryWriter, RecordingError


"""
    + WRITERS_SOURCE
    + """


spec = load_benchmark_spec(Path("autobench.yaml"))
resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, resource.RLIM_INFINITY))
try:
    asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(Path("rec"))))
except RecordingError as error:
    print("RAISED", error)
print("WRITERS", len(writers(os.getpid())))
"""
)

LAST_RUN_TASK = """
def run(ctx, case):
    if case.input["n"] == 19:  # the last run, once every other is stored
        return {"text": "x" * 300_000}
    return {"n": case.input["n"]}
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_failed_finish_leaves_no_writer_process_behind(tmp_path: Path) -> None:
    # The write of the last run fails (its run.yaml passes RLIMIT_FSIZE) once the runs are
    # over: finish() raises the error, and a program that goes on (a notebook, a service,
    # a test suite) keeps no writer process waiting on a pipe.
    _write(tmp_path, 20, LAST_RUN_TASK)
    done = run_script(tmp_path, LAST_RUN_TOO_LARGE, AUTOBENCH_RECORD_WRITER="process")
    assert done.returncode == 0, done.stderr
    assert "RAISED cannot write" in done.stdout and "c0019" in done.stdout, done.stdout
    assert "WRITERS 0" in done.stdout, done.stdout


CHANGES_DIRECTORY = """
import os


def run(ctx, case):
    if case.input["n"] == 5:
        os.chdir("checkout")  # a coding task working in its checkout, for good
    return {"n": case.input["n"]}
"""


@pytest.mark.parametrize("writer", ["thread", "process"])
def test_a_task_that_changes_directory_moves_no_write_of_the_record(
    tmp_path: Path, writer: str
) -> None:
    # `--record rec` names rec in the directory autobench was started in: every run and the
    # summary are stored there, whichever directory the tasks move the process to.
    _write(tmp_path, 40, CHANGES_DIRECTORY)
    (tmp_path / "checkout").mkdir()
    done = _run(tmp_path, "--record", "rec", AUTOBENCH_RECORD_WRITER=writer)
    assert done.returncode == 0, done.stderr
    assert _outputs(tmp_path / "rec") == list(range(40))
    summary = load_experiment_summary(tmp_path / "rec")
    assert summary is not None and summary.complete and summary.runs == 40
    assert not (tmp_path / "checkout" / "rec").exists()
    assert "records     rec " in done.stdout  # the closing report names it as given


def test_a_large_frame_crosses_the_pipe_without_a_copy_of_it(tmp_path: Path) -> None:
    # A run's artifacts cross the pipe to the writer process inside one frame: writing it
    # and reading it back allocate one copy at most (the frame read), never a second one of
    # the whole payload (a recording process of large artifacts would need twice the memory
    # the thread needs).
    import threading
    import tracemalloc

    from autobench.records._commit_frames import FrameReader, write_frame

    payload = bytes(range(256)) * (40 * 1024 * 4)  # 40 MiB
    read, write = os.pipe()
    frames: list[bytes] = []

    def drain() -> None:
        reader = FrameReader(read)
        while (got := reader.read()) is not None:
            frames.extend(got)

    tracemalloc.start()
    try:
        thread = threading.Thread(target=drain)
        thread.start()
        write_frame(write, payload)
        os.close(write)
        thread.join()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        os.close(read)
    assert frames == [payload]
    assert peak < 1.5 * len(payload), f"{peak / len(payload):.2f} copies of the frame"


ADDED_AT_RUN_TIME = """
import asyncio, site, sys
from pathlib import Path

site.addsitedir(sys.argv[1])  # Autobench is importable here only from now on

from autobench.core.runtime import run_benchmark_spec
from autobench.core.spec import load_benchmark_spec
from autobench.records import RecordDirectoryWriter

spec = load_benchmark_spec(Path("autobench.yaml"))
result = asyncio.run(
    run_benchmark_spec(spec, sink=RecordDirectoryWriter(Path("rec")), concurrency_limit=8)
)
print("RUNS", len(result.runs))
"""


def test_a_writer_process_that_cannot_start_leaves_the_runs_to_the_thread(
    tmp_path: Path,
) -> None:
    # A program that makes Autobench importable itself (site.addsitedir, a vendored copy, a
    # zip application): a fresh interpreter started for the writer cannot import it and
    # exits before it stores anything. The experiment is recorded whole on a thread.
    import sysconfig

    base = getattr(sys, "_base_executable", sys.executable)
    probe = subprocess.run([base, "-c", "import autobench.records"], capture_output=True)
    if base == sys.executable or probe.returncode == 0:
        pytest.skip("needs an interpreter that cannot import Autobench by itself")
    _write(tmp_path, 600)
    (tmp_path / "drive.py").write_text(ADDED_AT_RUN_TIME)
    done = subprocess.run(
        [base, "drive.py", sysconfig.get_paths()["purelib"]],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "record writer process could not start" in done.stderr  # said once, as a warning
    assert "RUNS 600" in done.stdout
    assert _outputs(tmp_path / "rec") == list(range(600))
    summary = load_experiment_summary(tmp_path / "rec")
    assert summary is not None and summary.complete and summary.runs == 600


POST_DERIVER_RAISES = (
    """
import asyncio, os
from pathlib import Path
from typing import Literal

from autobench.core.plugins import AutobenchPlugins, hookimpl
from autobench.core.postderive import PostDeriverSpec
from autobench.core.runtime import run_benchmark_spec
from autobench.core.spec import load_benchmark_spec
from autobench.records import RecordDirectoryWriter


class Broken(PostDeriverSpec):
    kind: Literal["broken"] = "broken"

    def derive(self, runs, registry):
        raise ValueError("a post-deriver of the user's that raises")


class Plugin:
    @hookimpl
    def autobench_post_derivers(self):
        return [Broken]


"""
    + WRITERS_SOURCE
    + """


plugins = AutobenchPlugins(Plugin())
spec = load_benchmark_spec(Path("autobench.yaml"), plugins=plugins)
try:
    asyncio.run(
        run_benchmark_spec(spec, sink=RecordDirectoryWriter(Path("rec")), plugins=plugins)
    )
except ValueError as error:
    print("RAISED", error)
print("WRITERS", len(writers(os.getpid())))
"""
)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_failure_after_the_runs_leaves_no_writer_process_behind(tmp_path: Path) -> None:
    # Every run is stored, then the experiment fails before its summary (a post-deriver
    # raises): the error reaches the caller, and a program that goes on keeps no writer
    # process (nor its pipes).
    _write(tmp_path, 20)
    spec = (tmp_path / "autobench.yaml").read_text()
    (tmp_path / "autobench.yaml").write_text(spec + "    post_derive: [{kind: broken}]\n")
    done = run_script(tmp_path, POST_DERIVER_RAISES, AUTOBENCH_RECORD_WRITER="process")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "RAISED a post-deriver of the user's that raises" in done.stdout, done.stdout
    assert "WRITERS 0" in done.stdout, done.stdout
    assert _outputs(tmp_path / "rec") == list(range(20))


def test_the_writer_process_says_nothing_of_a_clean_run(tmp_path: Path) -> None:
    # Its standard error is the terminal's: a warning of its start (runpy's, for a module
    # imported before it runs as __main__) would show on every recorded experiment.
    _write(tmp_path, 30)
    done = _run(tmp_path, "--record", "rec")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert _outputs(tmp_path / "rec") == list(range(30))


SELF_CONTAINING = """
def run(ctx, case):
    n = case.input["n"]
    if n == 3:  # a mapping that holds itself
        output = {"n": n}
        output["self"] = output
        return output
    if n == 4:  # nested far deeper than any record holds
        output = {"n": n}
        for _ in range(900):
            output = {"inner": output}
        return {"n": n, "deep": output}
    return {"n": n}
"""


def test_an_output_that_holds_itself_is_recorded_and_the_experiment_goes_on(
    tmp_path: Path,
) -> None:
    # The output's redaction walked it without a bound: a RecursionError ended the whole
    # experiment (with a traceback), whichever writer stored it.
    _write(tmp_path, 20, SELF_CONTAINING)
    done = _run(tmp_path, "--record", "rec")
    assert done.returncode == 0, done.stderr[-3000:]
    assert _outputs(tmp_path / "rec") == list(range(20))
    summary = load_experiment_summary(tmp_path / "rec")
    assert summary is not None and summary.complete and summary.status.passed == 20


ABANDONED = (
    """
import gc, os, sys, threading, time
from pathlib import Path

sys.path.insert(0, sys.argv[1])  # tests/records: the record factories
from _factories import experiment_for, trivial_run

from autobench.records import RecordDirectoryWriter
"""
    + WRITERS_SOURCE
    + """

def record_and_drop():
    writer = RecordDirectoryWriter(Path("rec"))
    writer.start(experiment_for([("c", "v"), ("d", "v")]))
    writer.run_finished(trivial_run("c", "v"), {})
    writer.run_finished(trivial_run("d", "v"), {})  # then neither finish() nor close()


def background():
    names = ("autobench-group-commit", "autobench-record-writer")
    threads = [t.name for t in threading.enumerate() if t.name.startswith(names)]
    return writers(os.getpid()), threads


record_and_drop()
deadline = time.monotonic() + 60
while any(background()) and time.monotonic() < deadline:
    gc.collect()  # the writer is in reference cycles: collected by the cyclic collector
    time.sleep(0.01)
print("LEFT", background())
print("STORED", sorted(p.parent.parent.name for p in Path("rec").glob("cases/*/*/run.yaml")))
"""
)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("writer", ["thread", "process"])
def test_a_writer_dropped_without_finish_ends_its_background_work(
    tmp_path: Path, writer: str
) -> None:
    # A program that starts a writer, hands it runs and drops it (an exception on the way,
    # a notebook cell run again): once it is collected, its thread or writer process stores
    # what it was given and ends, instead of waiting on its queue until the program exits.
    records_tests = str(Path(__file__).parents[1] / "records")
    done = run_script(tmp_path, ABANDONED, records_tests, AUTOBENCH_RECORD_WRITER=writer)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "LEFT ([], [])" in done.stdout, done.stdout
    assert "STORED ['c', 'd']" in done.stdout, done.stdout
