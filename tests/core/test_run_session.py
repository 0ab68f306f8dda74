"""The run session: ``start`` and ``resume`` decide an experiment, ``execute`` runs it.

Real spec files, a real task module and real record directories; a resume is set up the way
an interruption leaves a record (a run's ``run.yaml`` absent, no summary).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from autobench.core.runtime import ResumeError, RunSession, default_record_dir
from autobench.core.spec import load_benchmark_spec
from autobench.records import (
    DirectorySink,
    ExperimentResult,
    RecordDirectoryWriter,
    load_experiment_summary,
    replay_experiment,
)

TASK = """\
def run(ctx, case):
    ctx.metric("n", case.input["n"])
    return {"n": case.input["n"] * FACTOR}
"""


def _spec_file(root: Path, *, factor: int = 2) -> Path:
    (root / "session_task.py").write_text(TASK.replace("FACTOR", str(factor)))
    spec = root / "autobench.yaml"
    spec.write_text(
        "benchmark:\n  session-bench:\n"
        "    cases: [{id: a, input: {n: 1}}, {id: b, input: {n: 2}}]\n"
        "    run: {python: 'session_task:run'}\n"
        "    variants: {v1: {}, v2: {}}\n"
    )
    return spec


def _execute(session: RunSession) -> ExperimentResult:
    return asyncio.run(session.execute())


def test_start_decides_the_record_directory_and_writes_nothing_before_execute(
    tmp_path: Path,
) -> None:
    spec = load_benchmark_spec(_spec_file(tmp_path))
    record = tmp_path / "record"
    session = RunSession.start(spec, experiment_id="exp_one", record_dir=record)

    assert session.experiment_id == "exp_one" and session.root_dir == record
    assert isinstance(session.sink, DirectorySink)
    assert [run.run_id for run in session.runs] == [
        planned.id for planned in session.experiment.plan
    ]
    assert session.previous == () and session.resumed is None
    assert not record.exists()  # deciding is not recording

    result = _execute(session)
    assert result.root_dir == record
    assert sorted(run.output["n"] for run in result.runs) == [2, 2, 4, 4]
    assert len(replay_experiment(record).runs) == 4


def test_the_default_record_directory_is_under_dot_autobench(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = load_benchmark_spec(_spec_file(tmp_path))
    monkeypatch.chdir(tmp_path)
    session = RunSession.start(spec, experiment_id="exp 2/x", record_dir="default")

    assert session.root_dir == default_record_dir("session-bench", "exp 2/x")
    assert session.root_dir is not None and session.root_dir.parts[:2] == (
        ".autobench",
        "session-bench",
    )
    assert "/" not in session.root_dir.name and " " not in session.root_dir.name
    _execute(session)
    assert (tmp_path / session.root_dir / "experiment.yaml").is_file()


def test_a_session_without_a_sink_keeps_everything_in_the_result(tmp_path: Path) -> None:
    spec = load_benchmark_spec(_spec_file(tmp_path))
    session = RunSession.start(spec)
    assert session.sink is None and session.root_dir is None
    result = _execute(session)
    assert result.root_dir is None and len(result.runs) == 4


def test_a_sink_and_a_record_directory_exclude_each_other(tmp_path: Path) -> None:
    spec = load_benchmark_spec(_spec_file(tmp_path))
    with pytest.raises(ValueError, match="not both"):
        RunSession.start(
            spec, sink=RecordDirectoryWriter(tmp_path / "a"), record_dir=tmp_path / "b"
        )


def _interrupted_record(root: Path) -> tuple[Path, str]:
    """A record of the benchmark with one run's ``run.yaml`` and the summary gone."""
    spec = load_benchmark_spec(_spec_file(root))
    record = root / "record"
    _execute(RunSession.start(spec, experiment_id="exp_resumed", record_dir=record))
    removed = sorted(record.glob("cases/*/*/run.yaml"))[-1]
    removed.unlink()
    (record / "summary.yaml").unlink()
    return record, removed.parent.as_posix()


def test_resume_gives_a_session_of_the_missing_runs_only(tmp_path: Path) -> None:
    record, missing_dir = _interrupted_record(tmp_path)
    spec = load_benchmark_spec(tmp_path / "autobench.yaml")

    session = RunSession.resume(spec, record)

    assert session.experiment_id == "exp_resumed" and session.root_dir == record
    assert len(session.runs) == 1 and len(session.previous) == 3
    assert session.resumed is not None and session.resumed.missing == 1
    result = _execute(session)
    assert len(result.runs) == 4
    assert [run.run_id for run in result.runs] == [p.id for p in result.experiment.plan]
    summary = load_experiment_summary(record)
    assert summary.complete and summary.resumed is not None and summary.resumed.runs == 1
    assert (Path(missing_dir) / "run.yaml").is_file()


def test_resume_refuses_a_changed_task_unless_forced(tmp_path: Path) -> None:
    record, _ = _interrupted_record(tmp_path)
    spec = load_benchmark_spec(_spec_file(tmp_path, factor=3))  # the task's source changed

    with pytest.raises(ResumeError, match=r"session_task\.py"):
        RunSession.resume(spec, record)
    session = RunSession.resume(spec, record, force=True)
    assert session.resumed is not None and session.resumed.forced
    assert "session_task.py" in session.resumed.changed


def test_resume_names_what_a_sink_must_offer(tmp_path: Path) -> None:
    record, _ = _interrupted_record(tmp_path)
    spec = load_benchmark_spec(tmp_path / "autobench.yaml")

    class Collecting:
        def start(self, experiment: object) -> None: ...
        def run_finished(self, run: object, payloads: object) -> object: ...
        def post_derived(self, observations_by_run: object) -> None: ...
        def finish(self, summary: object) -> None: ...

    with pytest.raises(TypeError, match="DirectorySink"):
        RunSession.resume(spec, record, sink=Collecting())  # type: ignore[arg-type]


def test_a_complete_record_resumes_to_nothing_even_with_changes(tmp_path: Path) -> None:
    spec = load_benchmark_spec(_spec_file(tmp_path))
    record = tmp_path / "record"
    _execute(RunSession.start(spec, record_dir=record))
    changed = load_benchmark_spec(_spec_file(tmp_path, factor=5))

    session = RunSession.resume(changed, record)  # nothing is missing: nothing to refuse

    assert session.runs == () and len(session.previous) == 4
    assert session.resumed is not None and session.resumed.missing == 0
    assert "session_task.py" in session.resumed.changed
