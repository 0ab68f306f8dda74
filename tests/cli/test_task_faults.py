"""Task faults keep the evidence and the command's word true: real ``autobench run`` of a spec
and task module written to tmp_path, judged by the record directory, the output and the
exit code.

* a task mutating ``case.input`` changes neither another run nor the recorded case;
* ``KeyboardInterrupt`` raised by a task ends the command as Ctrl-C does (exit 130, the
  run recorded, summary ``complete: false``, a message that counts what is on disk);
  ``SystemExit`` is the run's error, not the end of the command;
* an async task blocking the event loop past its timeout is recorded as timed out, with
  a ``timeout.overrun`` diagnostic and a warning naming the run;
* a non-daemon thread a task leaves running does not keep ``autobench`` alive.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.cli import cli
from autobench.records import RunRecord, load_experiment_summary, replay_experiment

ORIGINAL = {"items": [1, 2], "nested": {"key": "value", "deep": [{"n": 0}]}}

TASKS = """
import asyncio, sys, threading, time

def _mutate(ctx, case):
    seen = {"items": list(case.input["items"]), "key": case.input["nested"]["key"]}
    case.input["items"].append(ctx.factor("f"))
    case.input["nested"]["key"] = "changed"
    case.input["nested"]["deep"][0]["n"] += 1
    case.input["added"] = True
    case.metadata["touched"] = True
    return seen

def mutate(ctx, case):
    return _mutate(ctx, case)

async def amutate(ctx, case):
    await asyncio.sleep(0)
    return _mutate(ctx, case)

def interrupt(ctx, case):
    if case.id == "b" and ctx.factor("f") == 1:
        raise KeyboardInterrupt
    return {"ok": True}

async def ainterrupt(ctx, case):
    await asyncio.sleep(0)
    return interrupt(ctx, case)

def exits(ctx, case):
    if case.id == "b":
        sys.exit(3)
    return {"ok": True}

async def aexits(ctx, case):
    await asyncio.sleep(0)
    return exits(ctx, case)

async def blocks(ctx, case):
    if case.id == "blocking":
        time.sleep(1)  # holds the event loop: the timeout cannot cancel it
    else:
        await asyncio.sleep(0.01)
    return {"done": True}

_FOREVER = threading.Event()

def leaves_thread(ctx, case):
    # daemon=False: a sync task runs in a daemon worker thread, whose threads inherit that
    threading.Thread(target=_FOREVER.wait, name="leftover-poller", daemon=False).start()
    return {"ok": True}

async def aleaves_thread(ctx, case):
    return leaves_thread(ctx, case)
