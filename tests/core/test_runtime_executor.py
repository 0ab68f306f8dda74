"""Matrix execution: concurrency bound, plan order, isolation of failures, sink, progress, records."""

from __future__ import annotations

import asyncio
import hashlib
import sys
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest
from runtime_support import CollectingSink, make_spec, run, write_task_module

from autobench.core.planning import build_benchmark_plan, dataset_hash, spec_hash
from autobench.core.plugins import semantic_registry
from autobench.core.runtime import (
    ProgressEvent,
    ProgressEventKind,
    capture_environment,
    collect_benchmark_source_files,
    run_benchmark_spec,
)
from autobench.core.runtime._tasks import resolve_task
from autobench.core.scoring import ScorerSpec, ScoringCall
from autobench.records import DEFAULT_SEMANTIC_REGISTRY, RunStatus

COUNTING_TASKS = """
import asyncio, threading, time

lock = threading.Lock()
state = {"active": 0, "peak": 0}

def reset():
    state.update(active=0, peak=0)

def _enter():
    with lock:
        state["active"] += 1
        state["peak"] = max(state["peak"], state["active"])

def _leave():
    with lock:
        state["active"] -= 1

def sync_case(ctx, case):
    _enter()
    try:
        time.sleep(0.02)
    finally:
        _leave()
    return case.id

async def async_case(ctx, case):
    _enter()
    try:
        await asyncio.sleep(0.02)
    finally:
        _leave()
    return case.id

async def reverse_case(ctx, case):
    # later cases finish first
    await asyncio.sleep(0.005 * (10 - case.input["n"]))
    return case.input["n"]

def sometimes_raises(ctx, case):
    ctx.metric("seen", case.input["n"])
    if case.input["n"] == 1:
        raise RuntimeError("only case 1 breaks")
    return case.input["n"]

async def slow_case(ctx, case):
    state["started"] = state.get("started", 0) + 1
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        state["cancelled"] = state.get("cancelled", 0) + 1
        raise
"""

CASES = [{"id": f"c{n}", "input": {"n": n}} for n in range(8)]


def _module(tmp_path: Path) -> Any:
    name = write_task_module(tmp_path, COUNTING_TASKS)
    return name


@pytest.mark.parametrize("task", ["sync_case", "async_case"])
@pytest.mark.parametrize("limit", [1, 3])
def test_concurrency_limit_bounds_active_runs(tmp_path: Path, task: str, limit: int) -> None:
    name = _module(tmp_path)
    result = run(make_spec(tmp_path, f"{name}:{task}", cases=CASES), concurrency_limit=limit)
    module = sys.modules[name]
    assert module.state["peak"] == limit
    assert [r.output for r in result.runs] == [c["id"] for c in CASES]


def test_results_keep_plan_order_when_later_runs_finish_first(tmp_path: Path) -> None:
    name = _module(tmp_path)
    sink = CollectingSink()
    variants = [{"id": "a"}, {"id": "b"}]
    spec = make_spec(tmp_path, f"{name}:reverse_case", cases=CASES, variants=variants)
    result = run(spec, concurrency_limit=16, sink=sink)
    plan = build_benchmark_plan(spec)
    assert [r.run_id for r in result.runs] == [p.run_id for p in plan.runs]
    assert [r.run.index for r in result.runs] == list(range(16))
    completion = [call.removeprefix("run:") for call in sink.calls[1:-1]]
    assert completion != [p.run_id for p in plan.runs]
    assert sorted(completion) == sorted(p.run_id for p in plan.runs)
    assert result.runs == tuple(sorted(sink.runs, key=lambda r: r.run.index))


def test_raising_task_does_not_stop_other_runs(tmp_path: Path) -> None:
    name = _module(tmp_path)
    result = run(
        make_spec(tmp_path, f"{name}:sometimes_raises", cases=CASES[:3]), concurrency_limit=2
    )
    assert [r.status for r in result.runs] == [
        RunStatus.PASSED,
        RunStatus.ERRORED,
        RunStatus.PASSED,
    ]
    assert result.runs[1].observations[0].value == 1
    assert result.summary is not None
    assert (result.summary.status.passed, result.summary.status.errored) == (2, 1)


def test_sink_sequence_and_experiment_record(tmp_path: Path) -> None:
    name = _module(tmp_path)
    sink = CollectingSink()
    spec = make_spec(
        tmp_path,
        f"{name}:sometimes_raises",
        cases=CASES[:2],
        variants=[{"id": "a", "factors": {"m": 1}}, {"id": "b"}],
        semantic_registry={"types": {"workload.size": {"unit": "items"}}},
    )
    result = run(spec, sink=sink, experiment_id="exp_fixed")
    assert sink.calls[0] == "start" and sink.calls[-1] == "finish" and len(sink.calls) == 6
    experiment = sink.experiment
    assert experiment is result.experiment
    assert (experiment.experiment_id, experiment.benchmark_id) == ("exp_fixed", "runtime-test")
    assert experiment.experiment.started_at is not None
    assert experiment.benchmark.spec is not None and experiment.benchmark.spec.hash == spec_hash(
        spec
    )
    assert experiment.benchmark.spec.snapshot["benchmark"] == {"id": "runtime-test"}
    assert experiment.benchmark.dataset.hash == dataset_hash(spec.cases)
    assert (experiment.benchmark.cases, experiment.benchmark.runs) == (2, 4)
    assert [v.id for v in experiment.benchmark.variants] == ["a", "b"]
    assert [p.id for p in experiment.plan] == [p.run_id for p in build_benchmark_plan(spec).runs]
    assert experiment.plan[0].path == "cases/c0/a/run.yaml"
    module_file = tmp_path / f"{name}.py"
    assert experiment.files == {f"{name}.py": hashlib.sha256(module_file.read_bytes()).hexdigest()}
    assert experiment.environment["python"] and "packages" in experiment.environment
    # the spec's own type, and those installed plugins add (replay knows them without plugins)
    plugin_types = set(semantic_registry().custom_entries(DEFAULT_SEMANTIC_REGISTRY).types)
    assert set(experiment.semantic_registry.types) == {"workload.size"} | plugin_types
    summary = sink.summary
    assert summary is result.summary and summary is not None
    assert (summary.complete, summary.runs, summary.status.passed, summary.status.errored) == (
        True,
        4,
        2,
        2,
    )
    assert summary.variants["a"].total == 2 and summary.variants["b"].errored == 1
    assert summary.duration is not None and summary.duration > 0


