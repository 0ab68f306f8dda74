"""Small builders of records for the record-layer tests (plain values, no mocks)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from autobench.abp import InstrumentationScope, SpanRecord, Trace
from autobench.records import (
    BenchmarkInfoRecord,
    Case,
    EvaluationStatus,
    ExperimentInfo,
    ExperimentRecord,
    Observation,
    ObservationRole,
    PlannedRun,
    RunInfo,
    RunOutcome,
    RunRecord,
    RunStatus,
    ScoreRecord,
    TaskStatus,
    Variant,
    run_record_path,
)

STARTED = datetime(2026, 5, 7, 12, 0, 0, 123456, tzinfo=UTC)
EXPERIMENT_ID = "exp_demo_20260507T120000Z"
BENCHMARK_ID = "demo"


def run_id(case_id: str, variant_id: str) -> str:
    return f"run_{case_id}_{variant_id}"


def trivial_trace(trace_id: str = "70d8f4b6742d412a85cb7a198db07fe1", *, spans: int = 1) -> Trace:
    root = SpanRecord(
        id="3f2f6c57b9f56a11",
        operation="benchmark.run",
        kind="task",
        started_at=STARTED,
        duration=0.0131,
    )
    children = tuple(
        SpanRecord(
            id=f"a1b2c3d4e5f6{index:04x}",
            operation="call_router",
            kind="workflow",
            parent=root.id,
            started_at=STARTED,
            offset=0.0002 + index * 1e-4,
            duration=0.0124,
            attributes={"component": "router"},
        )
        for index in range(spans)
    )
    scope = InstrumentationScope(name="autobench.manual", version="0.1.0")
    return Trace(id=trace_id, scopes={scope.name: scope}, spans=(root, *children))


def trivial_run(
    case_id: str = "ticket_1",
    variant_id: str = "route_v1",
    *,
    index: int = 0,
    output: Any = None,
    trace: Trace | None = None,
    **updates: Any,
) -> RunRecord:
    identifier = run_id(case_id, variant_id)
    run = RunRecord(
        run=RunInfo(
            id=identifier,
            experiment=EXPERIMENT_ID,
            benchmark=BENCHMARK_ID,
            case=case_id,
            variant=variant_id,
            index=index,
            status=RunStatus.PASSED,
            outcome=RunOutcome(task=TaskStatus.PASSED, evaluation=EvaluationStatus.PASSED),
            started_at=STARTED,
            duration=0.0152,
        ),
        case=Case(id=case_id, input={"subject": "Refund"}, expected={"queue": "billing"}),
        variant=Variant(id=variant_id, factors={"prompt_version": "route-v1"}),
        output={"queue": "billing"} if output is None else output,
        scores=(
            ScoreRecord(
                name="routing_correctness",
                value=True,
                semantic_type="quality.correctness",
                role=ObservationRole.OBJECTIVE,
            ),
        ),
        observations=(
            Observation(
                id="observation_1",
                name="latency_ms",
                value=12.4,
                unit="ms",
                semantic_type="time.latency",
                span_id="a1b2c3d4e5f60000",
                case_id=case_id,
                variant_id=variant_id,
            ),
        ),
        trace=trace if trace is not None else trivial_trace(),
    )
    return run.model_copy(update=updates) if updates else run


def experiment_for(runs: list[tuple[str, str]], **updates: Any) -> ExperimentRecord:
    variants = tuple(dict.fromkeys(variant for _, variant in runs))
    record = ExperimentRecord(
        experiment=ExperimentInfo(id=EXPERIMENT_ID, benchmark=BENCHMARK_ID, started_at=STARTED),
        benchmark=BenchmarkInfoRecord(
            id=BENCHMARK_ID,
            variants=tuple(
                Variant(id=variant, factors={"prompt_version": "route-v1"}) for variant in variants
            ),
            cases=len({case for case, _ in runs}),
            runs=len(runs),
        ),
        plan=tuple(
            PlannedRun(
                id=run_id(case, variant),
                case=case,
                variant=variant,
                path=run_record_path(case, variant),
            )
            for case, variant in runs
        ),
    )
    return record.model_copy(update=updates) if updates else record
