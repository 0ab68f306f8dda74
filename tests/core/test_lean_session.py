"""A lean session (``RunSession.execute(lean=True)``, what ``autobench run`` uses when it
records): it keeps only the evidence of each finished run when the spec post-derives, only
status counts otherwise, and its result is the one an evidence-only replay of its record
directory gives.

Real spec files, a real task module (a span, a metric, an artifact, a failing case), real
scorers and real record directories.
"""

from __future__ import annotations

import asyncio
import gc
import io
import weakref
from pathlib import Path

import pytest
from rich.console import Console

from autobench.core.planning import build_benchmark_plan
from autobench.core.runtime import ProgressEvent, ProgressEventKind, RunSession
from autobench.core.runtime._experiment import StatusTally, build_summary
from autobench.core.runtime._handoff import RunHandoff
from autobench.core.runtime._run import RunOutput
from autobench.core.spec import load_benchmark_spec
from autobench.records import ExperimentResult, RunRecord, RunTable, replay_experiment
from autobench.report import build_report, render_report

TASK = """\
def run(ctx, case):
    with ctx.span("work", kind="tool"):
        value = case.input["n"] * 2
    ctx.metric("size", case.input["n"], semantic_type="workload.size")
    ctx.artifact("note", f"case {case.id}", media_type="text/plain")
    if case.input["n"] == 3:
        raise ValueError("three is refused")
    return {"value": value, "ok": True}
"""

SPEC = """\
benchmark:
  lean-bench:
    cases:
      - {id: a, input: {n: 1}, expected: {value: 2}}
      - {id: b, input: {n: 2}, expected: {value: 5}}
      - {id: c, input: {n: 3}, expected: {value: 6}}
    run: {python: 'lean_task:run'}
    variants: {base: {}, other: {}}
    score:
      correct:
        exact: {actual: output.value, expected: case.expected.value}
        semantic: quality.correctness
      ok:
        pass: output.ok
        semantic: result.success
    post_derive:
      - kind: paired_baseline
        baseline_variant: base
        match_on:
          - kind: case_id
        metric: workload.size
        output:
          name: size_ratio
          semantic_type: performance.speedup
        formula: baseline_over_candidate
"""


def _spec(root: Path) -> Path:
    (root / "lean_task.py").write_text(TASK)
    path = root / "autobench.yaml"
    path.write_text(SPEC)
    return path


def _run(root: Path, *, lean: bool, concurrency: int = 1) -> ExperimentResult:
    spec = load_benchmark_spec(_spec(root))
    session = RunSession.start(spec, experiment_id="exp_lean", record_dir=root / "record")
    return asyncio.run(session.execute(concurrency_limit=concurrency, lean=lean))


def _evidence(run: RunRecord) -> dict[str, object]:
    """What a report reads of a run (everything but the case, which an evidence-only replay
    reads as its id alone)."""
    return run.model_dump(mode="json", exclude={"case"})


def _rendered(result: ExperimentResult) -> str:
    console = Console(file=io.StringIO(), width=120, color_system=None)
    console.print(render_report(build_report(result), records="RECORD", runs="all"))
    assert isinstance(console.file, io.StringIO)
    return console.file.getvalue()


@pytest.mark.parametrize("concurrency", [1, 4])
def test_a_lean_result_is_the_evidence_only_replay_of_its_record(
    tmp_path: Path, concurrency: int
) -> None:
    result = _run(tmp_path, lean=True, concurrency=concurrency)
    replayed = replay_experiment(tmp_path / "record", evidence_only=True)

    assert result.evidence_only and result.root_dir == tmp_path / "record"
    assert [run.run_id for run in result.runs] == [run.run_id for run in replayed.runs]
    assert [_evidence(run) for run in result.runs] == [_evidence(run) for run in replayed.runs]
    assert all(run.output is None and run.trace is None for run in result.runs)
    # The evidence the report reads is all there: scores, the task's metric, the artifact,
    # the error of the refused case and the post-derived ratio.
    refused = [run for run in result.runs if run.case_id == "c"]
    assert refused and all(run.errors and run.status.value == "errored" for run in refused)
    assert {score.name for score in result.runs[0].scores} == {"correct", "ok"}
    assert all(run.artifacts for run in result.runs)
    ratios = [o for run in result.runs for o in run.observations if o.name == "size_ratio"]
    assert ratios
    assert _rendered(result) == _rendered(replayed)


