"""SIGKILL at random points of a concurrent 2,000-run experiment, 20 times, then ``--resume``.

An experiment (2,000 runs of an async task at concurrency 64; every tenth run stores an
artifact) is recorded by a chain of sessions: the first starts it, each later one resumes it,
and each is killed with SIGKILL after a random number of runs were reported finished (0 to 40,
drawn from a seeded generator). Runs stored but not yet reported when the kill lands are kept,
so on a loaded machine the chain may complete the experiment before the 20th kill: the next
kills then hit a new experiment, until 20 kills have landed. A session is a real
child process running ``run_benchmark_spec`` with the durable ``RecordDirectoryWriter`` and a
progress callback printing each ``run_finished`` event as it arrives, so the test knows exactly
which runs were reported finished when the kill landed.

After each kill: every run reported finished, in any session, has a ``run.yaml`` that loads;
every file under a final name is complete (the record replays; only hidden ``.tmp`` names are
partial). After the last kill of each experiment ``autobench run --resume`` completes the
rest: 2,000 runs, none missing, each recorded once. No timing assertion; generous timeouts only guard against a hang. The whole test
takes about 40 s on the 2-core development machine (21 process starts dominate).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from autobench.records import load_run_record, replay_experiment

AUTOBENCH = str(Path(sys.executable).parent / "autobench")
RUNS = 2000
KILLS = 20
TIMEOUT = 120.0

TASK = textwrap.dedent(
    """
    import asyncio


    async def run(ctx, case):
        n = case.input["n"]
        await asyncio.sleep((n * 7919 % 13) / 1000)  # 0 to 12 ms: completion order varies
        if n % 10 == 0:
            ctx.artifact("note", "note " * (5 + n % 7), media_type="text/plain")
        ctx.metric("n", n)
        return {"n": n}
    """
)

SESSION = textwrap.dedent(
    """
    import asyncio, sys

    from autobench import load_benchmark_spec, run_benchmark_spec
    from autobench.records import RecordDirectoryWriter

    record, resume = sys.argv[1], sys.argv[2] == "resume"


    def progress(event):
        if event.kind.value == "run_finished":
            print(f"FINISHED {event.run_id}", flush=True)


    spec = load_benchmark_spec("autobench.yaml")
    print("SESSION", flush=True)
    asyncio.run(
        run_benchmark_spec(
            spec,
            concurrency_limit=64,
            sink=RecordDirectoryWriter(record),
            progress=progress,
            resume_from=record if resume else None,
        )
    )
    print("DONE", flush=True)
    """
)


def _write_benchmark(root: Path) -> None:
    (root / "kill_task.py").write_text(TASK)
    (root / "session.py").write_text(SESSION)
    lines = ["benchmark:", "  killed:", "    cases:"]
    lines += [f"      - {{id: c{index:04d}, input: {{n: {index}}}}}" for index in range(RUNS)]
    lines += ["    run: {python: kill_task:run}", "    variants: {v: {}}"]
    (root / "autobench.yaml").write_text("\n".join(lines) + "\n")


def _env() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _session(root: Path, record: str, mode: str, reported: int) -> tuple[set[str], bool]:
    """Run one session; SIGKILL it once ``reported`` runs were reported finished (or when it
    opened the experiment, for 0). Return the run ids it reported finished and whether it
    was killed (``False``: it completed the experiment first)."""
    process = subprocess.Popen(
        [sys.executable, "session.py", record, mode],
        cwd=root,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    finished: set[str] = set()
    killed = False
    try:
        for line in process.stdout:
            if line.startswith("FINISHED "):
                finished.add(line.split()[1])
            if len(finished) >= reported and (finished or line.startswith("SESSION")):
                process.send_signal(signal.SIGKILL)
                killed = True
                break
        rest, _ = process.communicate(timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
    # Lines the session wrote before it died were reported too.
    finished |= {line.split()[1] for line in rest.splitlines() if line.startswith("FINISHED ")}
    if killed and process.returncode == 0:  # it ended just before the signal
        killed = False
    assert process.returncode == (-signal.SIGKILL if killed else 0)
    return finished, killed


def _check_record(record: Path, reported: set[str]) -> int:
    """Every reported run loads from its run.yaml; every file under a final name is whole.
    Returns the runs recorded."""
    for path in record.rglob("*"):
        if path.name.startswith(".") and path.is_file():
            assert path.name.endswith(".tmp"), path
    result = replay_experiment(record)  # loads every run.yaml and its artifacts' references
    recorded = {run.run_id for run in result.runs}
    assert reported <= recorded, sorted(reported - recorded)[:5]
    plan = {planned.id: planned.path for planned in result.experiment.plan}
    for run_id in reported:
        run = load_run_record(record / plan[run_id], root=record)
        assert run.output == {"n": int(run.case_id[1:])}
        for artifact in run.artifacts:
            assert artifact.path is not None
            assert (record / artifact.path).read_text().startswith("note ")
    assert len(result.runs) + len(result.missing_runs) == RUNS
    return len(result.runs)


def _complete(root: Path, record: str, reported: set[str]) -> None:
    """``autobench run --resume`` completes the experiment (nothing to do when the last
    session completed it): every planned run recorded once, the summary complete."""
    done = subprocess.run(
        [AUTOBENCH, "run", "autobench.yaml", "--resume", record, "--no-progress", "--runs", "none"],
        cwd=root,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert _check_record(root / record, reported) == RUNS
    result = replay_experiment(root / record)
    assert result.missing_runs == ()
    assert len({run.run_id for run in result.runs}) == RUNS
    summary = result.summary
    assert summary is not None and summary.complete and summary.runs == RUNS


def test_random_kills_lose_no_reported_run_and_resume_completes(tmp_path: Path) -> None:
    _write_benchmark(tmp_path)
    draw = random.Random(36)
    kills = experiments = 0
    while kills < KILLS:
        # Runs stored but not yet reported are kept too, so an experiment may be completed
        # before the 20th kill (on a loaded machine): the next kills hit a new one.
        record = f"rec{experiments}"
        experiments += 1
        reported: set[str] = set()
        while kills < KILLS:
            started = (tmp_path / record / "experiment.yaml").exists()
            # The first session must get as far as experiment.yaml: resume needs it.
            finished, killed = _session(
                tmp_path, record, "resume" if started else "start", draw.randint(not started, 40)
            )
            reported |= finished
            _check_record(tmp_path / record, reported)
            if not killed:
                break
            kills += 1
        _complete(tmp_path, record, reported)
