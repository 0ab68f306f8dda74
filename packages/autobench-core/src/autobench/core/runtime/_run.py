"""One case x variant run: context, trace, task call, scoring, policies, status, record.

The run's spans are recorded by one ABP :class:`TraceCollector` bound to the
run's task. The root span ``benchmark.run`` (kind ``task``) wraps the task
call; user spans nest under it, and so do spans opened in threads the task
started without its context (the collector's adoptive parent). :func:`execute_run` is the run of an async
task, awaited on the event loop. :func:`execute_sync_run` is the whole run of
a sync task (context, task call, scoring, record), called in a worker thread
(``_threads``) inside a fresh :mod:`contextvars` context: no event loop runs
in that thread, so the task may call ``asyncio.run(...)``, and span parentage
and :func:`get_active_run_context` work there and in threads the task starts
with a copied context. An awaitable returned by a sync task, and scorers that
may suspend, are awaited on the experiment's loop (``_bridge``).

A task that raises gives an errored run whose record keeps the evidence
recorded before the raise; the scorers still run, with ``output`` ``None``,
and see that evidence (its spans and observations, and only the run's own).
``Exception`` and ``SystemExit`` (a task calling
``sys.exit``: the task's fault, not the end of the experiment) are caught and give an
errored run. A task raising ``KeyboardInterrupt`` interrupts the experiment as Ctrl-C
does: its run is recorded (errored, an error of stage ``interrupted``, not scored) and
:class:`RunInterrupted` carries the record to the executor, which records it, stops
starting runs and raises it on. Cancellation of an async run gives :class:`RunCancelled`.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import tenacity

from autobench.abp import (
    DEFAULT_CAPTURE_POLICY,
    ActiveSpan,
    CapturePolicy,
    SpanKind,
    SpanStatus,
    Trace,
    TraceCollector,
    bind_collector,
    start_span,
)
from autobench.abp._cassette import bind_cassette
from autobench.core.derive import PreparedDeriver
from autobench.core.planning import MatrixRunSpec
from autobench.core.policies import PolicySpec
from autobench.core.runtime._attach import merge_attached
from autobench.core.runtime._bridge import run_on_loop
from autobench.core.runtime._case_copy import own_case
from autobench.core.runtime._cassette import CassetteSetup, close_cassette
from autobench.core.runtime._context import RunContext, bind_run_context
from autobench.core.runtime._derive import derive_run
from autobench.core.runtime._evidence import EvidenceBuffer, error_record
from autobench.core.runtime._limits import (
    LimitCoordinator,
    LimitKey,
    acquire_all,
    charge_all,
    limit_keys,
    release_all,
)
from autobench.core.runtime._policies import policy_observations
from autobench.core.runtime._portable import portable_evidence
from autobench.core.runtime._retry import (
    LATE_DEADLINE,
    RetryPolicy,
    TaskTimedOut,
    call_with_deadline,
    past_deadline,
)
from autobench.core.runtime._scoring import (
    ScoringResult,
    add_scorer_evidence,
    score_run,
    score_run_inline,
)
from autobench.core.runtime._status import decide_outcome
from autobench.core.runtime._turns import LoopTurns
from autobench.core.scoring import ScorerSpec, ScoringCall
from autobench.core.spec._models import LimitSpec
from autobench.records import (
    ACCOUNTING_VERSION,
    DEFAULT_SEMANTIC_REGISTRY,
    AssetBinding,
    AttemptError,
    AttemptRecord,
    Observation,
    ObservationKind,
    ObservationRole,
    Pool,
    RunInfo,
    RunRecord,
    ScoreRecord,
    Semantic,
    SemanticRegistry,
    SpanIndex,
    TaskStatus,
    accounting_observations,
    native_observations,
    redact_text,
    redact_value,
)

_log = logging.getLogger("autobench.runtime")

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
    scores_inline: bool
    """Whether a worker thread may score with ``score_run_inline`` (``_scoring.scores_inline``)."""
    policies: Sequence[PolicySpec] = ()
    """Policies checked on every run whose task completed (``_policies``)."""
    registry: SemanticRegistry = DEFAULT_SEMANTIC_REGISTRY
    """The spec's semantic registry (built-ins with the spec's entries laid over them)."""
    derivers: Sequence[PreparedDeriver] = ()
    """Per-run derivers, prepared once for the experiment (``_derive``)."""
    capture: CapturePolicy = DEFAULT_CAPTURE_POLICY
    """What span payloads may be recorded (redaction, truncation, hashing, artifacts)."""
    diagnostics: tuple[tuple[str, Any, str], ...] = ()
    """``(name, value, reason)`` of diagnostics every run records when it starts (for
    example ``instrumentation.skipped`` for an integration that could not be installed)."""
    base_dir: Path | None = None
    """The spec's directory: recorded error tracebacks name its files relative to it
    (``_portable``)."""
    prepare: Callable[[RunRecord, Mapping[str, Any]], Any] | None = None
    """The sink's ``prepare_run`` (:class:`~autobench.records.PreparingSink`): a worker
    thread renders the files of its run before it takes the next one, so the next task
    does not share the interpreter with that work."""
    timeout: float | None = None
    """Seconds each call of the task may take (``_retry``); ``None``: no bound."""
    retries: RetryPolicy | None = None
    """When a failed call of the task is made again (``_retry``); ``None``: never."""
    limit_specs: Mapping[str, LimitSpec] = field(default_factory=dict)
    """The spec's ``limits`` (factor name -> budget): which budgets a run takes."""
    limits: LimitCoordinator | None = None
    """Where the budgets live (``_limits``); ``None`` when the spec has no ``limits``. An
    executor running tasks elsewhere replaces it with a coordinator of its own."""
    cassette: CassetteSetup | None = None
    """The session's cassettes (``_cassette``): each attempt's task call records or replays
    its HTTP exchanges; ``None``: no cassette."""
    instrumentation: Any = None
    """The resolved native instrumentation (``core.native.ResolvedInstrumentation``) the
    session installed in this process; an executor whose runs execute in other processes
    installs it there too (the local executor's runs share this process's)."""
    keep: Callable[[RunRecord], RunRecord | None] | None = None
    """What the session keeps of each finished run once the sink has it (``RunHandoff``):
    ``None`` (the whole record); ``_lean.lean_run`` (its evidence) for a lean session that
    post-derives; for another lean session a ``StatusTally``, which counts the run and
    returns ``None``: nothing is kept, and the run is not among the records the executor
    returns or lists as finished."""