def test_the_run_files_of_a_lean_session_hold_every_run_whole(tmp_path: Path) -> None:
    lean = _run(tmp_path, lean=True)
    full = replay_experiment(tmp_path / "record")

    assert lean.summary is not None and lean.summary.runs == 6
    assert full.summary == lean.summary
    outputs = {(run.case_id, run.variant_id): run.output for run in full.runs}
    assert outputs[("a", "base")] == {"value": 2, "ok": True}
    assert outputs[("c", "other")] is None  # the refused case returned nothing
    assert all(
        [span.operation for span in run.spans] == ["benchmark.run", "work"] for run in full.runs
    )


def test_a_lean_session_and_a_whole_one_report_the_same(tmp_path: Path) -> None:
    (tmp_path / "lean").mkdir()
    (tmp_path / "whole").mkdir()
    lean = _run(tmp_path / "lean", lean=True)
    whole = _run(tmp_path / "whole", lean=False)

    assert not whole.evidence_only and whole.runs[0].output == {"value": 2, "ok": True}

    def shown(result: ExperimentResult) -> list[object]:
        # Durations and start times differ between two executions; the evidence does not.
        return [
            (run.run_id, run.status, run.scores, run.errors[0].message if run.errors else None)
            for run in result.runs
        ] + [
            [(o.name, o.value) for o in run.observations if o.name != "timing"]
            for run in result.runs
        ]

    assert shown(lean) == shown(whole)
    assert lean.summary is not None and whole.summary is not None
    assert lean.summary.status == whole.summary.status


def test_lean_needs_a_record_directory(tmp_path: Path) -> None:
    spec = load_benchmark_spec(_spec(tmp_path))
    session = RunSession.start(spec)
    with pytest.raises(ValueError, match="record"):
        asyncio.run(session.execute(lean=True))


def test_lean_records_share_their_fields_sets_without_changing_them(tmp_path: Path) -> None:
    (tmp_path / "lean").mkdir()
    (tmp_path / "whole").mkdir()
    result = _run(tmp_path / "lean", lean=True)
    whole = _run(tmp_path / "whole", lean=False)
    first, second = result.runs[0], result.runs[1]

    # Each record says it was given what the whole record was given, but its output and trace.
    for lean, full in zip(result.runs, whole.runs, strict=True):
        assert lean.model_fields_set == full.model_fields_set - {"output", "trace"}
        assert lean.run.model_fields_set == full.run.model_fields_set
        assert [score.model_fields_set for score in lean.scores] == [
            score.model_fields_set for score in full.scores
        ]
        assert (
            lean.model_dump(exclude_unset=True)["scores"]
            == full.model_dump(exclude_unset=True)["scores"]
        )
    assert first.scores[0].__pydantic_fields_set__ is second.scores[0].__pydantic_fields_set__
    assert first.run.__pydantic_fields_set__ is second.run.__pydantic_fields_set__
    # A copy with a change owns its set: the shared one stays as it was.
    before = set(second.scores[0].model_fields_set)
    changed = first.scores[0].model_copy(update={"reason": "edited"})
    assert "reason" in changed.model_fields_set
    assert second.scores[0].model_fields_set == before


def _without_post_derive(root: Path) -> Path:
    path = _spec(root)
    path.write_text(SPEC.split("    post_derive:")[0])
    return path


