"""The entry points: run a :class:`BenchmarkSpec` (or a spec file) and get an ExperimentResult.

:func:`run_benchmark_spec` and :func:`run_benchmark_path_async` are coroutine functions;
:func:`run_benchmark_path` is their plain twin for scripts (it runs its own event loop and
refuses to be called inside a running one). All build a :class:`~autobench.core.runtime.RunSession` (``start``, or ``resume`` for a
record directory) and execute it; see :mod:`autobench.core.runtime._session` for the order
of work.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from autobench.abp import CapturePolicy
from autobench.core.plugins import AutobenchPlugins
from autobench.core.runtime._progress import ProgressCallback
from autobench.core.runtime._session import RunSession
from autobench.core.runtime._sync import run_sync
from autobench.core.spec import BenchmarkSpec, load_benchmark_spec
from autobench.records import ExperimentResult, ExperimentSink


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
    plugins: AutobenchPlugins | None = None,
    executor: str | None = None,
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
    experiment recorded in that directory (:meth:`RunSession.resume`; ``sink``, when
    given, must be a :class:`DirectorySink` on it, else ``TypeError``): only missing runs
    are executed and the result holds every run. A change of the spec, dataset or source
    files since the experiment began raises :class:`ResumeError` unless ``force`` is
    true. ``plugins`` gives the native integrations and the executors (default:
    ``spec.plugins``, those the spec was loaded with); ``executor`` names the executor,
    over the spec's ``executor`` (default ``local``). Raises :class:`TaskResolutionError`
    when the task cannot be resolved, :class:`ScorerResolutionError` when a scorer's
    target (a ``python`` scorer's function, a ``schema`` scorer's model) cannot and
    :class:`UnknownExecutorError` for an executor the plugins do not know.
    """
    if resume_from is None:
        session = RunSession.start(
            spec,
            experiment_id=experiment_id,
            sink=sink,
            source_files=source_files,
            plugins=plugins,
            executor=executor,
        )
    else:
        session = RunSession.resume(
            spec,
            resume_from,
            sink=sink,
            experiment_id=experiment_id,
            force=force,
            source_files=source_files,
            plugins=plugins,
            executor=executor,
        )
    return await session.execute(
        concurrency_limit=concurrency_limit, progress=progress, capture=capture
    )


async def run_benchmark_path_async(
    path: str | Path,
    *,
    experiment_id: str | None = None,
    concurrency_limit: int = 1,
    sink: ExperimentSink | None = None,
    progress: ProgressCallback | None = None,
    plugins: AutobenchPlugins | None = None,
    executor: str | None = None,
) -> ExperimentResult:
    """Load the spec file at ``path`` with ``plugins`` (``load_benchmark_spec``, which
    raises ``SpecError`` on bad input) and run it with :func:`run_benchmark_spec`; the
    options and errors are those of :func:`run_benchmark_spec`. For async code; plain code
    calls :func:`run_benchmark_path`."""
    spec = load_benchmark_spec(Path(path), plugins=plugins)
    return await run_benchmark_spec(
        spec,
        experiment_id=experiment_id,
        concurrency_limit=concurrency_limit,
        sink=sink,
        progress=progress,
        plugins=plugins,
        executor=executor,
    )


def run_benchmark_path(
    path: str | Path,
    *,
    experiment_id: str | None = None,
    concurrency_limit: int = 1,
    sink: ExperimentSink | None = None,
    progress: ProgressCallback | None = None,
    plugins: AutobenchPlugins | None = None,
    executor: str | None = None,
) -> ExperimentResult:
    """Load the spec file at ``path`` and run it to completion; returns the
    :class:`ExperimentResult` (not a coroutine).

    The blocking form of :func:`run_benchmark_path_async`, same options and errors: it runs
    its own event loop (``asyncio.run``), so it raises :class:`RunningLoopError` (a
    ``RuntimeError``) when called where an event loop is already running (async code, a
    notebook cell); there, ``await run_benchmark_path_async(...)`` instead.
    """
    return run_sync(
        run_benchmark_path_async(
            path,
            experiment_id=experiment_id,
            concurrency_limit=concurrency_limit,
            sink=sink,
            progress=progress,
            plugins=plugins,
            executor=executor,
        ),
        name="run_benchmark_path",
        instead="await run_benchmark_path_async(...)",
    )
