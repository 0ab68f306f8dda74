"""The index written as runs land: ``autobench run`` (real YAML benchmark, real record
directory) leaves a fresh index that reads back as the YAML does, resumed sessions end with
one covering every run, ``--no-index`` leaves none, a failure to write it is a warning, and
a killed session's index is never read."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from index_support import SCORING, TASK, case

from autobench import run_benchmark_spec
from autobench.cli import cli
from autobench.core.spec import BenchmarkSpec
from autobench.index import index_root, index_status, load_index
from autobench.records import RecordDirectoryWriter, replay_experiment
from autobench.report import build_report

AUTOBENCH = str(Path(sys.executable).parent / "autobench")
WIDE = {"COLUMNS": "200", "NO_COLOR": "1"}

# The index tests' task, and ways for a case to stop the session it runs in.
LIVE_TASK = textwrap.dedent(TASK).replace(
    "def run(ctx, case):", "def _run(ctx, case):"
) + textwrap.dedent(
    """
        import os, time

        def run(ctx, case):
            action = case.input.get("action")
            if action == "interrupt" and not os.environ.get("LIVE_RESUMING"):
                raise KeyboardInterrupt
            if action == "lock":  # the index's staging directory, read-only and not empty
                staging = os.path.join(os.environ["RECORD_DIR"], f".index.live-{os.getpid()}")
                os.makedirs(os.path.join(staging, "held"), exist_ok=True)
                os.chmod(staging, 0o555)
            if str(case.input["n"]) in os.environ.get("LIVE_SLOW", "").split(","):
                time.sleep(30)
            return _run(ctx, case)
        """
)


def write_benchmark(
    directory: Path, cases: list[dict[str, Any]], *, task: str = LIVE_TASK, function: str = "run"
) -> Path:
    """``autobench.yaml`` of ``cases`` x two variants with the task module ``task`` (its
    function ``function``) beside it; returns the spec's path."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "live_task.py").write_text(task)
    spec = {
        "benchmark": {"id": "live"},
        "dataset": {"cases": cases},
        "variants": [{"id": "a", "factors": {"mode": "a"}}, {"id": "b", "factors": {"mode": "b"}}],
        "scoring": SCORING,
        "task": {"target": f"live_task:{function}"},
    }
    path = directory / "autobench.yaml"
    path.write_text(json.dumps(spec))  # JSON is YAML
    return path


