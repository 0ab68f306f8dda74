"""The ``ray`` executor on the session's local Ray: the same records as a local run,
``--resume`` across executors, a killed worker, Ctrl-C, a replay that never imports Ray
and cassettes recorded and replayed on the workers."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from autobench.cli import cli
from autobench.records import replay_experiment

AUTOBENCH = str(Path(sys.executable).parent / "autobench")

VOLATILE_KEYS = frozenset(
    {
        "id",
        "experiment",
        "started_at",
        "finished_at",
        "duration",
        "offset",
        "span",
        "parent",
        "trace",
        "environment",
        "llm.response.id",  # the offline model server's answers: new ids (and so a body
        "http.response.body.size",  # a byte longer or shorter) on every call, locally too
    }
)
"""Keys whose values are timings, ids or the machine: compared by presence and kind only."""


def files(root: Path) -> set[str]:
    """The files of a record directory, relative to it, but for its columnar index (derived
    data, partitioned by the experiment's id, which differs between two experiments)."""
    return {
        relative
        for path in root.rglob("*")
        if path.is_file() and not (relative := str(path.relative_to(root))).startswith("index/")
    }


def load(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text())


def normalised(value: Any, key: str | None = None) -> Any:
    """``value`` with volatile values replaced by their type name, and the numbers of
    timing observations (``time.*`` semantic types) too."""
    if key in VOLATILE_KEYS and not isinstance(value, dict | list):
        return type(value).__name__
    if isinstance(value, dict):
        timing = str(value.get("semantic_type", value.get("semantic", ""))).startswith("time.")
        return {
            name: (type(item).__name__ if timing and name == "value" else normalised(item, name))
            for name, item in value.items()
        }
    if isinstance(value, list):
        return [normalised(item, key) for item in value]
    return value


def assert_same_records(left: Path, right: Path) -> None:
    """The two directories hold the same files whose YAML is equal once normalised."""
    assert files(left) == files(right)
    indexed = [(root / "index" / "manifest.json").is_file() for root in (left, right)]
    assert indexed[0] == indexed[1], f"columnar index written: {indexed}"
    for name in sorted(files(left)):
        if name.endswith(".yaml"):
            assert normalised(load(left / name)) == normalised(load(right / name)), name


def _run(spec_dir: Path, *args: str) -> None:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        cli, ["run", str(spec_dir / "autobench.yaml"), "--no-progress", *args]
    )
    assert result.exit_code == 0, result.output + repr(result.exception)


@pytest.mark.parametrize("example", ["basic", "minimal", "llm_native"], indirect=True)
def test_ray_records_what_a_local_run_records(
    ray_address: str, example: Path, tmp_path: Path
) -> None:
    _run(example, "--executor", "ray", "--record", str(tmp_path / "ray"), "--concurrency", "4")
    _run(example, "--record", str(tmp_path / "local"))
    assert_same_records(tmp_path / "ray", tmp_path / "local")
    assert not list(example.glob("*.zip")), "the shipped package is built outside the spec"
    if example.name == "llm_native":  # native instrumentors ran on the workers too
        spans = replay_experiment(tmp_path / "ray").runs[0].trace.spans  # type: ignore[union-attr]
        assert {span.kind for span in spans} >= {"llm"}, [span.operation for span in spans]


def test_resume_of_a_local_record_finishes_on_ray(
    ray_address: str, example: Path, tmp_path: Path
) -> None:
    record, reference = tmp_path / "record", tmp_path / "reference"
    _run(example, "--record", str(reference))
    _run(example, "--record", str(record))
    removed = sorted(record.glob("cases/*/*/run.yaml"))[::3]
    for path in removed:  # as if the experiment had been interrupted before these runs
        path.unlink()
    (record / "summary.yaml").unlink()
    _run(example, "--resume", str(record), "--executor", "ray")
    assert {name for name in files(record) if name.endswith("run.yaml")} == {
        name for name in files(reference) if name.endswith("run.yaml")
    }
    result = replay_experiment(record)
    assert len(result.runs) == len(load(reference / "experiment.yaml")["plan"])
    assert not result.missing_runs
    assert result.summary.resumed is not None and result.summary.resumed.runs == len(removed)