def test_default_experiment_id_shape(tmp_path: Path) -> None:
    name = _module(tmp_path)
    result = run(make_spec(tmp_path, f"{name}:async_case"))
    assert result.experiment_id.startswith("exp_runtime_test_")
    stamp, suffix = result.experiment_id.removeprefix("exp_runtime_test_").split("_")
    assert len(stamp) == 16 and stamp.endswith("Z") and len(suffix) == 4


def test_progress_events_are_typed_and_ordered(tmp_path: Path) -> None:
    name = _module(tmp_path)
    events: list[ProgressEvent] = []
    result = run(
        make_spec(tmp_path, f"{name}:sometimes_raises", cases=CASES[:3]), progress=events.append
    )
    kinds = [e.kind for e in events]
    assert (
        kinds[0] is ProgressEventKind.EXPERIMENT_STARTED
        and kinds[-1] is ProgressEventKind.EXPERIMENT_FINISHED
    )
    assert (
        kinds.count(ProgressEventKind.RUN_STARTED)
        == kinds.count(ProgressEventKind.RUN_FINISHED)
        == 3
    )
    finished = [e for e in events if e.kind is ProgressEventKind.RUN_FINISHED]
    assert [e.status for e in finished] == ["passed", "errored", "passed"]
    assert [e.completed for e in finished] == [1, 2, 3]
    assert [e.index for e in finished] == [0, 1, 2]
    assert finished[1].payload["task"] == "errored"
    assert all(e.total == 3 and e.experiment_id == result.experiment_id for e in events)
    assert events[-1].payload["counts"]["errored"] == 1
    with pytest.raises(AttributeError):
        events[0].kind = ProgressEventKind.RUN_STARTED  # type: ignore[misc]


def test_raising_progress_callback_does_not_break_the_experiment(tmp_path: Path) -> None:
    name = _module(tmp_path)

    def broken(event: ProgressEvent) -> None:
        raise RuntimeError("display crashed")

    result = run(make_spec(tmp_path, f"{name}:async_case", cases=CASES[:2]), progress=broken)
    assert [r.status for r in result.runs] == [RunStatus.PASSED, RunStatus.PASSED]


def test_concurrency_limit_must_be_positive(tmp_path: Path) -> None:
    name = _module(tmp_path)
    with pytest.raises(ValueError, match="concurrency_limit"):
        run(make_spec(tmp_path, f"{name}:async_case"), concurrency_limit=0)


@pytest.mark.parametrize("limit", [1, 4])
def test_cancelling_the_experiment_cancels_active_runs(tmp_path: Path, limit: int) -> None:
    name = _module(tmp_path)
    spec = make_spec(tmp_path, f"{name}:slow_case", cases=CASES)
    module = sys.modules[resolve_task(spec).__module__]

    async def main() -> None:
        experiment = asyncio.create_task(run_benchmark_spec(spec, concurrency_limit=limit))
        while module.state.get("started", 0) < limit:
            await asyncio.sleep(0.001)
        experiment.cancel()
        with pytest.raises(asyncio.CancelledError):
            await experiment

    asyncio.run(main())
    assert module.state["started"] == limit
    assert module.state["cancelled"] == limit


class _ConstantScorer(ScorerSpec):
    keyword: ClassVar[str] = "constant"
    kind: Literal["rt_constant"] = "rt_constant"

    async def score(self, call: ScoringCall) -> Any:
        assert call.ctx is not None and call.ctx.run_id
        assert [span.operation for span in call.spans] == ["benchmark.run"]
        return 0.75


def test_plain_scorer_value_becomes_a_filled_score(tmp_path: Path) -> None:
    name = _module(tmp_path)
    spec = make_spec(tmp_path, f"{name}:async_case")
    spec = spec.model_copy(
        update={
            "scoring": (
                _ConstantScorer(
                    name="const", semantic="quality.score", unit="ratio", goal="maximize"
                ),
            )
        }
    )
    score = run(spec).runs[0].scores[0]
    assert (
        score.name,
        score.value,
        score.semantic_type,
        score.unit,
        score.direction,
        score.role,
    ) == ("const", 0.75, "quality.score", "ratio", "maximize", "objective")


def test_collect_source_files_and_environment(tmp_path: Path) -> None:
    name = _module(tmp_path)
    spec = make_spec(tmp_path, f"{name}:async_case")
    spec_file = tmp_path / "autobench.yaml"
    spec_file.write_text("benchmark: {}\n")
    files = collect_benchmark_source_files(spec, spec_path=spec_file)
    assert list(files) == ["autobench.yaml", f"{name}.py"]
    assert files["autobench.yaml"] == hashlib.sha256(spec_file.read_bytes()).hexdigest()
    environment = capture_environment()
    assert {"python", "implementation", "platform", "packages"} <= set(environment)
    assert "cwd" not in environment  # no spec directory: no working directory is recorded
    assert environment["packages"]["autobench-core"] == "0.1.0"