@dataclass(frozen=True, slots=True)
class RunOutput:
    """A finished run: its record and its artifact payloads by artifact id."""

    record: RunRecord
    payloads: Mapping[str, Any]
    prepared: Any = None
    """What ``RunSetup.prepare`` made of the run in its worker thread, or ``None`` (the sink's
    ``run_finished`` then takes the record)."""


class _Run:
    """The state of one run between its start and its record."""

    __slots__ = (
        "attempts",
        "cassette",
        "collector",
        "ctx",
        "evidence",
        "observations",
        "output",
        "planned",
        "started",
        "started_at",
        "trace",
    )

    def __init__(self, setup: RunSetup, planned: MatrixRunSpec) -> None:
        self.started_at = datetime.now(UTC)
        self.started = time.perf_counter_ns()
        self.planned = planned
        self.evidence = EvidenceBuffer(planned.case.id, planned.variant.id)
        self.collector = TraceCollector(capture=setup.capture)
        self.ctx = RunContext(
            case=own_case(planned.case),  # the task's own copy; the record keeps the planned case
            variant=planned.variant,
            run_id=planned.run_id,
            experiment_id=setup.experiment_id,
            benchmark_id=setup.benchmark_id,
            collector=self.collector,
            evidence=self.evidence,
        )
        self.output: Any = None
        self.trace: Trace | None = None
        self.observations: tuple[Observation, ...] = ()
        self.attempts: tuple[AttemptRecord, ...] = ()
        self.cassette = None if setup.cassette is None else setup.cassette.for_run(planned)
        for name, value, reason in setup.diagnostics:
            self.evidence.add_observation(
                name,
                value,
                kind=ObservationKind.DIAGNOSTIC,
                span_id=None,
                role=ObservationRole.DIAGNOSTIC,
                reason=reason,
            )

    def task_raised(self, exc: BaseException, root: ActiveSpan, stage: str = "task") -> TaskStatus:
        """Close the root span with the error and record it (linked to the innermost span)."""
        root.end(SpanStatus.ERROR, exc)
        span_id = self.evidence.exception_span(exc) or root.id
        error = error_record(exc, stage=stage, span_id=span_id)
        if stage == "timeout":  # the deadline's own exception is recorded as what it raises
            error = error.model_copy(update={"type": "TimeoutError"})
        self.evidence.errors.insert(0, error)
        return TaskStatus.ERRORED

    def timed_out(
        self,
        root: ActiveSpan,
        timeout: float,
        late: float | None,
        cause: BaseException | None = None,
    ) -> TaskTimedOut:
        """Record the async call as past its ``timeout`` (an error of stage ``timeout``);
        when it ended ``late`` seconds past its deadline, more than :data:`LATE_DEADLINE`,
        the event loop was held: record the diagnostic ``timeout.overrun`` (seconds; the
        CLI prints it as a warning naming the run)."""
        error = TaskTimedOut(timeout)
        error.__cause__ = cause
        self.task_raised(error, root, stage="timeout")
        if late is not None and late > LATE_DEADLINE:
            reason = (
                f"the call ended {late:.3g} s past its timeout of {timeout:g} s: the event "
                "loop was held (a blocking call in an async task, this run's or a concurrent "
                "one's), so the timeout could not stop it in time"
            )
            self.evidence.add_observation(
                "timeout.overrun",
                late,
                kind=ObservationKind.DIAGNOSTIC,
                span_id=root.id,
                unit="s",
                role=ObservationRole.DIAGNOSTIC,
                reason=reason,
            )
            _log.info("run %s: %s", self.planned.run_id, reason)
        return error


