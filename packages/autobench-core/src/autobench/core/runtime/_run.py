"""One case x variant run: context, trace, task call, scoring, status, record.

The run's spans are recorded by one ABP :class:`TraceCollector` bound to the
run's task. The root span ``benchmark.run`` (kind ``task``) wraps the task
call; user spans nest under it. Async tasks are awaited on the event loop;
sync tasks run in a worker thread with a copy of the run's
:mod:`contextvars` context, so span parentage and
:func:`get_active_run_context` work inside the thread.

A task that raises gives an errored run whose record keeps the evidence
recorded before the raise; only ``Exception`` is caught, so cancellation and
``KeyboardInterrupt`` propagate.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from autobench.abp import SpanKind, SpanStatus, TraceCollector, bind_collector, start_span
from autobench.core.planning import MatrixRunSpec
from autobench.core.runtime._context import RunContext, bind_run_context
from autobench.core.runtime._evidence import EvidenceBuffer, error_record
from autobench.core.runtime._scoring import score_run
from autobench.core.runtime._status import decide_outcome
from autobench.core.scoring import ScorerSpec, ScoringCall
from autobench.records import RunInfo, RunRecord, TaskStatus

ROOT_SPAN = "benchmark.run"
"""Operation name of the root span of every run."""


@dataclass(frozen=True, slots=True)
class RunSetup:
    """What every run of one experiment shares."""

    experiment_id: str
    benchmark_id: str
    task: Callable[..., Any]
    task_is_async: bool
    scorers: Sequence[ScorerSpec]
    executor: Executor | None


@dataclass(frozen=True, slots=True)
class RunOutput:
    """A finished run: its record and its artifact payloads by artifact id."""

    record: RunRecord
    payloads: Mapping[str, Any]


async def _call_task(setup: RunSetup, ctx: RunContext) -> Any:
    if setup.task_is_async:
        return await setup.task(ctx, ctx.case)
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    result = await loop.run_in_executor(setup.executor, context.run, setup.task, ctx, ctx.case)
    if inspect.isawaitable(result):
        result = await result
    return result


async def execute_run(setup: RunSetup, planned: MatrixRunSpec) -> RunOutput:
    """Execute one planned run and return its record (statuses per ``_status``)."""
    started_at = datetime.now(UTC)
    started = time.perf_counter()
    case, variant = planned.case, planned.variant
    evidence = EvidenceBuffer(case.id, variant.id)
    collector = TraceCollector(name=planned.run_id)
    ctx = RunContext(
        case=case,
        variant=variant,
        run_id=planned.run_id,
        experiment_id=setup.experiment_id,
        benchmark_id=setup.benchmark_id,
        collector=collector,
        evidence=evidence,
    )
    output: Any = None
    task_status = TaskStatus.PASSED
    with bind_collector(collector), bind_run_context(ctx):
        with start_span(ROOT_SPAN, kind=SpanKind.TASK, collector=collector) as root:
            try:
                output = await _call_task(setup, ctx)
            except Exception as exc:
                task_status = TaskStatus.ERRORED
                root.end(SpanStatus.ERROR, exc)
                span_id = evidence.exception_span(exc) or root.id
                evidence.errors.insert(0, error_record(exc, stage="task", span_id=span_id))
    trace = collector.materialize()
    observations = tuple(evidence.observations)
    scores: tuple[Any, ...] = ()
    if task_status is TaskStatus.PASSED:
        if any(error.stage == "context" for error in evidence.errors):
            task_status = TaskStatus.FAILED
        call = ScoringCall(
            case=case,
            variant=variant,
            output=output,
            observations=observations,
            spans=trace.spans,
            selected_spans=trace.spans,
            ctx=ctx,
        )
        scores, scorer_errors = await score_run(setup.scorers, call)
        evidence.errors.extend(scorer_errors)
    status, outcome = decide_outcome(task_status, scores, observations)
    info = RunInfo.model_construct(
        id=planned.run_id,
        experiment=setup.experiment_id,
        benchmark=setup.benchmark_id,
        case=case.id,
        variant=variant.id,
        index=planned.index,
        status=status,
        outcome=outcome,
        started_at=started_at,
        duration=time.perf_counter() - started,
    )
    record = RunRecord.model_construct(
        run=info,
        case=case,
        variant=variant,
        output=output,
        scores=scores,
        observations=observations,
        trace=trace,
        artifacts=tuple(evidence.artifacts),
        errors=tuple(evidence.errors),
    )
    return RunOutput(record=record, payloads=evidence.payloads)