def test_without_post_derive_a_lean_session_reads_its_result_back(tmp_path: Path) -> None:
    """With the columnar index written as the runs land, it keeps only status counts while
    it runs and its result is the record's, read back from the index (a ``RunTable``);
    without one (``listeners=False``), reading back would replay every run file, so it keeps
    each run's evidence and returns it. Both equal the record's evidence-only replay."""
    events: list[ProgressEvent] = []
    spec = load_benchmark_spec(_without_post_derive(tmp_path))
    indexed = RunSession.start(spec, experiment_id="exp_lean", record_dir=tmp_path / "indexed")
    result = asyncio.run(indexed.execute(concurrency_limit=2, progress=events.append, lean=True))
    plain = RunSession.start(spec, experiment_id="exp_lean", record_dir=tmp_path / "plain")
    unindexed = asyncio.run(plain.execute(listeners=False, lean=True))

    assert (tmp_path / "indexed" / "index").is_dir() and not (tmp_path / "plain" / "index").exists()
    assert isinstance(result.runs, RunTable)  # read back from the index
    # The evidence the session kept holds the plan's cases whole; a replay cuts them to ids.
    assert [run.case.input for run in unindexed.runs] == [{"n": n} for n in (1, 1, 2, 2, 3, 3)]
    replayed_cases = replay_experiment(tmp_path / "plain", evidence_only=True).runs
    assert [run.case.input for run in replayed_cases] != [run.case.input for run in unindexed.runs]
    for read, root in ((result, tmp_path / "indexed"), (unindexed, tmp_path / "plain")):
        replayed = replay_experiment(root, evidence_only=True)
        assert read.evidence_only and read.root_dir == root
        assert [_evidence(run) for run in read.runs] == [_evidence(run) for run in replayed.runs]
        assert read.summary == replayed.summary
        assert read.summary is not None and read.summary.runs == 6 and read.summary.complete
        assert read.summary.status.errored == 2
        assert (
            read.summary.variants["base"]
            == build_summary(
                read.experiment,
                [run for run in replayed.runs if run.variant_id == "base"],
                duration=0,
            ).status
        )
        assert _rendered(read) == _rendered(replayed)
    finished = {
        event.run_id: event.status
        for event in events
        if event.kind is ProgressEventKind.RUN_FINISHED
    }
    assert finished == {run.run_id: run.status.value for run in result.runs}


def test_a_detached_outcome_reads_the_record_back_without_the_session(tmp_path: Path) -> None:
    """``execute_detached`` (what ``autobench run`` calls): the outcome holds nothing of the
    session, so the session, its spec and its plan are freed before the record is read back;
    the result read then is ``execute``'s. A kept result (post-deriving spec) is handed back
    as kept."""
    spec = load_benchmark_spec(_without_post_derive(tmp_path))
    session = RunSession.start(spec, experiment_id="exp_lean", record_dir=tmp_path / "detached")
    executed = asyncio.run(session.execute_detached(concurrency_limit=2, lean=True))
    gone = weakref.ref(session)  # the plan, the spec's cases: only the session holds them
    del session, spec
    gc.collect()
    assert gone() is None
    result = executed.result()
    assert isinstance(result.runs, RunTable)  # read back from the index, now
    replayed = replay_experiment(tmp_path / "detached", evidence_only=True)
    assert [_evidence(run) for run in result.runs] == [_evidence(run) for run in replayed.runs]
    assert result.summary == replayed.summary and _rendered(result) == _rendered(replayed)
    assert executed.result() is not result  # read anew: the outcome keeps nothing

    (tmp_path / "kept").mkdir()
    kept_session = RunSession.start(
        load_benchmark_spec(_spec(tmp_path / "kept")),
        experiment_id="exp_lean",
        record_dir=tmp_path / "kept" / "record",
    )
    kept = asyncio.run(kept_session.execute_detached(lean=True))
    assert kept.result() is kept.result()  # post-derived: the runs were kept, not read back
    assert len(kept.result().runs) == 6


def test_a_status_tally_keeps_nothing_of_the_runs_it_counts(tmp_path: Path) -> None:
    """Given as ``keep``, a tally counts each run handed over; the hand-off then holds no
    record, and still reports each run's status and figures to the progress callback."""
    whole = _run(tmp_path, lean=False)
    events: list[ProgressEvent] = []
    tally = StatusTally()
    planned = build_benchmark_plan(load_benchmark_spec(tmp_path / "autobench.yaml")).runs
    handoff = RunHandoff("exp_lean", planned, None, events.append, keep=tally)
    for position, (plan, run) in enumerate(zip(planned, whole.runs, strict=True)):
        handoff.finished(position, plan, RunOutput(run, {}))

    assert handoff.records == () and handoff.completed == tally.runs == 6
    assert tally.counts() == whole.status_counts()
    assert (
        tally.counts("other")
        == StatusTally().add(run for run in whole.runs if run.variant_id == "other").counts()
    )
    assert [(event.status, event.payload) for event in events] == [
        (
            run.status.value,
            {
                "duration": run.run.duration,
                "task": run.task_status.value,
                "evaluation": run.evaluation_status.value,
            },
        )
        for run in whole.runs
    ]
