"""Durable recording, resume and Ctrl-C with real ``autobench run`` subprocesses.

No mocks and no timing assertions: the tests poll the record directory for files
with generous timeouts, then signal the process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from autobench.records import (
    load_experiment_record,
    load_experiment_summary,
    load_post_derived,
    load_run_record,
    replay_experiment,
)
from autobench.records._schemas import record_schema_text

AUTOBENCH = str(Path(sys.executable).parent / "autobench")
TIMEOUT = 120.0
RUNS = 40

pytestmark = pytest.mark.usefixtures("record_writer")  # thread and process


def _write_benchmark(root: Path, *, task: str, cases: int, variants: int = 2) -> None:
    (root / "dur_task.py").write_text(task)
    case_list = ", ".join(f"{{id: c{index:02d}, input: {{n: {index}}}}}" for index in range(cases))
    variant_list = ", ".join(f"v{index}: {{}}" for index in range(variants))
    (root / "autobench.yaml").write_text(
        "benchmark:\n  durable:\n"
        f"    cases: [{case_list}]\n"
        "    run: {python: dur_task:run}\n"
        f"    variants: {{{variant_list}}}\n"
    )


SYNC_TASK = """\
import time

def run(ctx, case):
    with ctx.span("work", kind="tool"):
        # the last cases take longer, so a kill "near the end" lands before the end
        time.sleep(0.05 if case.input["n"] < SLOW_FROM else 1.0)
    ctx.metric("n", case.input["n"])
    ctx.artifact("note", "text " * (20 + case.input["n"]), media_type="text/plain")
    return {"n": case.input["n"], "text": "x" * 500}
""".replace("SLOW_FROM", str(RUNS // 2 - 2))


def _start(root: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [AUTOBENCH, "run", "autobench.yaml", "--no-progress", *args],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(condition: Callable[[], bool], process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        assert process.poll() is None, "the run ended before the condition held"
        assert time.monotonic() < deadline, "timed out waiting for record files"
        time.sleep(0.01)


def _run_files(record: Path) -> list[Path]:
    return list(record.glob("cases/*/*/run.yaml"))


def _check_every_file_parses(record: Path) -> None:
    """Every file under a final name is complete; temporary files are hidden ``.tmp`` names."""
    for path in record.rglob("*"):
        if path.is_dir():
            continue
        top = path.relative_to(record).parts[0]
        if top == "index" or top.startswith(".index."):  # the columnar index (derived data)
            continue
        if path.name.startswith("."):
            assert path.name.endswith(".tmp"), path
            continue
        if path.name.endswith(".schema.json"):  # the schema a record file's header names
            record_type = path.name.removesuffix(".schema.json")
            assert path.read_text(encoding="utf-8") == record_schema_text(record_type), path
        elif path.name == "experiment.yaml":
            load_experiment_record(record)
        elif path.name == "run.yaml":
            load_run_record(path, root=record)
        elif path.name.startswith("summary"):
            assert load_experiment_summary(record) is not None
        elif path.name.startswith("post_derived"):
            load_post_derived(record)
        elif path.suffix == ".txt":
            text = path.read_text()
            assert text.startswith("text ") and text.endswith("text ")
        else:
            raise AssertionError(f"unexpected file {path}")


def _kill_when(root: Path, name: str, condition: Callable[[Path], bool]) -> Path:
    record = root / name
    process = _start(root, "--record", name)
    _wait_for(lambda: condition(record), process)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=TIMEOUT)
    assert process.returncode == -signal.SIGKILL
    return record


@pytest.mark.parametrize(
    "condition",
    [
        lambda record: (record / "experiment.yaml").exists(),
        lambda record: len(_run_files(record)) >= 5,
        lambda record: len(_run_files(record)) >= RUNS - 4,
    ],
    ids=["after-experiment", "after-five-runs", "near-the-end"],
)
def test_sigkill_leaves_parseable_records_that_resume(
    tmp_path: Path, condition: Callable[[Path], bool]
) -> None:
    _write_benchmark(tmp_path, task=SYNC_TASK, cases=RUNS // 2)
    record = _kill_when(tmp_path, "rec", condition)
    _check_every_file_parses(record)
    result = replay_experiment(record)
    assert len(result.runs) + len(result.missing_runs) == RUNS
    assert all(run.status.value == "passed" for run in result.runs)
    kept = {run.run_id for run in result.runs}
    experiment_bytes = (record / "experiment.yaml").read_bytes()

    process = _start(tmp_path, "--resume", "rec")
    _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    _check_every_file_parses(record)
    assert (record / "experiment.yaml").read_bytes() == experiment_bytes
    resumed = replay_experiment(record)
    assert resumed.missing_runs == ()
    assert len(resumed.runs) == RUNS
    assert resumed.experiment_id == result.experiment_id
    assert kept <= {run.run_id for run in resumed.runs}
    summary = resumed.summary
    assert summary is not None and summary.complete and summary.runs == RUNS
    assert summary.resumed is not None
    assert summary.resumed.runs == len(result.missing_runs) == summary.resumed.missing
    assert not summary.resumed.forced


def test_resume_refuses_changed_sources_unless_forced(tmp_path: Path) -> None:
    _write_benchmark(tmp_path, task=SYNC_TASK, cases=RUNS // 2)
    record = _kill_when(tmp_path, "rec", lambda record: len(_run_files(record)) >= 3)
    experiment_bytes = (record / "experiment.yaml").read_bytes()
    before = sorted(path.relative_to(record) for path in record.rglob("*"))

    (tmp_path / "dur_task.py").write_text(SYNC_TASK + "\n# changed\n")
    process = _start(tmp_path, "--resume", "rec")
    _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 1
    assert "dur_task.py changed" in " ".join(err.split())
    assert "--force" in err
    assert sorted(path.relative_to(record) for path in record.rglob("*")) == before

    process = _start(tmp_path, "--resume", "rec", "--force")
    _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    assert (record / "experiment.yaml").read_bytes() == experiment_bytes
    result = replay_experiment(record)
    assert result.missing_runs == () and len(result.runs) == RUNS
    assert result.summary is not None and result.summary.resumed is not None
    assert result.summary.resumed.forced
    assert result.summary.resumed.changed == ("dur_task.py",)

    # A complete experiment has nothing to resume: it says so, writes nothing, exits 0.
    files = {path: path.read_bytes() for path in record.rglob("*") if path.is_file()}
    process = _start(tmp_path, "--resume", "rec", "--force")
    out, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    assert "Nothing to resume" in out and f"all {RUNS} planned runs" in " ".join(out.split())
    assert {path: path.read_bytes() for path in record.rglob("*") if path.is_file()} == files
    latest = load_experiment_summary(record)
    assert latest is not None and latest.resumed is not None and latest.resumed.forced


def test_resume_refuses_a_directory_without_an_experiment(tmp_path: Path) -> None:
    _write_benchmark(tmp_path, task=SYNC_TASK, cases=2)
    (tmp_path / "empty").mkdir()
    process = _start(tmp_path, "--resume", "empty")
    _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 1
    assert "experiment.yaml" in err


ASYNC_TASK = """\
import asyncio