"""


def _write(
    tmp_path: Path, task: str, cases: list[str], *, run: str = "", benchmark: str = ""
) -> Path:
    (tmp_path / "fault_tasks.py").write_text(TASKS)
    listed = "".join(
        f"      - {{id: {case}, input: {{items: [1, 2], nested: {{key: value, deep: [{{n: 0}}]}}}}}}\n"
        for case in cases
    )
    spec = tmp_path / "autobench.yaml"
    spec.write_text(
        "benchmark:\n"
        "  faults:\n"
        "    cases:\n"
        f"{listed}"
        f'    run: {{python: "fault_tasks:{task}"{run}}}\n'
        "    variants: {v1: {factors: {f: 1}}, v2: {factors: {f: 2}}}\n"
        f"{benchmark}"
    )
    return spec


def _run(tmp_path: Path, *args: str) -> tuple[int, str]:
    runner = CliRunner(env={"COLUMNS": "250"})
    result = runner.invoke(
        cli,
        ["run", str(tmp_path / "autobench.yaml"), "--record", str(tmp_path / "rec"), *args],
    )
    return result.exit_code, " ".join(result.output.split())


def _runs(tmp_path: Path) -> dict[str, RunRecord]:
    return {run.run_id: run for run in replay_experiment(tmp_path / "rec").runs}


@pytest.mark.parametrize("task", ["mutate", "amutate"])
@pytest.mark.parametrize("concurrency", ["1", "2"])
def test_a_task_mutating_its_case_changes_no_other_run_and_not_the_record(
    tmp_path: Path, task: str, concurrency: str
) -> None:
    _write(tmp_path, task, ["a", "b"], benchmark="    repeat: 2\n")
    code, output = _run(tmp_path, "--concurrency", concurrency, "--no-progress")
    assert code == 0, output
    runs = _runs(tmp_path)
    assert len(runs) == 8  # 2 cases x 2 variants x 2 repeats, all of one planned case each
    for run in runs.values():
        assert run.status.value == "passed", run.errors
        # every run (other variant, other repeat, same case object in the plan) saw the
        # input as planned, and its record keeps the planned case
        assert run.output == {"items": [1, 2], "key": "value"}
        assert run.case.input == ORIGINAL
        assert run.case.metadata == {}


@pytest.mark.parametrize("task", ["interrupt", "ainterrupt"])
@pytest.mark.parametrize("concurrency", ["1", "2"])
def test_keyboard_interrupt_from_a_task_ends_like_ctrl_c_and_says_what_is_recorded(
    tmp_path: Path, task: str, concurrency: str
) -> None:
    _write(tmp_path, task, ["a", "b", "c", "d"])
    code, output = _run(tmp_path, "--concurrency", concurrency, "--no-progress")
    assert code == 130, output
    assert "Interrupted: the task of run run_0002_b_v1 raised KeyboardInterrupt" in output
    runs = _runs(tmp_path)
    interrupted = runs["run_0002_b_v1"]
    assert interrupted.status.value == "errored"
    assert (interrupted.errors[0].stage, interrupted.errors[0].type) == (
        "interrupted",
        "KeyboardInterrupt",
    )
    assert not interrupted.scores
    assert runs["run_0000_a_v1"].status.value == "passed"
    if concurrency == "1":  # with 2, the other worker may have taken a run meanwhile
        assert sorted(runs) == ["run_0000_a_v1", "run_0001_a_v2", "run_0002_b_v1"]
    summary = load_experiment_summary(tmp_path / "rec")
    assert summary.complete is False
    assert summary.runs == len(runs)
    # the message counts what is on disk, not what might be
    said = re.search(r"(\d+) runs? of this session are recorded in (\S+) \(([^)]*)\)", output)
    assert said is not None, output
    assert int(said.group(1)) == len(list((tmp_path / "rec").glob("cases/*/*/run.yaml")))
    assert said.group(3) == "its summary marks the experiment incomplete"
    assert "autobench replay" in output and "--resume" in output


@pytest.mark.parametrize("task", ["exits", "aexits"])
def test_system_exit_from_a_task_is_that_runs_error_not_the_end_of_the_command(
    tmp_path: Path, task: str
) -> None:
    _write(tmp_path, task, ["a", "b", "c"])
    code, output = _run(tmp_path, "--concurrency", "2", "--no-progress")
    assert code == 0, output
    runs = _runs(tmp_path)
    assert len(runs) == 6
    for run in runs.values():
        if run.case.id == "b":
            assert run.status.value == "errored"
            assert (run.errors[0].stage, run.errors[0].type, run.errors[0].message) == (
                "task",
                "SystemExit",
                "3",
            )
        else:
            assert run.status.value == "passed", run.errors
    assert load_experiment_summary(tmp_path / "rec").complete is True


def test_an_async_task_blocking_the_loop_past_its_timeout_is_timed_out_and_reported(
    tmp_path: Path,
) -> None:
    _write(tmp_path, "blocks", ["blocking", "polite"], run=", timeout: 0.2")
    code, output = _run(tmp_path, "--no-progress")
    assert code == 0, output
    runs = _runs(tmp_path)
    for variant in ("v1", "v2"):
        blocked = next(
            run for run in runs.values() if run.case.id == "blocking" and run.variant.id == variant
        )
        assert blocked.status.value == "errored"
        assert blocked.output is None  # what came after the deadline is not the run's output
        assert (blocked.errors[0].stage, blocked.errors[0].type) == ("timeout", "TimeoutError")
        (overrun,) = [obs for obs in blocked.observations if obs.name == "timeout.overrun"]
        assert overrun.unit == "s" and overrun.role.value == "diagnostic"
        assert overrun.value > 0.1  # slept 1 s against a 0.2 s deadline: at least 0.8 s late
        assert f"Warning: run {blocked.run_id}: the call ended" in output
    for run in runs.values():
        if run.case.id == "polite":
            assert run.status.value == "passed", run.errors
            assert not [obs for obs in run.observations if obs.name == "timeout.overrun"]


@pytest.mark.parametrize("task", ["leaves_thread", "aleaves_thread"])
def test_a_thread_a_task_leaves_running_does_not_keep_autobench_alive(
    tmp_path: Path, task: str
) -> None:
    _write(tmp_path, task, ["a"])
    command = [str(Path(sys.executable).parent / "autobench"), "run", "autobench.yaml"]
    # The timeout is a safety net for the suite: the thread waits for ever.
    done = subprocess.run(
        [*command, "--record", "rec", "--no-progress"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    warning = " ".join(done.stderr.split())
    assert "'leftover-poller'" in warning and "Exiting without waiting" in warning
    assert "its records are complete" in warning
    summary = load_experiment_summary(tmp_path / "rec")
    assert summary.complete is True and summary.runs == 2
    assert all(run.status.value == "passed" for run in _runs(tmp_path).values())
