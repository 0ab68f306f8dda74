"""The ``ray`` executor factory (an :class:`autobench.core.runtime.ExecutorFactory`).

Building the executor checks its options, imports Ray, joins (or starts) it and ships the
spec's directory to it: the session builds the executor before its sink starts, so an
executor that refuses its options or cannot reach Ray leaves no record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from autobench.ray._options import RayOptions

if TYPE_CHECKING:
    from autobench.core.planning import MatrixRunSpec
    from autobench.core.runtime._progress import ProgressCallback
    from autobench.core.runtime._run import RunSetup
    from autobench.ray._executor import RayExecutor
    from autobench.records import ExperimentSink


def ray_executor(
    setup: RunSetup,
    runs: Sequence[MatrixRunSpec],
    *,
    concurrency_limit: int,
    sink: ExperimentSink | None,
    progress: ProgressCallback | None,
    options: Mapping[str, Any],
) -> RayExecutor:
    """A :class:`~autobench.ray._executor.RayExecutor` for ``runs``. ``options`` are those of
    :class:`RayOptions` (:class:`~autobench.ray._options.RayOptionError`, a ``ValueError``,
    for others or bad values); ``concurrency_limit``
    (>= 1, else ``ValueError``) bounds the runs in flight on the cluster. Raises
    :class:`~autobench.ray._cluster.RayConnectionError` when Ray cannot be joined. The
    budgets of ``limits:`` are held by one actor for the experiment (``_limits``)."""
    parsed = RayOptions.parse(options)
    if concurrency_limit < 1:
        raise ValueError(f"concurrency_limit must be at least 1, got {concurrency_limit}")
    from autobench.ray._cluster import connect, job_ships, working_dir_env
    from autobench.ray._executor import RayExecutor

    connect(parsed.address, setup.base_dir, parsed.excludes)
    return RayExecutor(
        setup,
        runs,
        concurrency_limit=concurrency_limit,
        sink=sink,
        progress=progress,
        options=parsed,
        runtime_env=working_dir_env(setup.base_dir, parsed.excludes) if runs else {},
        shipped=job_ships(setup.base_dir),
    )
