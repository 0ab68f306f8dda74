"""The entry points: run a :class:`BenchmarkSpec` (or a spec file) and get an ExperimentResult.

Order of work in :func:`run_benchmark_spec`:

1. resolve the task and the scorers' targets (a :class:`TaskResolutionError`
   or :class:`ScorerResolutionError` is raised here, before anything is
   recorded or run) and build the plan;
2. build the :class:`ExperimentRecord`, call ``sink.start`` and send
   ``experiment_started``;
3. execute the matrix (``_executor``), handing each run to
   ``sink.run_finished`` as it ends (policies are checked inside each run);
4. when the spec has ``post_derive`` entries, run them over all runs
   (``_post_derive``), append their observations to the returned runs and
   hand them to ``sink.post_derived``;
5. build the :class:`ExperimentSummary`, call ``sink.finish`` and send
   ``experiment_finished``.

With ``resume_from`` (a record directory) step 2 loads the recorded experiment
instead (``_resume``): the changes since it began are checked, ``sink.resume``
replaces ``sink.start``, only the runs of the recorded plan without a
``run.yaml`` are executed, and post-derivation and the summary cover every
run. When the experiment is cancelled (Ctrl-C) during step 3, the runs that
finished (and, for async tasks, the cancelled ones, recorded as errored with
stage ``cancelled``) are handed to the sink, ``sink.finish`` gets a summary
with ``complete: false``, and the cancellation is re-raised.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from autobench.abp import DEFAULT_CAPTURE_POLICY, CapturePolicy
from autobench.core.native import InstrumentationSession, resolve_instrumentation
from autobench.core.planning import build_benchmark_plan, new_experiment_id
from autobench.core.plugins import integration_entries
from autobench.core.runtime._derive import prepare_derivers
from autobench.core.runtime._environment import capture_environment, collect_benchmark_source_files
from autobench.core.runtime._executor import MatrixExecutor
from autobench.core.runtime._experiment import build_experiment_record, build_summary
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
from autobench.core.runtime._run import RunSetup
from autobench.core.runtime._scoring import scores_inline
from autobench.core.runtime._tasks import is_async_task, resolve_task
from autobench.core.spec import BenchmarkSpec, load_benchmark_spec
from autobench.records import (
    ExperimentRecord,
    ExperimentResult,
    ExperimentSink,
    PreparingSink,
    RecordingError,
    ResumeInfo,
    RunRecord,
)

_log = logging.getLogger("autobench.runtime")


async def run_benchmark_spec(
    spec: BenchmarkSpec,
    *,
    experiment_id: str | None = None,
    concurrency_limit: int = 1,
    sink: ExperimentSink | None = None,
    progress: ProgressCallback | None = None,
    source_files: Mapping[str, str] | None = None,
    capture: CapturePolicy | None = None,
    resume_from: str | Path | None = None,
    force: bool = False,
) -> ExperimentResult:
    """Run every case x variant of ``spec`` and return the experiment result.

    ``experiment_id`` defaults to ``exp_<benchmark slug>_<UTC YYYYmmddTHHMMSS>Z_<4 hex>``.
    ``concurrency_limit`` (>= 1, else ``ValueError``) bounds the active runs.
    ``sink`` receives the records as they are produced; without one, artifact
    payloads are returned in ``result.artifact_payloads[(run_id, artifact_id)]``.
    ``progress`` receives :class:`ProgressEvent` values. ``source_files``
    (``{path: sha256}``) defaults to :func:`collect_benchmark_source_files`.
    ``capture`` is the :class:`CapturePolicy` applied to span payloads (default:
    redact secrets, truncate strings over 64 KiB). ``resume_from`` continues the
    experiment recorded in that directory (``sink`` must be a writer with a
    ``resume`` method, such as a :class:`RecordDirectoryWriter` on the same
    directory): only missing runs are executed and the result holds every run.
    A change of the spec, dataset or source files since the experiment began raises
    :class:`ResumeError` unless ``force`` is true. Raises :class:`TaskResolutionError` when the task cannot be resolved and
    :class:`ScorerResolutionError` when a scorer's target (a ``python`` scorer's
    function, a ``schema`` scorer's model) cannot.
    """
    if concurrency_limit < 1:
        raise ValueError(f"concurrency_limit must be at least 1, got {concurrency_limit}")
    task = resolve_task(spec)
    derivers = prepare_derivers(spec)  # before anything is recorded: reads pricing files once
    scorers = tuple(scorer.prepare(spec.base_dir) for scorer in spec.scoring)
    plan = build_benchmark_plan(spec)
    files = collect_benchmark_source_files(spec) if source_files is None else source_files
    # Strict instrumentation fails here, before anything is recorded or run.
    resolved = resolve_instrumentation(
        spec.instrumentation, spec.instrumentors, integration_entries()
    )
    started = time.perf_counter()
    previous: tuple[RunRecord, ...] = ()
    resumed: ResumeInfo | None = None
    to_run = plan.runs
    if resume_from is None:
        experiment_id = experiment_id or new_experiment_id(spec.benchmark.id)
        experiment = build_experiment_record(
            spec,
            plan,
            experiment_id=experiment_id,
            started_at=datetime.now(UTC),
            files=files,
            environment=capture_environment(spec.base_dir),
        )
        if sink is not None:
            sink.start(experiment)
    else:
        root = Path(resume_from)
        resume = getattr(sink, "resume", None)
        if resume is None:
            raise TypeError("resume_from needs a sink with a resume() method (a record writer)")
        experiment, previous = load_for_resume(root)
        if experiment_id is not None and experiment_id != experiment.experiment_id:
            raise ResumeError(
                f"cannot resume {root} as {experiment_id!r}: it records experiment "
                f"{experiment.experiment_id!r}",
                path=root,
            )
        experiment_id = experiment.experiment_id
        current = build_experiment_record(
            spec,
            plan,
            experiment_id=experiment_id,
            started_at=datetime.now(UTC),
            files=files,
            environment={},
        )
        changed = resume_changes(experiment, current)
        if changed and not force:
            raise ResumeError(
                describe_changes(root, experiment, current), path=root / "experiment.yaml"
            )
        done = {run.run_id for run in previous}
        recorded_ids = {planned.id for planned in experiment.plan}
        to_run = tuple(
            run for run in plan.runs if run.run_id in recorded_ids and run.run_id not in done
        )
        resumed = ResumeInfo(
            started_at=datetime.now(UTC),
            missing=len(experiment.plan) - len(previous),
            forced=bool(changed),
            changed=changed,
        )
        resume(experiment)
    total = len(to_run)
    deliver(progress, ProgressEvent(ProgressEventKind.EXPERIMENT_STARTED, experiment_id, total, 0))
    with InstrumentationSession(resolved, capture_policy=capture) as session:
        setup = RunSetup(
            experiment_id=experiment_id,
            benchmark_id=spec.benchmark.id,
            task=task,
            task_is_async=is_async_task(task),
            scorers=scorers,
            scores_inline=scores_inline(scorers),
            policies=spec.policies,
            registry=spec.registry,
            derivers=derivers,
            capture=DEFAULT_CAPTURE_POLICY if capture is None else capture,
            diagnostics=session.diagnostics(),
            base_dir=spec.base_dir,
            prepare=sink.prepare_run if isinstance(sink, PreparingSink) else None,
        )
        executor = MatrixExecutor(
            setup, to_run, concurrency_limit=concurrency_limit, sink=sink, progress=progress
        )
        try:
            new_runs = await executor.run()
        except asyncio.CancelledError:
            if sink is not None:
                _finish_interrupted(
                    sink,
                    experiment,
                    previous + executor.finished,
                    resumed,
                    time.perf_counter() - started,
                )
            raise
    runs = plan_order(experiment, previous + new_runs) if previous else new_runs
    if spec.post_derive:
        runs, post_derived = post_derive_runs(spec.post_derive, runs, spec.registry)
        if sink is not None:
            sink.post_derived(post_derived)
    summary = build_summary(experiment, runs, duration=time.perf_counter() - started)
    if resumed is not None:
        summary = summary.model_copy(
            update={"resumed": resumed.model_copy(update={"runs": len(new_runs)})}
        )
    if sink is not None:
        sink.finish(summary)
    deliver(
        progress,
        ProgressEvent(
            ProgressEventKind.EXPERIMENT_FINISHED,
            experiment_id,
            total,
            executor.completed,
            payload={"duration": summary.duration, "counts": summary.status.model_dump()},
        ),
    )
    return ExperimentResult(
        experiment=experiment,
        runs=runs,
        summary=summary,
        root_dir=getattr(sink, "root_dir", None),
        artifact_payloads=executor.payloads,
        registry=spec.registry,
    )


def _finish_interrupted(
    sink: ExperimentSink,
    experiment: ExperimentRecord,
    runs: tuple[RunRecord, ...],
    resumed: ResumeInfo | None,
    duration: float,
) -> None:
    """After a cancellation: write the summary of the runs handed to the sink so far
    (``complete: false``); a storage failure is logged, the cancellation goes on."""
    summary = build_summary(experiment, runs, duration=duration)
    summary = summary.model_copy(update={"complete": False})
    if resumed is not None:
        done = len(runs) - (len(experiment.plan) - resumed.missing)
        summary = summary.model_copy(
            update={"resumed": resumed.model_copy(update={"runs": max(done, 0)})}
        )
    try:
        sink.finish(summary)
    except RecordingError:
        _log.warning("could not record the summary of the interrupted experiment", exc_info=True)


async def run_benchmark_path(
    path: str | Path,
    *,
    experiment_id: str | None = None,
    concurrency_limit: int = 1,
    sink: ExperimentSink | None = None,
    progress: ProgressCallback | None = None,
) -> ExperimentResult:
    """Load the spec file at ``path`` (``load_benchmark_spec``, which raises ``SpecError``
    on bad input) and run it with :func:`run_benchmark_spec`."""
    spec = load_benchmark_spec(Path(path))
    return await run_benchmark_spec(
        spec,
        experiment_id=experiment_id,
        concurrency_limit=concurrency_limit,
        sink=sink,
        progress=progress,
    )
