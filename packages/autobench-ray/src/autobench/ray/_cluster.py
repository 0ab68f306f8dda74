"""Joining Ray and shipping the spec's directory to its workers.

* :func:`connect` uses the connection this process already has (``ray.init`` called
  before, by the user or a test), else joins ``address``, else starts a local Ray. A
  Ray the executor started lives until the process exits, so later experiments of the
  same process reuse it.
* The spec's directory reaches the workers as a Ray runtime environment
  ``working_dir``: each worker runs with an unpacked copy of it as its current
  directory and on ``sys.path``, so the task's module and the files it reads are there.
  When :func:`connect` itself joins or starts Ray, the directory is the job's
  runtime environment (``ray.init(runtime_env=...)``): the runs need no environment of
  their own and use the job's worker processes. Otherwise (Ray joined before, or a later
  experiment of another directory) :func:`working_dir_env` uploads the directory as a
  package (content-addressed: an unchanged directory is not uploaded again) and returns
  the per-run ``runtime_env`` naming it; Ray keeps separate worker processes for such
  runs, which start more slowly. Ray accepts a local directory only in ``ray.init``;
  packing it for one task's options uses Ray's own upload step
  (``ray._private.runtime_env.working_dir``), isolated here.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ray

from autobench.abp import AutobenchError
from autobench.ray._options import DEFAULT_EXCLUDES

_log = logging.getLogger("autobench.ray")


class RayConnectionError(AutobenchError, ConnectionError):
    """Ray could not be joined (or started); the message names the address."""


_job_dir: list[Path] = []
"""The directory shipped as the job's runtime environment by :func:`connect` (if any)."""

_started: list[str] = []
"""The job id of this process's connection to the local Ray that :func:`connect` started."""


def connect(address: str | None, base_dir: Path | None, excludes: Sequence[str]) -> None:
    """Make sure this process is connected to Ray: keep the current connection, else join
    ``address`` (``auto``, ``HOST:PORT``, ``ray://HOST:PORT``), else start a local Ray;
    a new connection ships ``base_dir`` as the job's ``working_dir`` (see the module
    docstring). Raises :class:`RayConnectionError` when ``ray.init`` fails
    to join or start one."""
    if ray.is_initialized():
        return
    env: dict[str, Any] = {}
    if base_dir is not None:
        env = {"working_dir": str(base_dir), "excludes": [*DEFAULT_EXCLUDES, *excludes]}
    try:
        if address is None:
            ray.init(
                include_dashboard=False,
                logging_level=logging.WARNING,
                runtime_env=env,
            )
            _started[:] = [ray.get_runtime_context().get_job_id()]
        else:
            _started.clear()
            ray.init(address=address, logging_level=logging.WARNING, runtime_env=env)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = "start a local Ray" if address is None else f"join the Ray cluster at {address!r}"
        raise RayConnectionError(f"could not {where}: {exc}") from exc
    _job_dir[:] = [] if base_dir is None else [base_dir]


def owns_ray() -> bool:
    """Whether this process is connected to a local Ray that :func:`connect` started (no
    other process uses it)."""
    return (
        bool(_started)
        and ray.is_initialized()
        and _started == [ray.get_runtime_context().get_job_id()]
    )


def job_ships(base_dir: Path | None) -> bool:
    """Whether the job's runtime environment is ``base_dir`` (shipped by :func:`connect`)."""
    return base_dir is not None and _job_dir == [base_dir]


def working_dir_env(base_dir: Path | None, excludes: Sequence[str]) -> dict[str, Any]:
    """The per-run ``runtime_env`` that ships ``base_dir`` (minus :data:`DEFAULT_EXCLUDES`,
    the ``excludes`` patterns and what ``.gitignore``/``.rayignore`` name) to the workers;
    ``{}`` when there is no directory or the job already ships it. Call after
    :func:`connect`."""
    if base_dir is None or job_ships(base_dir):
        return {}
    from ray._private.runtime_env.working_dir import upload_working_dir_if_needed

    # The package is built in a directory of its own: without one, Ray writes it into the
    # current directory, which may be the very directory being packed.
    with tempfile.TemporaryDirectory(prefix="autobench-ray-") as scratch:
        env = upload_working_dir_if_needed(
            {"working_dir": str(base_dir), "excludes": [*DEFAULT_EXCLUDES, *excludes]},
            include_gitignore=True,
            scratch_dir=scratch,
            logger=_log,
        )
    env.pop("excludes", None)
    return dict(env)


def cpus_per_run(num_cpus: float | None, concurrency: int) -> float:
    """The CPUs one run asks for: ``num_cpus`` when given, else the cluster's CPUs shared
    among ``concurrency`` runs, at most one (Ray counts CPUs in steps of 0.0001)."""
    if num_cpus is not None:
        return num_cpus
    total = float(ray.cluster_resources().get("CPU", 1.0))
    return max(0.0001, min(1.0, int(total / concurrency * 10_000) / 10_000))