class RunCancelled(Exception):
    """An async run was cancelled (Ctrl-C): ``output`` is its record, errored with an
    error of stage ``cancelled`` and not scored; or, when the cancellation came while the
    run waited for its turn to be finished (``_turns``), its task having returned, the
    record of the finished run, scored. The executor records it, then goes on with the
    cancellation."""

    def __init__(self, output: RunOutput) -> None:
        super().__init__(f"run {output.record.run_id} was cancelled")
        self.output = output


class RunInterrupted(Exception):
    """The task of a run raised ``KeyboardInterrupt``: ``output`` is the run's record,
    errored with an error of stage ``interrupted`` and not scored. The executor records
    it, starts no new runs, cancels (or, for sync runs, waits for) the active ones as on
    Ctrl-C, and raises this on; the session then raises :class:`TaskInterrupted`.

    An ``Exception``, not a ``KeyboardInterrupt``: raised through an asyncio task it
    must not stop the event loop."""

    def __init__(self, output: RunOutput) -> None:
        super().__init__(f"the task of run {output.record.run_id} raised KeyboardInterrupt")
        self.output = output
        self.run_id = output.record.run_id


class TaskInterrupted(KeyboardInterrupt):
    """Raised by :meth:`RunSession.execute` (so by ``run_benchmark_spec``) when a task
    raised ``KeyboardInterrupt``, once the experiment has ended as after Ctrl-C: the runs
    that finished (that one included) are recorded and the summary says
    ``complete: false``. ``run_id`` names the run whose task raised it."""

    def __init__(self, run_id: str) -> None:
        super().__init__(f"the task of run {run_id} raised KeyboardInterrupt")
        self.run_id = run_id


