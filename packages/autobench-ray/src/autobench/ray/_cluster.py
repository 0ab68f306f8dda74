"""Joining Ray and shipping the spec's directory to its workers.

* :func:`connect` uses the connection this process already has (``ray.init`` called
  before, by the user or a test), else joins ``address``, else starts a local Ray. A
  Ray the executor started lives until the process exits, so later experiments of the
  same process reuse it.
* :func:`working_dir_env` uploads the spec's directory to the cluster as a Ray
  runtime environment ``working_dir`` package (content-addressed: an unchanged directory
  is not uploaded again) and returns the per-run ``runtime_env`` naming it. Each worker
  runs with that directory, unpacked, as its current directory and on ``sys.path``, so
  the task's module and the files it reads are there. Ray accepts a local directory only
  in ``ray.init``; turning it into a package for one task's options uses Ray's own
  upload step (``ray._private.runtime_env.working_dir``), isolated here.
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


def connect(address: str | None) -> None:
    """Make sure this process is connected to Ray: keep the current connection, else join
    ``address`` (``auto``, ``HOST:PORT``, ``ray://HOST:PORT``), else start a local Ray.
    Raises :class:`RayConnectionError` when ``ray.init`` fails to join or start one."""
    if ray.is_initialized():
        return
    try:
        if address is None:
            ray.init(include_dashboard=False, logging_level=logging.WARNING)
        else:
            ray.init(address=address, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = "start a local Ray" if address is None else f"join the Ray cluster at {address!r}"
        raise RayConnectionError(f"could not {where}: {exc}") from exc


def working_dir_env(base_dir: Path | None, excludes: Sequence[str]) -> dict[str, Any]:
    """The ``runtime_env`` that ships ``base_dir`` (minus :data:`DEFAULT_EXCLUDES`, the
    ``excludes`` patterns and what ``.gitignore``/``.rayignore`` name) to the workers;
    ``{}`` when there is no directory. Call after :func:`connect`."""
    if base_dir is None:
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