def run_cli(
    directory: Path, *args: str, new_session: bool = False, **env: str
) -> subprocess.CompletedProcess[str]:
    """``autobench run autobench.yaml ARGS`` in ``directory`` (``new_session``: in a
    process group of its own, as a terminal gives it)."""
    return subprocess.run(
        [AUTOBENCH, "run", "autobench.yaml", "--no-progress", *args],
        cwd=directory,
        env={**os.environ, **WIDE, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        start_new_session=new_session,
    )


def report_text(record_dir: Path) -> str:
    result = CliRunner(env=WIDE).invoke(cli, ["report", str(record_dir)])
    assert result.exit_code == 0, result.output
    return result.stdout


def assert_fresh_and_same_as_yaml(record_dir: Path) -> None:
    status = index_status(record_dir)
    assert status.fresh and status.reportable, status
    indexed = load_index(record_dir)
    assert indexed is not None
    replayed = replay_experiment(record_dir, evidence_only=True)
    assert indexed.experiment == replayed.experiment
    assert indexed.runs == replayed.runs
    assert indexed.summary == replayed.summary
    assert build_report(indexed) == build_report(replayed)
    # The report read from the index is the report read from the YAML, to the character.
    from_index = report_text(record_dir)
    aside = record_dir.parent / f"{record_dir.name}-index-aside"
    index_root(record_dir).rename(aside)
    try:
        assert report_text(record_dir) == from_index
    finally:
        aside.rename(index_root(record_dir))


def tables(record_dir: Path) -> dict[str, Any]:
    manifest = json.loads((index_root(record_dir) / "manifest.json").read_text())
    where = index_root(record_dir) / manifest["partition"]
    return {name: pq.read_table(where / f"{name}.parquet") for name in ("runs", "spans")}


def no_leftovers(record_dir: Path) -> bool:
    return not [p for p in record_dir.iterdir() if p.name.startswith(".index.")]


CASES = [case(n, llm=n % 2 == 0, boom=n == 5) for n in range(1, 9)]


def test_a_live_run_leaves_a_fresh_index_that_reads_as_the_yaml(tmp_path: Path) -> None:
    write_benchmark(tmp_path, CASES)
    done = run_cli(tmp_path, "--record", "rec", "--concurrency", "4")
    assert done.returncode == 0, done.stderr
    record_dir = tmp_path / "rec"
    assert_fresh_and_same_as_yaml(record_dir)
    assert no_leftovers(record_dir)
    # Every row is tied to the bytes of its run file as they are on disk.
    runs = tables(record_dir)["runs"].to_pylist()
    assert len(runs) == len(CASES) * 2
    for row in runs:
        data = (record_dir / row["path"]).read_bytes()
        assert row["file_sha256"] == hashlib.sha256(data).hexdigest()
    spans = tables(record_dir)["spans"]
    replayed = replay_experiment(record_dir)
    assert spans.num_rows == sum(len(run.trace.spans) for run in replayed.runs if run.trace)
    assert "hint:" not in done.stderr and "Warning" not in done.stderr


def test_no_index_and_the_environment_switch_leave_no_index(tmp_path: Path) -> None:
    write_benchmark(tmp_path, CASES[:2])
    flag = run_cli(tmp_path, "--record", "flag", "--no-index")
    env = run_cli(tmp_path, "--record", "env", AUTOBENCH_NO_INDEX="1")
    for done, name in ((flag, "flag"), (env, "env")):
        assert done.returncode == 0, done.stderr
        assert not index_root(tmp_path / name).exists() and no_leftovers(tmp_path / name)
        assert len(replay_experiment(tmp_path / name).runs) == 4
    assert "no columnar index" not in report_text(tmp_path / "flag")  # small: no hint


def test_a_resumed_experiment_ends_with_a_fresh_index_of_every_run(tmp_path: Path) -> None:
    # The task of case 4 interrupts the first session (as Ctrl-C would): its summary says
    # complete: false and the index covers the runs recorded; --resume adds the rest.
    cases = [case(n, **({"action": "interrupt"} if n == 4 else {})) for n in range(1, 9)]
    write_benchmark(tmp_path, cases)
    first = run_cli(tmp_path, "--record", "rec")
    assert first.returncode == 130, first.stderr
    record_dir = tmp_path / "rec"
    partial = replay_experiment(record_dir, evidence_only=True)
    assert 0 < len(partial.runs) < 16 and partial.summary and not partial.summary.complete
    assert_fresh_and_same_as_yaml(record_dir)
    earlier = {run.run_id for run in partial.runs}
    resumed = run_cli(tmp_path, "--resume", "rec", LIVE_RESUMING="1")
    assert resumed.returncode == 0, resumed.stderr
    assert_fresh_and_same_as_yaml(record_dir)
    indexed = load_index(record_dir)
    assert indexed is not None and len(indexed.runs) == 16 and no_leftovers(record_dir)
    # The earlier runs' rows were taken from the first session's index, after the rows of
    # the runs this session added (a build from the YAML would hold plan order).
    order = tables(record_dir)["runs"].column("run_id").to_pylist()
    assert set(order[: 16 - len(earlier)]).isdisjoint(earlier)
    assert set(order[16 - len(earlier) :]) == earlier


PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2


def _without_permission_override() -> None:
    """As root: drop the capabilities that bypass file permissions before exec."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@pytest.mark.skipif(sys.platform != "linux", reason="Linux permissions and capabilities")
def test_an_index_that_cannot_be_written_is_a_warning_and_the_record_is_complete(
    tmp_path: Path,
) -> None:
    # The first case's task makes the index's staging directory read-only before any run
    # is durable: no table can be written there.
    write_benchmark(tmp_path, [case(n, **({"action": "lock"} if n == 1 else {})) for n in (1, 2)])
    done = subprocess.run(
        [AUTOBENCH, "run", "autobench.yaml", "--record", "rec", "--no-progress"],
        cwd=tmp_path,
        env={**os.environ, **WIDE, "RECORD_DIR": "rec"},
        preexec_fn=_without_permission_override if os.geteuid() == 0 else None,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    record_dir = tmp_path / "rec"
    assert done.returncode == 0, done.stderr
    assert "columnar index of rec was not written" in done.stderr
    assert "Permission denied" in done.stderr and "autobench index rec" in done.stderr
    assert done.stderr.count("Warning") == 1, done.stderr
    assert not index_root(record_dir).exists()
    result = replay_experiment(record_dir)
    assert len(result.runs) == 4 and result.summary is not None and result.summary.complete
    assert "Recording failed" not in done.stderr


SESSION = textwrap.dedent(
    """
    import asyncio, sys

    from autobench import load_benchmark_spec, run_benchmark_spec
    from autobench.records import RecordDirectoryWriter

    record = sys.argv[1]

    def progress(event):
        if event.kind.value == "run_finished":
            print(f"FINISHED {event.run_id}", flush=True)

    asyncio.run(
        run_benchmark_spec(
            load_benchmark_spec("autobench.yaml"),
            concurrency_limit=4,
            sink=RecordDirectoryWriter(record),
            progress=progress,
            resume_from=record if sys.argv[2] == "resume" else None,
        )
    )
    """
)


def killed_session(
    directory: Path, mode: str, after: int, slow: str, before_kill: Callable[[], Any] = list
) -> Any:
    """Run SESSION on ``directory/rec`` (``mode``: start or resume) with cases ``slow``
    sleeping, and SIGKILL it once ``after`` runs were reported finished; returns what
    ``before_kill()``, called just before the kill, returned."""
    (directory / "session.py").write_text(SESSION)
    process = subprocess.Popen(
        [sys.executable, "session.py", "rec", mode],
        cwd=directory,
        env={**os.environ, "LIVE_SLOW": slow},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    finished = 0
    try:
        for line in process.stdout:
            finished += line.startswith("FINISHED")
            if finished >= after:
                break
        seen = before_kill()
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        process.stdout.close()
    assert finished == after and process.returncode == -signal.SIGKILL
    return seen


def same_report_as_yaml(record_dir: Path) -> subprocess.CompletedProcess[str] | Any:
    """The report of ``record_dir`` (its stderr too), checked equal to the report of the
    YAML with the index moved away: whatever the index holds, it was not read."""
    result = CliRunner(env=WIDE).invoke(cli, ["report", str(record_dir)])
    assert result.exit_code == 0, result.output
    aside = record_dir.parent / "index-aside"
    index_root(record_dir).rename(aside)
    try:
        assert report_text(record_dir) == result.stdout
    finally:
        aside.rename(index_root(record_dir))
    return result


def test_after_sigkill_mid_run_no_index_or_a_stale_one_and_it_is_never_read(
    tmp_path: Path,
) -> None:
    write_benchmark(tmp_path, [case(n, action="slow" if n > 6 else None) for n in range(1, 9)])
    record_dir = tmp_path / "rec"
    # Killed while cases 7 and 8 sleep, after the twelve runs of cases 1 to 6 finished: the
    # index is written at the end only, so there is none.
    killed_session(tmp_path, "start", 12, slow="7,8")
    assert not index_root(record_dir).exists() and load_index(record_dir) is None
    # An index of those runs, then a resumed session killed once case 7's runs finished
    # (case 8 sleeps): the index it leaves is stale, never read, and a hint says so.
    assert CliRunner().invoke(cli, ["index", str(record_dir)]).exit_code == 0
    assert index_status(record_dir).fresh
    killed_session(tmp_path, "resume", 2, slow="8")
    status = index_status(record_dir)
    assert not status.fresh and "was added" in (status.reason or "")
    assert load_index(record_dir) is None
    result = same_report_as_yaml(record_dir)
    assert "columnar index" in result.stderr and "not used" in result.stderr
    assert len(replay_experiment(record_dir, evidence_only=True).runs) == 14
    done = run_cli(tmp_path, "--resume", "rec")
    assert done.returncode == 0, done.stderr
    assert_fresh_and_same_as_yaml(record_dir)
    assert len(replay_experiment(record_dir).runs) == 16 and no_leftovers(record_dir)


def test_a_later_index_removes_what_killed_writers_left(tmp_path: Path) -> None:
    write_benchmark(tmp_path, CASES[:2])
    assert run_cli(tmp_path, "--record", "rec", "--no-index").returncode == 0
    record_dir = tmp_path / "rec"
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    dead = record_dir / f".index.live-{int(gone.stdout)}"
    (dead / "benchmark=live").mkdir(parents=True)
    (dead / "benchmark=live" / "runs.parquet").write_bytes(b"PAR1 partial")
    mine = record_dir / f".index.live-{os.getpid()}"  # a writer still running keeps its own
    mine.mkdir()
    assert CliRunner().invoke(cli, ["index", str(record_dir)]).exit_code == 0
    assert not dead.exists() and mine.exists()
    assert_fresh_and_same_as_yaml(record_dir)


def test_a_large_record_without_an_index_gets_a_hint_and_the_same_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_benchmark(tmp_path, CASES[:2])
    assert run_cli(tmp_path, "--record", "rec", "--no-index").returncode == 0
    record_dir = tmp_path / "rec"
    quiet = CliRunner(env=WIDE).invoke(cli, ["report", str(record_dir)])
    assert quiet.exit_code == 0 and "hint" not in quiet.stderr  # 4 runs: below the threshold
    import autobench.cli._replayed as replayed

    monkeypatch.setattr(replayed, "HINT_RUNS", 4)
    hinted = CliRunner(env=WIDE).invoke(cli, ["report", str(record_dir)])
    assert hinted.exit_code == 0 and hinted.stdout == quiet.stdout
    assert f"autobench index {record_dir}" in hinted.stderr
    assert "no columnar index" in hinted.stderr and not index_root(record_dir).exists()


metric_values = st.one_of(
    st.integers(-(10**12), 10**12),
    st.floats(width=64),  # NaN and the infinities included
    st.booleans(),
    st.text(max_size=8),
    st.lists(st.integers(-5, 5), max_size=3),
)


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(values=st.lists(metric_values, min_size=1, max_size=4), concurrency=st.integers(1, 4))
@example(values=[float("nan"), 1], concurrency=2)
@example(values=[0.1, "x", [1, 2], True, -(10**12)], concurrency=4)
def test_the_live_index_of_generated_values_reads_as_replay_or_is_not_read(
    tmp_path_factory: pytest.TempPathFactory, values: list[Any], concurrency: int
) -> None:
    # In process, as run_experiment records: the listener comes from the installed plugin.
    work = tmp_path_factory.mktemp("live")
    module = f"live_values_{abs(hash((tuple(map(repr, values)), concurrency)))}"
    (work / f"{module}.py").write_text(textwrap.dedent(TASK))
    sys.path.insert(0, str(work))
    spec = BenchmarkSpec.model_validate(
        {
            "benchmark": {"id": "values"},
            "dataset": {"cases": [case(n, value=v) for n, v in enumerate(values, 1)]},
            "variants": [{"id": "a", "factors": {"mode": "a"}}],
            "scoring": SCORING,
            "task": {"target": f"{module}:run"},
        }
    ).model_copy(update={"base_dir": work})
    try:
        asyncio.run(
            run_benchmark_spec(
                spec, concurrency_limit=concurrency, sink=RecordDirectoryWriter(work / "rec")
            )
        )
    finally:
        sys.modules.pop(module, None)
        sys.path.remove(str(work))
    record_dir = work / "rec"
    status = index_status(record_dir)
    assert status.fresh
    replayed = replay_experiment(record_dir, evidence_only=True)
    indexed = load_index(record_dir)
    if status.reportable:
        assert indexed is not None and indexed.runs == replayed.runs
        assert build_report(indexed) == build_report(replayed)
    else:  # a value JSON does not give back (NaN, an infinity): reports read the YAML
        assert indexed is None and "JSON" in (status.reason or "")


def test_a_post_derived_experiment_ends_with_an_index_that_holds_what_replay_merges(
    tmp_path: Path,
) -> None:
    # post_derived.yaml adds observations to runs already indexed: the index is then built
    # from the YAML at the end, and it holds the merged observations as replay does.
    (tmp_path / "pd_task.py").write_text(
        "def run(ctx, case):\n"
        "    ctx.metric('size', len(case.id), semantic_type='workload.size')\n"
        "    return {'ok': True}\n"
    )
    (tmp_path / "autobench.yaml").write_text(
        textwrap.dedent(
            """\
            benchmark:
              pd:
                cases: [{id: c1}, {id: c22}, {id: c333}]
                run: {python: "pd_task:run"}
                variants: {a: {}, b: {}}
                score:
                  ok: {pass: output.ok}
                post_derive:
                  - kind: paired_baseline
                    baseline_variant: a
                    match_on: [{kind: case_id}]
                    metric: size
                    formula: candidate_over_baseline
                    output: {name: size_ratio, semantic_type: performance.speedup, unit: ratio}
            """
        )
    )
    done = run_cli(tmp_path, "--record", "rec")
    assert done.returncode == 0, done.stderr
    record_dir = tmp_path / "rec"
    assert (record_dir / "post_derived.yaml").is_file()
    assert_fresh_and_same_as_yaml(record_dir)
    indexed = load_index(record_dir)
    assert indexed is not None
    # one post-derived observation per candidate run (b), as post_derived.yaml holds them
    with_post = [r for r in indexed.runs if any(o.id.startswith("post.") for o in r.observations)]
    assert [r.run_id for r in with_post] == [r.run_id for r in indexed.runs if r.variant_id == "b"]


def test_a_resume_over_a_damaged_index_rebuilds_it_from_the_yaml(tmp_path: Path) -> None:
    cases = [case(n, **({"action": "interrupt"} if n == 3 else {})) for n in range(1, 6)]
    write_benchmark(tmp_path, cases)
    assert run_cli(tmp_path, "--record", "rec").returncode == 130
    record_dir = tmp_path / "rec"
    assert index_status(record_dir).fresh
    (index_root(record_dir) / "files.parquet").write_bytes(b"PAR1 not a table")
    assert not index_status(record_dir).fresh
    resumed = run_cli(tmp_path, "--resume", "rec", LIVE_RESUMING="1")
    assert resumed.returncode == 0, resumed.stderr
    assert "Warning" not in resumed.stderr
    assert_fresh_and_same_as_yaml(record_dir)
    # built whole from the YAML: the rows are in plan order
    order = tables(record_dir)["runs"].column("run_id").to_pylist()
    assert order == [run.run_id for run in replay_experiment(record_dir).runs]