DEAD_TRANSPORT = """

def _dead(request):
    raise RuntimeError("the network was used during a cassette replay")


def transport() -> httpx2.MockTransport:
    return httpx2.MockTransport(_dead)
"""
"""Appended to ``llm_native``'s offline API: any request that reaches it fails its run."""


def _forget_assistant() -> None:
    """Drop ``llm_native``'s modules: the next run imports them from the current copy."""
    for module in list(sys.modules):
        if module.startswith(("assistant_benchmark", "assistant_app")):
            del sys.modules[module]


@pytest.mark.parametrize("example", ["llm_native"], indirect=True)
def test_a_cassette_recorded_locally_replays_on_ray_workers(
    ray_address: str, example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The records sit beside the spec's directory and are named relative to the working
    # directory: the workers, whose working directory is the shipped spec, must still
    # find the cassettes.
    monkeypatch.chdir(tmp_path)
    _forget_assistant()
    _run(example, "--record", "rec", "--cassette", "record")
    # recorded on the workers too: each run's exchange in its cassette
    ray_args = ("--executor", "ray", "--ray-address", ray_address)
    _run(example, *ray_args, "--record", "rec-ray", "--cassette", "record")
    assert len(list((tmp_path / "rec-ray").rglob("cassette.json"))) == 6
    api = example / "assistant_app" / "offline_api.py"
    api.write_text(api.read_text() + DEAD_TRANSPORT)
    _forget_assistant()
    _run(example, *ray_args, "--record", "rep", "--cassette", "replay", "rec")
    _forget_assistant()
    recorded = {(run.case_id, run.variant_id): run for run in replay_experiment("rec").runs}
    replayed = {(run.case_id, run.variant_id): run for run in replay_experiment("rep").runs}
    assert recorded.keys() == replayed.keys() and len(recorded) == 6
    for key, live in recorded.items():
        again = replayed[key]
        assert not again.errors, (key, again.errors)
        assert again.status == live.status and again.output == live.output
        assert [(s.name, s.value) for s in again.scores] == [(s.name, s.value) for s in live.scores]
        assert [o.value for o in again.observations if o.name == "cassette.replayed"] == [1]
    source = replay_experiment("rep").experiment.cassette
    assert source is not None and source.mode == "replay" and source.record_dir == "rec"


KILLER = """
import os, signal

def run(ctx, case):
    if case.id == "doomed":
        os.kill(os.getpid(), signal.SIGKILL)
    return {"value": case.input["x"]}
"""


@pytest.mark.parametrize("concurrency", ["1", "3"])
def test_a_killed_worker_gives_one_errored_run(
    ray_address: str, tmp_path: Path, concurrency: str
) -> None:
    # One remote call executes several runs in a row: the runs after the killed one in its
    # call are executed by another call, once.
    spec_dir = tmp_path / "spec"
    spec_dir.mkdir()
    (spec_dir / "killer.py").write_text(KILLER)
    cases = [f"{{id: c{index}, input: {{x: {index}}}}}" for index in range(6)]
    cases.insert(3, "{id: doomed, input: {x: 0}}")
    (spec_dir / "autobench.yaml").write_text(
        textwrap.dedent(
            f"""
            benchmark:
              faults:
                cases: [{", ".join(cases)}]
                run: {{python: killer:run}}
                variants: {{a: {{}}, b: {{}}}}
            """
        )
    )
    record = tmp_path / "record"
    _run(spec_dir, "--executor", "ray", "--record", str(record), "--concurrency", concurrency)
    result = replay_experiment(record)
    assert len(result.runs) == 14 and not result.missing_runs
    assert len({run.run_id for run in result.runs}) == 14
    by_case = {(run.case_id, run.variant_id): run for run in result.runs}
    for variant in ("a", "b"):
        doomed = by_case[("doomed", variant)]
        assert doomed.status.value == "errored"
        assert [error.stage for error in doomed.errors] == ["worker_lost"]
        assert "worker" in doomed.errors[0].message
    others = [run for run in result.runs if run.case_id != "doomed"]
    assert all(run.status.value == "passed" for run in others)
    assert len(list(record.glob("cases/*/*/run.yaml"))) == 14


def test_replaying_a_ray_record_never_imports_ray(
    ray_address: str, example: Path, tmp_path: Path
) -> None:
    _run(example, "--executor", "ray", "--record", str(tmp_path / "ray"))
    script = (
        "import sys\n"
        "from autobench.records import replay_experiment\n"
        "from autobench.report import build_report\n"
        f"result = replay_experiment({str(tmp_path / 'ray')!r})\n"
        "build_report(result)\n"
        "assert result.runs\n"
        "assert 'ray' not in sys.modules, 'replay imported ray'\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)


def test_sigint_cancels_remote_runs_and_keeps_finished_ones(
    ray_address: str, tmp_path: Path
) -> None:
    (tmp_path / "slow_task.py").write_text(
        "import time\ndef run(ctx, case):\n    time.sleep(0.3)\n    return {}\n"
    )
    cases = ", ".join(f"{{id: c{index}}}" for index in range(30))
    (tmp_path / "autobench.yaml").write_text(
        f"benchmark:\n  slow:\n    cases: [{cases}]\n    run: {{python: slow_task:run}}\n"
        "    variants: {v: {}}\n"
    )
    command = [AUTOBENCH, "run", "autobench.yaml", "--record", "rec", "--no-progress"]
    command += ["--executor", "ray", "--ray-address", ray_address, "--concurrency", "2"]
    process = subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120  # a safety net, not a measure
    while len(list(tmp_path.glob("rec/cases/*/*/run.yaml"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    result = replay_experiment(tmp_path / "rec")
    assert 3 <= len(result.runs) < 30
    assert len(result.runs) + len(result.missing_runs) == 30
    assert all(run.status.value == "passed" for run in result.runs)
    assert result.summary.complete is False


@pytest.mark.parametrize("target", ["run", "run_async"])
def test_a_task_raising_keyboard_interrupt_ends_a_ray_experiment_as_ctrl_c(
    ray_address: str, tmp_path: Path, target: str
) -> None:
    """Under Ray as locally: the run is recorded (errored, stage interrupted), no new run
    starts, the summary says incomplete, the command exits 130 and says what is on disk."""
    (tmp_path / "stopping_task.py").write_text(
        "def run(ctx, case):\n"
        "    if case.id == 'c2':\n"
        "        raise KeyboardInterrupt\n"
        "    return {}\n\n"
        "async def run_async(ctx, case):\n"
        "    return run(ctx, case)\n"
    )
    cases = ", ".join(f"{{id: c{index}}}" for index in range(1, 9))
    (tmp_path / "autobench.yaml").write_text(
        f"benchmark:\n  stopping:\n    cases: [{cases}]\n"
        f"    run: {{python: stopping_task:{target}}}\n    variants: {{v: {{}}}}\n"
    )
    command = [AUTOBENCH, "run", "autobench.yaml", "--record", "rec", "--no-progress"]
    command += ["--executor", "ray", "--ray-address", ray_address, "--concurrency", "1"]
    done = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 130, done.stderr
    message = " ".join(done.stderr.split())
    assert "raised KeyboardInterrupt" in message and "Traceback" not in done.stderr
    assert "2 runs of this session are recorded in rec" in message
    result = replay_experiment(tmp_path / "rec")
    by_case = {run.case_id: run for run in result.runs}
    assert sorted(by_case) == ["c1", "c2"]
    assert by_case["c1"].status.value == "passed"
    assert [error.stage for error in by_case["c2"].errors] == ["interrupted"]
    assert result.summary is not None and result.summary.complete is False
    assert len(result.missing_runs) == 6


LIMITED = """
import asyncio, time

def run(ctx, case):
    start = time.time()
    time.sleep(case.input["sleep"])
    return {"start": start, "end": time.time()}

async def run_async(ctx, case):
    start = time.time()
    await asyncio.sleep(case.input["sleep"])
    return {"start": start, "end": time.time()}
"""


@pytest.mark.parametrize("target", ["run", "run_async"])
def test_limits_hold_across_every_worker(ray_address: str, tmp_path: Path, target: str) -> None:
    # 12 runs at concurrency 8 (8 worker processes) share one budget of 600 requests per
    # minute (one start per 0.1 s) and 2 in flight: the short runs meet the rate, the long
    # ones the concurrency.
    spec_dir = tmp_path / "spec"
    spec_dir.mkdir()
    (spec_dir / "limited.py").write_text(LIMITED)
    cases = [
        f"{{id: c{index}, input: {{sleep: {0.3 if index % 2 else 0.02}}}}}" for index in range(6)
    ]
    (spec_dir / "autobench.yaml").write_text(
        textwrap.dedent(
            f"""
            benchmark:
              limited:
                cases: [{", ".join(cases)}]
                run: {{python: "limited:{target}"}}
                variants: {{a: {{factors: {{mode: m}}}}, b: {{factors: {{mode: m}}}}}}
                limits: {{mode: {{requests_per_minute: 600, max_concurrency: 2}}}}
            """
        )
    )
    record = tmp_path / "record"
    _run(spec_dir, "--executor", "ray", "--record", str(record), "--concurrency", "8")
    result = replay_experiment(record)
    assert len(result.runs) == 12 and all(run.status.value == "passed" for run in result.runs)
    spans = sorted((run.output["start"], run.output["end"]) for run in result.runs)
    starts = [start for start, _ in spans]
    # The budget grants a start every 0.1 s; each task reads its clock some time after its
    # grant, which a loaded machine can stretch for one task and not the next. So readings
    # are compared five apart: six readings in one 0.1 s window would be six grants spanning
    # at least 0.5 s, read together only if the budget let them through together (or one
    # task's clock reading lagged its grant by 0.4 s).
    assert all(later - earlier > 0.1 for earlier, later in zip(starts, starts[5:], strict=False))
    in_flight = max(sum(1 for start, end in spans if start <= moment < end) for moment in starts)
    assert in_flight <= 2
    queues = [
        [o.value for o in run.observations if o.semantic_type == "time.queue"]
        for run in result.runs
    ]
    assert all(len(queue) == 1 and queue[0] >= 0 for queue in queues)
    # Some run waited for the budget. (How long depends on when each worker process came up,
    # which a loaded machine spreads out: only that the wait was recorded is asserted.)
    assert sum(queue[0] for queue in queues) > 0


FLAKY_KILLER = """
import os, signal
from pathlib import Path

MARKS = Path({marks!r})

def run(ctx, case):
    mark = MARKS / f"{{case.id}}-{{ctx.variant.id}}"
    if case.id == "doomed" or (case.id == "flaky" and not mark.exists()):
        mark.touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return {{"value": case.input["x"]}}
"""


@pytest.mark.parametrize(
    ("on", "retried"), [("", True), (", on: [RuntimeError]", True), (", on: [ValueError]", False)]
)
def test_a_lost_worker_is_retried_per_the_retry_policy(
    ray_address: str, tmp_path: Path, on: str, retried: bool
) -> None:
    spec_dir, marks = tmp_path / "spec", tmp_path / "marks"
    spec_dir.mkdir()
    marks.mkdir()
    (spec_dir / "killer.py").write_text(FLAKY_KILLER.format(marks=str(marks)))
    cases = [f"{{id: c{index}, input: {{x: {index}}}}}" for index in range(4)]
    cases[1:1] = ["{id: flaky, input: {x: 0}}", "{id: doomed, input: {x: 0}}"]
    (spec_dir / "autobench.yaml").write_text(
        textwrap.dedent(
            f"""
            benchmark:
              faults:
                cases: [{", ".join(cases)}]
                run: {{python: killer:run, retries: {{attempts: 2, backoff: fixed, initial: 0{on}}}}}
                variants: {{a: {{}}}}
            """
        )
    )
    record = tmp_path / "record"
    _run(spec_dir, "--executor", "ray", "--record", str(record), "--concurrency", "2")
    result = replay_experiment(record)
    assert len(result.runs) == 6 and not result.missing_runs
    by_case = {run.case_id: run for run in result.runs}
    flaky, doomed = by_case["flaky"], by_case["doomed"]
    assert all(run.status.value == "passed" for run in result.runs if run.case_id.startswith("c"))
    if not retried:
        for run in (flaky, doomed):
            assert run.status.value == "errored" and not run.attempts
            assert [error.stage for error in run.errors] == ["worker_lost"]
        return
    assert flaky.status.value == "passed"
    assert [attempt.number for attempt in flaky.attempts] == [1, 2]
    first, second = flaky.attempts
    assert first.error is not None and first.error.stage == "worker_lost"
    assert first.error.type == "autobench.ray.WorkerLostError"
    assert second.error is None
    assert doomed.status.value == "errored"
    assert [error.stage for error in doomed.errors] == ["worker_lost"]
    assert [attempt.number for attempt in doomed.attempts] == [1, 2]
    assert all(a.error is not None and a.error.stage == "worker_lost" for a in doomed.attempts)


BACKED_OFF_KILLER = """
import os, signal, time
from pathlib import Path

MARK = Path({mark!r})

def run(ctx, case):
    if case.id == "flaky" and not MARK.exists():
        MARK.touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return {{"start": time.time()}}
"""


def test_a_lost_worker_is_retried_after_the_policy_backoff(
    ray_address: str, tmp_path: Path
) -> None:
    # Without the backoff the retry starts as soon as a worker is free: about 2 s after the
    # kill on this machine's local Ray, when it waits for the killed actor's restart.
    spec_dir, mark = tmp_path / "spec", tmp_path / "killed"
    spec_dir.mkdir()
    (spec_dir / "killer.py").write_text(BACKED_OFF_KILLER.format(mark=str(mark)))
    (spec_dir / "autobench.yaml").write_text(
        textwrap.dedent(
            """
            benchmark:
              faults:
                cases: [{id: flaky}, {id: steady}]
                run: {python: killer:run, retries: {attempts: 2, backoff: fixed, initial: 5}}
                variants: {a: {}}
            """
        )
    )
    record = tmp_path / "record"
    _run(spec_dir, "--executor", "ray", "--record", str(record), "--concurrency", "3")
    flaky = next(run for run in replay_experiment(record).runs if run.case_id == "flaky")
    assert flaky.status.value == "passed"
    assert [attempt.number for attempt in flaky.attempts] == [1, 2]
    assert flaky.output["start"] - mark.stat().st_mtime >= 5.0


def test_slots_of_a_lost_worker_are_given_back(ray_address: str, tmp_path: Path) -> None:
    # One slot for every run: the killed workers held it, and the runs after them (the
    # retries of flaky and doomed among them) still get it.
    spec_dir, marks = tmp_path / "spec", tmp_path / "marks"
    spec_dir.mkdir()
    marks.mkdir()
    (spec_dir / "killer.py").write_text(FLAKY_KILLER.format(marks=str(marks)))
    cases = [f"{{id: c{index}, input: {{x: {index}}}}}" for index in range(4)]
    cases[1:1] = ["{id: flaky, input: {x: 0}}", "{id: doomed, input: {x: 0}}"]
    (spec_dir / "autobench.yaml").write_text(
        textwrap.dedent(
            f"""
            benchmark:
              faults:
                cases: [{", ".join(cases)}]
                run: {{python: killer:run, retries: {{attempts: 2, backoff: fixed, initial: 0}}}}
                variants: {{a: {{factors: {{mode: m}}}}}}
                limits: {{mode: {{max_concurrency: 1}}}}
            """
        )
    )
    record = tmp_path / "record"
    _run(spec_dir, "--executor", "ray", "--record", str(record), "--concurrency", "2")
    result = replay_experiment(record)
    assert len(result.runs) == 6 and not result.missing_runs
    by_case = {run.case_id: run for run in result.runs}
    assert by_case["doomed"].status.value == "errored" and len(by_case["doomed"].attempts) == 2
    assert by_case["flaky"].status.value == "passed" and len(by_case["flaky"].attempts) == 2
    assert all(by_case[f"c{index}"].status.value == "passed" for index in range(4))