@dataclass(slots=True)
class _Attempt:
    """One call of the task: the run state it filled, and how it ended."""

    run: _Run
    status: TaskStatus
    error: BaseException | None
    queued: float
    duration: float
    number: int
    retry: bool = False
    cancelled: bool = False
    interrupted: bool = False
    """The task raised ``KeyboardInterrupt``."""

    def record(self) -> AttemptRecord:
        error = None
        if self.error is not None:
            stage = (
                "timeout"
                if isinstance(self.error, TaskTimedOut)
                else "interrupted"
                if self.interrupted
                else "task"
            )
            error = AttemptError(
                stage=stage, type=_qualified(type(self.error)), message=str(self.error)
            )
        return AttemptRecord(
            number=self.number, duration=self.duration, queued=self.queued, error=error
        )


def _qualified(cls: type) -> str:
    """``module.Class`` of an exception class (a builtin's bare name); a timeout of the
    run's deadline is ``TimeoutError``, what ``on:`` names to retry it."""
    if issubclass(cls, TaskTimedOut):
        return "TimeoutError"
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


class _Attempts:
    """The attempts of one run so far, and what decides another (``setup.retries``)."""

    __slots__ = ("done", "keys", "queued", "setup")

    def __init__(self, setup: RunSetup, planned: MatrixRunSpec) -> None:
        self.setup = setup
        self.keys: tuple[LimitKey, ...] = (
            limit_keys(setup.limit_specs, planned.variant) if setup.limits is not None else ()
        )
        self.done: list[_Attempt] = []
        self.queued = 0.0

    def ended(self, attempt: _Attempt) -> _Attempt:
        """Note ``attempt``; mark it to be retried when the policy says so."""
        policy = self.setup.retries
        attempt.retry = (
            policy is not None
            and attempt.error is not None
            and not attempt.cancelled
            and not attempt.interrupted
            and attempt.number < policy.attempts
            and policy.retries(attempt.error)
        )
        self.done.append(attempt)
        self.queued += attempt.queued
        return attempt

    def discarded_tokens(self, attempt: _Attempt) -> int:
        """The tokens a retried attempt used (its evidence is dropped)."""
        if not self.keys or not attempt.retry:
            return 0
        collector = attempt.run.collector
        collector.end_open_streams()
        return tokens_used(collector.materialize(release=True))

    def final(self, attempt: _Attempt) -> _Run:
        """The final attempt's run, with the attempts and ``time.queue`` recorded on it."""
        run = attempt.run
        if len(self.done) > 1:
            run.attempts = tuple(done.record() for done in self.done)
        if self.keys:
            run.evidence.add_observation(
                "queue",
                self.queued,
                kind=ObservationKind.METRIC,
                span_id=None,
                semantic_type=Semantic.TIME_QUEUE,
                unit="s",
                role=ObservationRole.DIAGNOSTIC,
            )
        return run


def tokens_used(trace: Trace | None) -> int:
    """The tokens the spans of ``trace`` used: per span, ``total_tokens`` or the sum of its
    input and output tokens (spans whose usage is an aggregate of others left out)."""
    if trace is None:
        return 0
    total = 0
    for span in trace.spans:
        usage = span.usage
        if (
            not usage
            or usage.get("aggregate") is True
            or span.attributes.get("accounting") == "aggregate"
        ):
            continue
        value = _count(usage.get("total_tokens"))
        if value is None:
            given = _count(usage.get("input_tokens")) or _count(usage.get("prompt_tokens"))
            produced = _count(usage.get("output_tokens")) or _count(usage.get("completion_tokens"))
            value = (given or 0) + (produced or 0)
        total += value
    return total


