"""The run session: one experiment decided and ready to execute.

:meth:`RunSession.start` (a new experiment) and :meth:`RunSession.resume` (the
missing runs of a recorded one) decide everything before anything runs or is
written: the task and the scorers' targets are resolved, the derivers and the
instrumentation prepared, the plan built, the source files hashed, the
experiment record and the sink (and its record directory) fixed, and for a
resume the recorded runs loaded and the changes since the experiment began
checked. Both give the same kind of session; :meth:`RunSession.execute` runs it.

Order of work in :meth:`~RunSession.execute`:

1. ``sink.start`` (``sink.resume`` for a resumed session) and
   ``experiment_started``;
2. the executor runs the session's runs, handing each to ``sink.run_finished``
   as it ends (policies are checked inside each run);
3. when the spec has ``post_derive`` entries, they run over every run (the
   recorded ones too) and ``sink.post_derived`` stores what they add;
4. the :class:`ExperimentSummary` goes to ``sink.finish``, then
   ``experiment_finished``;
5. a lean session without ``post_derive`` entries, which kept only status counts of its
   runs, reads its result back from the now complete record (``_lean``).

When the experiment is cancelled (Ctrl-C) during step 2, the runs that finished
(and, for async tasks, the cancelled ones, recorded as errored with stage
``cancelled``) are handed to the sink, ``sink.finish`` gets a summary with
``complete: false``, and the cancellation is re-raised. A task raising
``KeyboardInterrupt`` ends it the same way (its run recorded as errored with stage
``interrupted``), then :class:`TaskInterrupted` (a ``KeyboardInterrupt``) is raised.
Either way :attr:`RunSession.interruption` then says what was recorded.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from autobench.abp import DEFAULT_CAPTURE_POLICY, CapturePolicy
from autobench.core.derive import PreparedDeriver
from autobench.core.native import (
    InstrumentationSession,
    ResolvedInstrumentation,
    resolve_instrumentation,
)
from autobench.core.planning import (
    BenchmarkPlan,
    MatrixRunSpec,
    PlannedRuns,
    build_benchmark_plan,
    new_experiment_id,
)
from autobench.core.plugins import AutobenchPlugins, Executor
from autobench.core.runtime._cassette import (
    CassetteSetup,
    check_resumed_cassette,
    ensure_transports,
)
from autobench.core.runtime._collection import runs_collection
from autobench.core.runtime._derive import prepare_derivers
from autobench.core.runtime._environment import capture_environment, collect_benchmark_source_files
from autobench.core.runtime._executor import ExecutorFactory
from autobench.core.runtime._experiment import StatusTally, build_experiment_record, build_summary
from autobench.core.runtime._lean import LeanKeep, lean_run, recorded_result
from autobench.core.runtime._limits import LocalLimits
from autobench.core.runtime._post_derive import post_derive_runs
from autobench.core.runtime._progress import (
    ProgressCallback,
    ProgressEvent,
    ProgressEventKind,
    deliver,
)
from autobench.core.runtime._resume import (
    ResumeError,
    describe_changes,
    load_for_resume,
    plan_order,
    resume_changes,
)
from autobench.core.runtime._retry import RetryPolicy
from autobench.core.runtime._run import RunInterrupted, RunSetup, TaskInterrupted
from autobench.core.runtime._scoring import scores_inline
from autobench.core.runtime._tasks import TaskResolutionError, is_async_task, resolve_task
from autobench.core.scoring import ScorerSpec
from autobench.core.spec import BenchmarkSpec
from autobench.records import (
    CassetteInfo,
    ClosableSink,
    DirectorySink,
    ExperimentRecord,
    ExperimentResult,
    ExperimentSink,
    ExperimentSummary,
    ListenedSink,
    PreparingSink,
    RecordDirectoryWriter,
    RecordingError,
    ResumeInfo,
    RunRecord,
    safe_segment,
)

_log = logging.getLogger("autobench.runtime")

DEFAULT_RECORD_ROOT = Path(".autobench")
"""Where ``record_dir="default"`` puts records: ``.autobench/<benchmark>/<experiment>/``,
relative to the working directory."""

_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")


def default_record_dir(benchmark_id: str, experiment_id: str) -> Path:
    """``.autobench/<benchmark>/<experiment>``: each id as it is when it is a plain file name
    (letters, digits, ``_``, ``.``, ``-``; at most 100 characters), else its safe segment."""
    return DEFAULT_RECORD_ROOT / _dir_name(benchmark_id) / _dir_name(experiment_id)


def attach_listeners(
    sink: ListenedSink,
    root: Path,
    experiment: ExperimentRecord,
    resumed: bool,
    prepared: _Prepared,
) -> int:
    """Give ``sink`` the record listeners of the plugins (``autobench_record_listener``);
    return how many it got."""
    plugins = prepared.plugins
    if plugins is None:
        return 0
    answers = plugins.manager.hook.autobench_record_listener(
        record_dir=root, experiment=experiment, resumed=resumed
    )
    attached = 0
    for listener in answers:
        if listener is not None:
            sink.add_listener(listener)
            attached += 1
    return attached


def _dir_name(identifier: str) -> str:
    return identifier if _PLAIN_NAME.fullmatch(identifier) else safe_segment(identifier)


@dataclass(frozen=True)
class _Prepared:
    """What a session needs from the spec, resolved before anything is recorded or run."""

    task: Callable[..., Any]
    scorers: tuple[ScorerSpec, ...]
    derivers: tuple[PreparedDeriver, ...]
    instrumentation: ResolvedInstrumentation
    runs: Sequence[MatrixRunSpec]
    files: Mapping[str, str]
    executor: ExecutorFactory
    executor_options: Mapping[str, Any]
    retries: RetryPolicy | None
    cassette: CassetteSetup | None = None
    plugins: AutobenchPlugins | None = None

    @classmethod
    def of(
        cls,
        spec: BenchmarkSpec,
        source_files: Mapping[str, str] | None,
        plugins: AutobenchPlugins | None,
        executor: str | None,
        executor_options: Mapping[str, Any] | None = None,
    ) -> tuple[_Prepared, BenchmarkPlan]:
        """The prepared parts of ``spec`` and its plan. The integrations and the executor are
        those of ``plugins`` (default: the spec's, ``spec.plugins``); the executor is
        ``executor``, else the spec's, else ``local`` (its options are the spec's when it
        names the same executor), with ``executor_options`` laid over them. Raises
        :class:`UnknownExecutorError` for a name the
        plugins do not know."""
        plugins = spec.plugins if plugins is None else plugins
        chosen = spec.executor
        name = executor or (chosen.name if chosen is not None else "local")
        factory: ExecutorFactory = plugins.executors.get(name)
        options = chosen.options if chosen is not None and chosen.name == name else {}
        options = {**options, **(executor_options or {})}
        task = resolve_task(spec)
        derivers = prepare_derivers(spec)  # before anything is recorded: reads pricing files once
        scorers = tuple(scorer.prepare(spec.base_dir) for scorer in spec.scoring)
        plan = build_benchmark_plan(spec)
        files = collect_benchmark_source_files(spec) if source_files is None else source_files
        # Strict instrumentation fails here, before anything is recorded or run.
        instrumentation = resolve_instrumentation(
            spec.instrumentation, spec.instrumentors, plugins.integrations
        )
        retries = None
        if spec.task is not None and spec.task.retries is not None:
            try:
                retries = RetryPolicy.of(spec.task.retries, spec.base_dir)
            except ValueError as exc:
                where = f"{spec.task.origin}: " if spec.task.origin else ""
                raise TaskResolutionError(f"{where}retries.on: {exc}") from exc
        prepared = cls(
            task, scorers, derivers, instrumentation, plan.runs, files, factory, options, retries
        )
        prepared = dataclasses.replace(prepared, plugins=plugins)
        return prepared, plan


@dataclass(frozen=True, slots=True)
class Interruption:
    """What an interrupted session (Ctrl-C, or a task raising ``KeyboardInterrupt``) left
    in its sink: ``runs`` handed over by this session, whether the summary
    (``complete: false``) was stored, and ``run_id`` of the run whose task raised
    ``KeyboardInterrupt`` (``None`` for Ctrl-C)."""

    runs: int
    summary_stored: bool
    run_id: str | None = None


class ExecutedExperiment:
    """An executed session's outcome (:meth:`RunSession.execute_detached`): its result,
    kept, or read back from the record when asked (a lean session that wrote a derived
    store as runs landed), holding only the record directory and the plugins meanwhile."""

    __slots__ = ("_kept", "_read_from")

    def __init__(
        self,
        kept: ExperimentResult | None = None,
        *,
        read_from: tuple[Path, AutobenchPlugins | None, bool] | None = None,
    ) -> None:
        self._kept = kept
        self._read_from = read_from

    def result(self) -> ExperimentResult:
        """The experiment result, as :meth:`RunSession.execute` returns it. A result read
        back is read anew at each call (nothing is cached: the caller holds it); raises
        what :func:`~autobench.records.replay_experiment` raises
        (:class:`~autobench.records.MissingRecordError`,
        :class:`~autobench.records.RecordFormatError`)."""
        if self._kept is not None:
            return self._kept
        assert self._read_from is not None
        root, plugins, derived = self._read_from
        return recorded_result(root, plugins, derived=derived)


@dataclass
class _SessionState:
    """What a session learns while it executes (the session itself is frozen)."""

    interruption: Interruption | None = None


@dataclass(frozen=True)
class RunSession:
    """One experiment, decided: what runs, where its evidence goes, and what came before.

    Build it with :meth:`start` or :meth:`resume`, run it with :meth:`execute` (once).
    ``runs`` are the runs to execute (plan order); ``previous`` the runs already recorded
    (empty unless resumed); ``resumed`` what the summary says of the resume; ``sink`` where
    records go (``None``: nowhere, artifact payloads stay in the result).
    """

    spec: BenchmarkSpec
    experiment: ExperimentRecord
    runs: Sequence[MatrixRunSpec]
    sink: ExperimentSink | None
    previous: tuple[RunRecord, ...]
    resumed: ResumeInfo | None
    _prepared: _Prepared
    _state: _SessionState = field(default_factory=_SessionState, compare=False, repr=False)

    @property
    def experiment_id(self) -> str:
        return self.experiment.experiment_id

    @property
    def interruption(self) -> Interruption | None:
        """After :meth:`execute` was interrupted: what it recorded; ``None`` otherwise (and
        when the interruption came before any run started)."""
        return self._state.interruption

    @property
    def root_dir(self) -> Path | None:
        """The record directory, when the sink stores into one."""
        return self.sink.root if isinstance(self.sink, DirectorySink) else None

    @classmethod
    def start(
        cls,
        spec: BenchmarkSpec,
        *,
        experiment_id: str | None = None,
        sink: ExperimentSink | None = None,
        record_dir: Path | Literal["default"] | None = None,
        source_files: Mapping[str, str] | None = None,
        plugins: AutobenchPlugins | None = None,
        executor: str | None = None,
        executor_options: Mapping[str, Any] | None = None,
        cassette: CassetteSetup | None = None,
    ) -> RunSession:
        """A new experiment of ``spec``: every case x variant.

        ``experiment_id`` defaults to ``exp_<benchmark slug>_<UTC YYYYmmddTHHMMSS>Z_<4 hex>``.
        Records go to ``sink``, or to a :class:`RecordDirectoryWriter` on ``record_dir``
        (``"default"``: :func:`default_record_dir`); not both (``ValueError``).
        ``source_files`` (``{path: sha256}``) defaults to
        :func:`collect_benchmark_source_files`. The native integrations and the executors
        are those of ``plugins`` (default: ``spec.plugins``, the plugins the spec was loaded
        with); ``executor`` names the executor, over the spec's ``executor`` (default
        ``local``) and ``executor_options`` options laid over the spec's for it (not part
        of the spec: the record does not keep them). ``cassette`` records or replays each
        run's HTTP exchanges (``_cassette``; the record's ``experiment.yaml`` says which).
        Raises :class:`TaskResolutionError` when the task cannot be resolved,
        :class:`ScorerResolutionError` when a scorer's target (a ``python`` scorer's
        function, a ``schema`` scorer's model) cannot and :class:`UnknownExecutorError`
        for an executor the plugins do not know; nothing is written.
        """
        if sink is not None and record_dir is not None:
            raise ValueError("give a sink or a record directory, not both")
        prepared, plan = _Prepared.of(spec, source_files, plugins, executor, executor_options)
        prepared = dataclasses.replace(prepared, cassette=cassette)
        experiment_id = experiment_id or new_experiment_id(spec.benchmark.id)
        if record_dir is not None:
            if record_dir == "default":
                record_dir = default_record_dir(spec.id, experiment_id)
            sink = RecordDirectoryWriter(Path(record_dir))
        experiment = build_experiment_record(
            spec,
            plan,
            experiment_id=experiment_id,
            started_at=datetime.now(UTC),
            files=prepared.files,
            environment=capture_environment(spec.base_dir),
        )
        if cassette is not None:
            experiment = experiment.model_copy(
                update={"cassette": CassetteInfo(mode=cassette.mode, **cassette.source)}
            )
        return cls(spec, experiment, prepared.runs, sink, (), None, prepared)

    @classmethod
    def resume(
        cls,
        spec: BenchmarkSpec,
        record_dir: Path | str,
        *,
        sink: ExperimentSink | None = None,
        experiment_id: str | None = None,
        force: bool = False,
        source_files: Mapping[str, str] | None = None,
        plugins: AutobenchPlugins | None = None,
        executor: str | None = None,
        executor_options: Mapping[str, Any] | None = None,
        cassette: CassetteSetup | None = None,
    ) -> RunSession:
        """The missing runs of the experiment recorded in ``record_dir``: the runs of its
        recorded plan without a ``run.yaml``, under its experiment id.

        Records go to ``sink`` (a :class:`DirectorySink`; default: a
        :class:`RecordDirectoryWriter` on ``record_dir``). A change of the spec, dataset
        or source files since the experiment began raises :class:`ResumeError` unless
        ``force`` (the summary then records what changed); so does an ``experiment_id``
        other than the recorded one, or a ``run.yaml`` that cannot be read. Raises
        ``TypeError`` for a sink that cannot resume. ``plugins``, ``executor`` and
        ``executor_options`` and ``cassette`` as for
        :meth:`start` (the executor may differ from the one the experiment began with; the
        cassette must be the one it began with: ``ResumeError`` otherwise).
        """
        root = Path(record_dir)
        if sink is None:
            sink = RecordDirectoryWriter(root)
        elif not isinstance(sink, DirectorySink):
            raise TypeError(
                f"resuming needs a sink that can resume a record directory (a DirectorySink "
                f"such as RecordDirectoryWriter), not {type(sink).__name__}"
            )
        prepared, plan = _Prepared.of(spec, source_files, plugins, executor, executor_options)
        prepared = dataclasses.replace(prepared, cassette=cassette)
        experiment, previous = load_for_resume(root)
        check_resumed_cassette(root, experiment.cassette, cassette)
        if experiment_id is not None and experiment_id != experiment.experiment_id:
            raise ResumeError(
                f"cannot resume {root} as {experiment_id!r}: it records experiment "
                f"{experiment.experiment_id!r}",
                path=root,
            )
        current = build_experiment_record(
            spec,
            plan,
            experiment_id=experiment.experiment_id,
            started_at=datetime.now(UTC),
            files=prepared.files,
            environment={},
        )
        missing = len(experiment.plan) - len(previous)
        changed = resume_changes(experiment, current)
        if changed and missing and not force:  # a complete record has nothing to refuse
            raise ResumeError(
                describe_changes(root, experiment, current), path=root / "experiment.yaml"
            )
        done = {run.run_id for run in previous}
        recorded = {planned.id for planned in experiment.plan}
        runs: Sequence[MatrixRunSpec]
        if isinstance(plan.runs, PlannedRuns):  # no run (nor case) built to choose them
            planned = plan.runs
            runs = planned.select(
                position
                for position in range(len(planned))
                if (run_id := planned.run_id(position)) in recorded and run_id not in done
            )
        else:
            runs = tuple(
                run for run in plan.runs if run.run_id in recorded and run.run_id not in done
            )
        resumed = ResumeInfo(
            started_at=datetime.now(UTC), missing=missing, forced=bool(changed), changed=changed
        )
        return cls(spec, experiment, runs, sink, previous, resumed, prepared)

    async def execute(
        self,
        *,
        concurrency_limit: int = 1,
        progress: ProgressCallback | None = None,
        capture: CapturePolicy | None = None,
        listeners: bool = True,
        lean: bool = False,
    ) -> ExperimentResult:
        """Run the session (see the module docstring for the order of work) and return the
        experiment result: every run, the recorded ones first in plan order when resumed.

        ``concurrency_limit`` (>= 1, else ``ValueError``) bounds the active runs;
        ``progress`` receives :class:`ProgressEvent` values; ``capture`` is the
        :class:`CapturePolicy` applied to span payloads (default: redact secrets, truncate
        strings over 64 KiB). With ``listeners`` (the default) a sink that takes
        :class:`~autobench.records.RecordListener` objects gets those of the plugins'
        ``autobench_record_listener`` hook (autobench-index's columnar index, written as runs
        land); ``False`` asks for none. With ``lean`` (only for a session recording into a
        directory, else ``ValueError``) the result is that of
        ``replay_experiment(root_dir, evidence_only=True)``: ``result.evidence_only`` is
        true, the outputs and traces are in the run files. When ``listeners`` attached a record
        listener (a derived store written as runs land: autobench-index) and the spec has no
        ``post_derive`` entries, a lean session keeps, of each finished run, only its status
        counted by variant, what the summary needs (memory that does not grow with the
        runs); once ``sink.finish`` has returned it reads the result back from the record
        (``_lean.recorded_result``: through the plugins' ``autobench_indexed_result`` hook
        when the derived store is fresh, else by that replay). Otherwise it keeps the
        evidence of each run (``_lean.lean_run``: no output, no trace; about a third of the
        memory), for the post-derivers and the result, and returns it.
        Raises :class:`RecordingError` when the sink cannot store,
        and :class:`TaskInterrupted` (a ``KeyboardInterrupt``) once the experiment has ended
        because a task raised ``KeyboardInterrupt``.
        """
        outcome = await self.execute_detached(
            concurrency_limit=concurrency_limit,
            progress=progress,
            capture=capture,
            listeners=listeners,
            lean=lean,
        )
        return outcome.result()

    async def execute_detached(
        self,
        *,
        concurrency_limit: int = 1,
        progress: ProgressCallback | None = None,
        capture: CapturePolicy | None = None,
        listeners: bool = True,
        lean: bool = False,
    ) -> ExecutedExperiment:
        """:meth:`execute`, whose result is taken from the returned
        :class:`ExecutedExperiment` (same arguments, same errors while the runs go on). The
        outcome holds nothing of the session: when a lean session reads its result back from
        the record, it does so when :meth:`ExecutedExperiment.result` is called, so a caller
        that drops the session and the spec first (their cases and plan: about 120 MB at a
        million planned runs) reads the record back without them (``autobench run`` does).
        """
        if concurrency_limit < 1:
            raise ValueError(f"concurrency_limit must be at least 1, got {concurrency_limit}")
        if lean and self.root_dir is None:
            raise ValueError(
                "lean keeps only the evidence of each run: it needs a session recording "
                "into a directory (the run files hold the rest)"
            )
        spec, experiment, sink, prepared = self.spec, self.experiment, self.sink, self._prepared
        tally = StatusTally()  # the runs the executor keeps nothing of (``keep``)
        keep = LeanKeep(tally) if lean else None
        started = time.perf_counter()
        total = len(self.runs)
        with InstrumentationSession(prepared.instrumentation, capture_policy=capture) as session:
            setup = RunSetup(
                experiment_id=self.experiment_id,
                benchmark_id=spec.benchmark.id,
                task=prepared.task,
                task_is_async=is_async_task(prepared.task),
                scorers=prepared.scorers,
                scores_inline=scores_inline(prepared.scorers),
                policies=spec.policies,
                registry=spec.registry,
                derivers=prepared.derivers,
                capture=DEFAULT_CAPTURE_POLICY if capture is None else capture,
                diagnostics=session.diagnostics(),
                base_dir=spec.base_dir,
                prepare=sink.prepare_run if isinstance(sink, PreparingSink) else None,
                timeout=spec.task.timeout if spec.task is not None else None,
                retries=prepared.retries,
                limit_specs=spec.limits,
                limits=LocalLimits(spec.limits) if spec.limits else None,
                instrumentation=prepared.instrumentation,
                cassette=prepared.cassette,
                keep=keep,
            )
            if prepared.cassette is not None:
                ensure_transports()
            executor: Executor = prepared.executor(
                setup,
                self.runs,
                concurrency_limit=concurrency_limit,
                sink=sink,
                progress=progress,
                options=prepared.executor_options,
            )  # before the sink starts: an executor refusing its options leaves no record
            attached = 0
            if listeners and isinstance(sink, ListenedSink) and isinstance(sink, DirectorySink):
                attached = attach_listeners(
                    sink, sink.root, experiment, self.resumed is not None, prepared
                )
            # A lean session that does not post-derive and whose record gets a derived store
            # as runs land reads its runs back from the record (``_lean``).
            read_back = keep is not None and attached > 0 and not spec.post_derive
            if keep is not None:
                keep.read_back = read_back
            if isinstance(sink, DirectorySink) and self.resumed is not None:
                sink.resume(experiment)
            elif sink is not None:
                sink.start(experiment)
            deliver(
                progress,
                ProgressEvent(ProgressEventKind.EXPERIMENT_STARTED, self.experiment_id, total, 0),
            )
            try:
                with runs_collection():
                    new_runs = await executor.run()
            except asyncio.CancelledError:
                finished = tally.copy().add(executor.finished)
                self._finish_interrupted(finished, time.perf_counter() - started, None)
                raise
            except RunInterrupted as stop:
                finished = tally.copy().add(executor.finished)
                self._finish_interrupted(finished, time.perf_counter() - started, stop.run_id)
                raise TaskInterrupted(stop.run_id) from None
            except BaseException:
                # A storage failure (or a defect) ends the experiment here: the runs handed
                # to the sink before it are still stored, and no temporary file is left for
                # the process's exit to strand, so the sink's background work ends first.
                if isinstance(sink, ClosableSink):
                    sink.close()
                raise
        done = tally.add(new_runs).runs
        runs: tuple[RunRecord, ...] = ()
        if not read_back:
            previous = tuple(map(lean_run, self.previous)) if lean else self.previous
            runs = plan_order(experiment, previous + new_runs) if previous else new_runs
        try:
            if spec.post_derive:
                runs, post_derived = post_derive_runs(spec.post_derive, runs, spec.registry)
                if sink is not None:
                    sink.post_derived(post_derived)
            tally.add(self.previous)
            summary = self._summary(tally, time.perf_counter() - started, done=done)
            if sink is not None:
                sink.finish(summary)
        except BaseException:
            # The experiment fails after its runs (a post-deriver raised, post_derived.yaml
            # could not be written): as above, the sink's background work (a thread, a
            # record writer process) ends with it rather than outlive it in the program.
            if isinstance(sink, ClosableSink):
                sink.close()
            raise
        deliver(
            progress,
            ProgressEvent(
                ProgressEventKind.EXPERIMENT_FINISHED,
                self.experiment_id,
                total,
                executor.completed,
                payload={"duration": summary.duration, "counts": summary.status.model_dump()},
            ),
        )
        if read_back:
            assert self.root_dir is not None  # lean: checked above
            # Read when asked: the outcome holds nothing of the running phase (the
            # executor's slot per planned run, the runs' shared setup, the plan).
            return ExecutedExperiment(read_from=(self.root_dir, prepared.plugins, listeners))
        return ExecutedExperiment(
            ExperimentResult(
                experiment=experiment,
                runs=runs,
                summary=summary,
                root_dir=self.root_dir,
                artifact_payloads=executor.payloads,
                registry=spec.registry,
                evidence_only=lean,
            )
        )

    def _summary(self, runs: StatusTally, duration: float, *, done: int) -> ExperimentSummary:
        """The summary of ``runs`` (every run of the experiment); a resumed session's says
        how many runs it added (``done``)."""
        summary = build_summary(self.experiment, runs, duration=duration)
        if self.resumed is None:
            return summary
        resumed = self.resumed.model_copy(update={"runs": max(done, 0)})
        return summary.model_copy(update={"resumed": resumed})

    def _finish_interrupted(
        self, finished: StatusTally, duration: float, run_id: str | None
    ) -> None:
        """After a cancellation or a task's ``KeyboardInterrupt`` (``run_id``): write the
        summary of the runs handed to the sink so far (``complete: false``) and note what
        was recorded (:attr:`interruption`); a storage failure is logged, the interruption
        goes on."""
        stored = False
        if self.sink is not None:
            runs = finished.copy().add(self.previous)
            summary = self._summary(runs, duration, done=finished.runs)
            try:
                self.sink.finish(summary.model_copy(update={"complete": False}))
                stored = True
            except RecordingError:
                _log.warning(
                    "could not record the summary of the interrupted experiment", exc_info=True
                )
        self._state.interruption = Interruption(finished.runs, stored, run_id)