async def run(ctx, case):
    with ctx.span("wait", kind="tool"):
        await asyncio.sleep(0.01 if case.input["n"] < 4 else 600)
    return {"n": case.input["n"]}
"""


def test_sigint_cancels_async_runs_and_records_them(tmp_path: Path) -> None:
    _write_benchmark(tmp_path, task=ASYNC_TASK, cases=12, variants=1)
    record = tmp_path / "rec"
    process = _start(tmp_path, "--record", "rec", "--concurrency", "3")
    _wait_for(lambda: len(_run_files(record)) >= 4, process)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 130, err
    _check_every_file_parses(record)
    result = replay_experiment(record)
    summary = result.summary
    assert summary is not None and not summary.complete
    assert summary.runs == len(result.runs)
    cancelled = [run for run in result.runs if run.errors and run.errors[0].stage == "cancelled"]
    assert len(cancelled) == 3
    for run in cancelled:
        assert run.status.value == "errored"
        assert run.trace is not None
        assert {span.operation for span in run.trace.spans} >= {"wait"}
    assert len(result.missing_runs) == 12 - len(result.runs) > 0

    report = subprocess.run(
        [AUTOBENCH, "report", "rec"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert report.returncode == 0, report.stderr
    assert result.missing_runs[0] in report.stdout.replace("\n", "")


SLOW_SYNC_TASK = """\
import time

def run(ctx, case):
    time.sleep(0.01 if case.input["n"] < 3 else 1.0)
    return {"n": case.input["n"]}
"""


def test_sigint_lets_active_sync_runs_end(tmp_path: Path) -> None:
    _write_benchmark(tmp_path, task=SLOW_SYNC_TASK, cases=10, variants=1)
    record = tmp_path / "rec"
    process = _start(tmp_path, "--record", "rec")
    _wait_for(lambda: len(_run_files(record)) >= 3, process)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 130, err
    result = replay_experiment(record)
    # The run active at the signal (1 s, within the grace) ended and was recorded.
    assert len(result.runs) >= 4
    assert all(run.status.value == "passed" for run in result.runs)
    assert result.summary is not None and not result.summary.complete
    assert result.summary.runs == len(result.runs)

    process = _start(tmp_path, "--resume", "rec")
    _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    assert replay_experiment(record).missing_runs == ()


def test_sigkill_spares_no_temporary_file_under_a_final_name(tmp_path: Path) -> None:
    """Kill repeatedly right as run files appear; names without a leading dot always parse."""
    _write_benchmark(tmp_path, task=SYNC_TASK, cases=RUNS // 2)
    for attempt, threshold in enumerate((1, 2, 8, 20)):
        record = _kill_when(
            tmp_path, f"rec{attempt}", lambda record, t=threshold: len(_run_files(record)) >= t
        )
        _check_every_file_parses(record)
        assert os.path.exists(record / "experiment.yaml")


def test_resume_never_reuses_artifact_names_of_a_killed_attempt(tmp_path: Path) -> None:
    """A run killed after its artifacts were written but before its run.yaml: the resumed
    run stores its artifacts under new names, the orphans stay untouched."""
    _write_benchmark(tmp_path, task=SYNC_TASK, cases=3)
    process = _start(tmp_path, "--record", "rec")
    _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    record = tmp_path / "rec"
    result = replay_experiment(record)
    victim = result.runs[2]
    victim_file = record / result.experiment.plan[2].path
    victim_file.unlink()
    (record / "summary.yaml").unlink()
    orphans = {path: path.read_bytes() for path in (record / "artifacts").rglob("*.txt")}

    process = _start(tmp_path, "--resume", "rec")
    _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    resumed = replay_experiment(record)
    assert resumed.missing_runs == () and len(resumed.runs) == 6
    rerun = resumed.runs[2]
    assert rerun.run_id == victim.run_id
    (artifact,) = rerun.artifacts
    assert artifact.path is not None and "/attempt-2/" in artifact.path
    assert (record / artifact.path).read_text().startswith("text ")
    assert all(path.read_bytes() == data for path, data in orphans.items())
    summary = resumed.summary
    assert summary is not None and summary.complete and summary.resumed is not None
    assert summary.resumed.runs == 1
    assert (record / "summary.yaml").exists()  # the first free summary name