def _count(value: Any) -> int | None:
    """``value`` as a token count, or ``None`` when it is not a number."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    return None


async def execute_run(
    setup: RunSetup, planned: MatrixRunSpec, turns: LoopTurns | None = None
) -> RunOutput:
    """Execute one planned run of an async task and return its record (statuses per ``_status``).

    Each call of the task (one per attempt, ``_retry``) first takes the run's rate-limit
    budgets (``_limits``) and gets a fresh context, trace and evidence; the run keeps the
    last attempt's. With ``turns``, the run's finishing (scoring, evidence, record) waits
    for its turn of the loop once the task has returned (``_turns``); the run's duration
    leaves that wait out. When the run is cancelled, raises :class:`RunCancelled` holding its
    record."""
    if setup.retries is None and setup.limits is None:  # one call, nothing to wait for
        last = await _call_async(setup, planned, 0.0, 1)
        run = last.run
    else:
        run, last = await _attempted_async(setup, planned)
    finished_then_cancelled = False
    if turns is not None and (wait := turns.take()) is not None:
        waited = time.perf_counter_ns()
        try:
            await wait
        except asyncio.CancelledError:  # the task has returned: its run is finished first
            finished_then_cancelled = True
        run.started += time.perf_counter_ns() - waited  # the wait is not the run's duration
    if last.cancelled:
        _scoring_call(run, setup.registry)
        raise RunCancelled(_finish(setup, run, last.status, ((), ())))
    if last.interrupted:
        _scoring_call(run, setup.registry)
        raise RunInterrupted(_finish(setup, run, last.status, ((), ())))
    call = _scoring_call(run, setup.registry, setup.cassette)
    limits = setup.limits
    if limits is not None and (keys := limit_keys(setup.limit_specs, planned.variant)):
        await charge_all(limits, keys, tokens_used(run.trace))
    scoring = await score_run(setup.scorers, call)
    _add_scorer_evidence(run, call)
    output = _finish(setup, run, last.status, scoring)
    if finished_then_cancelled:
        raise RunCancelled(output)
    return output


async def _attempted_async(setup: RunSetup, planned: MatrixRunSpec) -> tuple[_Run, _Attempt]:
    """The attempts of an async run under its retries and rate limits: the last one's run
    state (with the attempts recorded on it) and the last attempt."""
    attempts = _Attempts(setup, planned)
    limits, keys = setup.limits, attempts.keys

    async def attempt() -> _Attempt:
        queued = 0.0
        if limits is not None and keys:
            queued = await acquire_all(limits, keys)
        try:
            done = attempts.ended(await _call_async(setup, planned, queued, len(attempts.done) + 1))
        finally:
            if limits is not None and keys:
                await release_all(limits, keys)
        if limits is not None and (tokens := attempts.discarded_tokens(done)):
            await charge_all(limits, keys, tokens)
        return done

    if setup.retries is None:
        last = await attempt()
    else:
        retrying = tenacity.AsyncRetrying(**setup.retries.retrying(lambda done: done.retry))
        last = await retrying(attempt)
    return attempts.final(last), last


async def _call_async(
    setup: RunSetup, planned: MatrixRunSpec, queued: float, number: int
) -> _Attempt:
    """One call of an async task in a fresh run state, bounded by ``setup.timeout``."""
    run = _Run(setup, planned)
    ctx = run.ctx
    task_status = TaskStatus.PASSED
    error: BaseException | None = None
    cancelled = interrupted = False
    with bind_collector(run.collector), bind_run_context(ctx), bind_cassette(run.cassette):
        with start_span(ROOT_SPAN, kind=SpanKind.TASK, collector=run.collector) as root:
            run.collector.adoptive_parent = root.id
            deadline: asyncio.Timeout | None = None
            try:
                if setup.timeout is None:
                    run.output = await setup.task(ctx, ctx.case)
                else:
                    async with asyncio.timeout(setup.timeout) as deadline:
                        run.output = await setup.task(ctx, ctx.case)
            except (Exception, SystemExit) as exc:
                late = past_deadline(deadline)
                expired = deadline is not None and deadline.expired()
                if late is not None or (expired and isinstance(exc, TimeoutError)):
                    # Cancelled at the deadline, or ended (raising) after it: the call is
                    # past its timeout whatever it did then.
                    error = run.timed_out(root, setup.timeout or 0.0, late, cause=exc)
                    task_status = TaskStatus.ERRORED
                else:
                    error = exc
                    task_status = run.task_raised(exc, root)
            except asyncio.CancelledError as exc:
                cancelled = True
                error = exc
                root.end(SpanStatus.ERROR, exc)
                run.evidence.errors.insert(0, error_record(exc, stage="cancelled", span_id=root.id))
                task_status = TaskStatus.ERRORED
            except KeyboardInterrupt as exc:
                interrupted = True
                error = exc
                task_status = run.task_raised(exc, root, stage="interrupted")
            else:
                late = past_deadline(deadline)
                if late is not None or (deadline is not None and deadline.expired()):
                    # Returned after its deadline: the task held the event loop (a blocking
                    # call), so the deadline could not cancel it. Timed out all the same.
                    run.output = None
                    error = run.timed_out(root, setup.timeout or 0.0, late)
                    task_status = TaskStatus.ERRORED
    task_status = _closed_cassette(run, task_status)
    duration = (time.perf_counter_ns() - run.started) / 1e9
    return _Attempt(
        run,
        task_status,
        error,
        queued,
        duration,
        number,
        cancelled=cancelled,
        interrupted=interrupted,
    )


def execute_sync_run(
    setup: RunSetup, planned: MatrixRunSpec, loop: asyncio.AbstractEventLoop
) -> RunOutput:
    """Execute one planned run of a sync task in the calling (worker) thread.

    Call it inside a fresh :mod:`contextvars` context. ``loop`` is the
    experiment's event loop, running in another thread: the rate-limit budgets are
    taken and given back there. Attempts and timeouts as for :func:`execute_run`
    (``_retry``: a sync task past its timeout is left running in its helper thread).
    Raises :class:`RunInterrupted` holding the run's record when the task raised
    ``KeyboardInterrupt``.
    """
    if setup.retries is None and setup.limits is None:  # one call, nothing to wait for
        last = _call_sync(setup, planned, loop, 0.0, 1)
        run = last.run
    else:
        run, last = _attempted_sync(setup, planned, loop)
    if last.interrupted:
        _scoring_call(run, setup.registry)
        raise RunInterrupted(_finish(setup, run, last.status, ((), ())))
    call = _scoring_call(run, setup.registry, setup.cassette)
    limits = setup.limits
    if (
        limits is not None
        and (keys := limit_keys(setup.limit_specs, planned.variant))
        and (tokens := tokens_used(run.trace))
    ):
        run_on_loop(loop, charge_all(limits, keys, tokens))
    scoring = (
        score_run_inline(setup.scorers, call)
        if setup.scores_inline
        else run_on_loop(loop, score_run(setup.scorers, call))
    )
    _add_scorer_evidence(run, call)
    return _finish(setup, run, last.status, scoring)


def _attempted_sync(
    setup: RunSetup, planned: MatrixRunSpec, loop: asyncio.AbstractEventLoop
) -> tuple[_Run, _Attempt]:
    """:func:`_attempted_async` for a sync run, in its worker thread."""
    attempts = _Attempts(setup, planned)
    limits, keys = setup.limits, attempts.keys

    def attempt() -> _Attempt:
        queued = 0.0
        if limits is not None and keys:
            queued = run_on_loop(loop, acquire_all(limits, keys))
        try:
            done = attempts.ended(_call_sync(setup, planned, loop, queued, len(attempts.done) + 1))
        finally:
            if limits is not None and keys:
                run_on_loop(loop, release_all(limits, keys))
        if limits is not None and (tokens := attempts.discarded_tokens(done)):
            run_on_loop(loop, charge_all(limits, keys, tokens))
        return done

    if setup.retries is None:
        last = attempt()
    else:
        last = tenacity.Retrying(**setup.retries.retrying(lambda done: done.retry))(attempt)
    return attempts.final(last), last


def _call_sync(
    setup: RunSetup,
    planned: MatrixRunSpec,
    loop: asyncio.AbstractEventLoop,
    queued: float,
    number: int,
) -> _Attempt:
    """One call of a sync task in a fresh run state, bounded by ``setup.timeout``."""
    run = _Run(setup, planned)
    ctx = run.ctx
    task_status = TaskStatus.PASSED
    error: BaseException | None = None
    interrupted = False

    def call() -> Any:
        output = setup.task(ctx, ctx.case)
        if inspect.isawaitable(output):
            output = run_on_loop(loop, output)
        return output

    with bind_collector(run.collector), bind_run_context(ctx), bind_cassette(run.cassette):
        with start_span(ROOT_SPAN, kind=SpanKind.TASK, collector=run.collector) as root:
            run.collector.adoptive_parent = root.id
            try:
                run.output = (
                    call() if setup.timeout is None else call_with_deadline(call, setup.timeout)
                )
            except TaskTimedOut as exc:
                error = exc
                task_status = run.task_raised(exc, root, stage="timeout")
            except (Exception, SystemExit) as exc:
                error = exc
                task_status = run.task_raised(exc, root)
            except KeyboardInterrupt as exc:
                interrupted = True
                error = exc
                task_status = run.task_raised(exc, root, stage="interrupted")
    task_status = _closed_cassette(run, task_status)
    duration = (time.perf_counter_ns() - run.started) / 1e9
    return _Attempt(run, task_status, error, queued, duration, number, interrupted=interrupted)


def _closed_cassette(run: _Run, task_status: TaskStatus) -> TaskStatus:
    """The attempt's status once its cassette is kept (``_cassette.close_cassette``): a
    request that matched nothing errors the attempt, whatever the task made of it."""
    if run.cassette is not None and close_cassette(run.cassette, run.evidence):
        return TaskStatus.ERRORED
    return task_status


def _bind_referenced_assets(run: _Run) -> None:
    """Tracked asset versions that instrumentors referenced on spans (a reference of kind
    ``asset`` with attributes ``version`` and ``kind``) join the run's ``asset_versions``,
    as ``ctx.attach_tracked_asset`` would add them; an asset the task bound itself keeps
    its binding."""
    if run.trace is None:
        return
    for span in run.trace.spans:
        for reference in span.references:
            version = reference.attributes.get("version")
            kind = reference.attributes.get("kind")
            if reference.kind == "asset" and isinstance(version, str) and isinstance(kind, str):
                run.evidence.assets.setdefault(
                    reference.id, AssetBinding(version=version, kind=kind)
                )


def _scoring_call(
    run: _Run, registry: SemanticRegistry, cassette: CassetteSetup | None = None
) -> ScoringCall:
    """Freeze the run's trace and observations, add the run totals of additive evidence
    (accounting summaries, ``records._run_accounting``); return the call the scorers
    receive (``output`` is ``None`` when the task raised). Streams the task left open
    end first (reason ``open_at_run_end``, ``abp._streams``), with what they read."""
    run.collector.end_open_streams()
    run.trace = merge_attached(run.collector.materialize(release=True), run.evidence.traces)
    for found in native_observations(run.trace):
        # What native instrumentors put on their spans, as observations of the run.
        run.evidence.add_observation(
            found.name,
            found.value,
            kind=found.kind,
            span_id=found.span_id,
            semantic_type=found.semantic_type,
            unit=found.unit,
            direction=found.direction,
            role=found.role,
            tags=found.tags,
        )
    _bind_referenced_assets(run)
    for ref, payload in run.collector.payloads:
        # Payloads the capture policy moved out of the trace become run artifacts.
        run.evidence.add_artifact(
            ref.name,
            payload,
            media_type=ref.media_type,
            tags=None,
            span_id=ref.span_id,
            artifact_id=ref.id,
        )
    _add_accounting(run, registry, "direct")
    planned = run.planned
    return ScoringCall(
        case=planned.case,
        variant=planned.variant,
        output=run.output,
        observations=run.observations,
        spans=run.trace.spans,
        selected_spans=run.trace.spans,
        ctx=run.ctx,
        cassettes=None
        if cassette is None
        else cassette.for_scoring(planned.case.id, planned.variant.id, planned.repeat),
    )


def _add_scorer_evidence(run: _Run, call: ScoringCall) -> None:
    """What the scorers recorded besides their scores joins the run's observations,
    artifacts and asset versions (``_scoring.add_scorer_evidence``)."""
    if call.evidence:
        add_scorer_evidence(run.evidence, call.evidence)
        run.observations = tuple(run.evidence.observations)


def _add_accounting(run: _Run, registry: SemanticRegistry, pool: Pool) -> None:
    """Record the accounting diagnostics of the run's ``pool`` of evidence, and the
    summaries only the trace can give (the others are computed when read);
    ``run.observations`` is the evidence then."""
    assert run.trace is not None
    evidence = run.evidence
    evidence.observations.extend(
        accounting_observations(
            evidence.observations,
            registry,
            functools.partial(SpanIndex.of, run.trace),  # built only if a pool needs it
            case_id=evidence.case_id,
            variant_id=evidence.variant_id,
            trace_dependent_only=True,
            pools=(pool,),
        )
    )
    run.observations = tuple(evidence.observations)


def _finish(
    setup: RunSetup, run: _Run, task_status: TaskStatus, scoring: ScoringResult
) -> RunOutput:
    evidence, planned = run.evidence, run.planned
    scores, scorer_errors = scoring
    evidence.errors.extend(scorer_errors)
    if setup.derivers and run.trace is not None:
        derive_run(
            setup.derivers,
            evidence,
            case=planned.case,
            variant=planned.variant,
            observations=run.observations,
            scores=scores,
            trace=run.trace,
            registry=setup.registry,
        )
        _add_accounting(run, setup.registry, "derived")
    # Policies come last before the status: after scoring and any per-run derivation.
    if task_status is TaskStatus.PASSED and setup.policies:
        run.observations += policy_observations(
            setup.policies,
            scores,
            run.observations,
            setup.registry,
            case_id=planned.case.id,
            variant_id=planned.variant.id,
        )
    if task_status is TaskStatus.PASSED and any(
        error.stage == "context" for error in evidence.errors
    ):
        task_status = TaskStatus.FAILED
    status, outcome = decide_outcome(task_status, scores, run.observations)
    info = RunInfo(
        id=planned.run_id,
        experiment=setup.experiment_id,
        benchmark=setup.benchmark_id,
        case=planned.case.id,
        variant=planned.variant.id,
        index=planned.index,
        status=status,
        outcome=outcome,
        started_at=run.started_at,
        duration=(time.perf_counter_ns() - run.started) / 1e9,
        accounting=ACCOUNTING_VERSION,
        repeat=planned.repeat,
    )
    errors, scores, trace = portable_evidence(evidence.errors, scores, run.trace, setup.base_dir)
    record = RunRecord(
        run=info,
        case=planned.case,
        variant=planned.variant,
        # What the task returned and the scorers' reasons are recorded with secrets redacted
        # (the scorers saw them as they were); nothing else of them changes.
        output=redact_value(run.output, setup.capture),
        scores=_redacted_reasons(scores, setup.capture),
        observations=run.observations,
        trace=trace,
        artifacts=tuple(evidence.artifacts),
        errors=errors,
        asset_versions=dict(evidence.assets),
        attempts=run.attempts,
    )
    return RunOutput(record=record, payloads=evidence.payloads)


def _redacted_reasons(
    scores: Sequence[ScoreRecord], policy: CapturePolicy
) -> tuple[ScoreRecord, ...]:
    """``scores`` with secrets in their reasons redacted (the same records when none held
    one)."""
    out = []
    for score in scores:
        reason = score.reason
        redacted = reason if reason is None else redact_text(reason, policy)
        out.append(score if redacted is reason else score.model_copy(update={"reason": redacted}))
    return tuple(out)
