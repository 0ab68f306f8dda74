"""The worker actors that execute an experiment's runs, one per slot.

Each slot of :class:`~autobench.ray._executor.RayExecutor` calls one actor of
:class:`~autobench.ray._worker.RunWorker`: a Ray actor is one worker process, and a call
to it goes straight to that process, while every Ray task asks the node's scheduler for
a worker again. With tasks, 1,000 runs of 50 ms at concurrency 16 on a 2-CPU local Ray
took 1.35 to 1.5 times the ideal: the scheduler started new worker processes during the
experiment when many calls asked for a worker at once (each start costs about a
CPU-second), and its bookkeeping cost the workers about 1.5 ms of CPU per run. With one
actor per slot, the same experiment takes 1.11 times the ideal
(``uv run python tools/bench_ray.py --part throughput``).

* Each actor asks for ``num_cpus`` (the run's share, ``_cluster.cpus_per_run``) for as
  long as it lives and runs the spec's runtime environment.
* A Ray that this process started (``_cluster.owns_ray``) is this process's alone: the
  actors are kept when an experiment ends, and the next experiment with the same CPUs
  and runtime environment reuses them (growing the pool when it has more slots), so
  their processes are started and import Autobench once. On a Ray that was joined (a
  cluster, shared), :func:`release` kills them when the experiment ends, so they hold
  no CPUs between experiments.
* An actor whose process dies is restarted by Ray (``max_restarts=-1``) without
  re-executing the call that was in flight (``max_task_retries=0``): that call raises
  one of Ray's actor errors and the slot goes on with the restarted process.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Any

import ray

from autobench.ray._worker import RunWorker

_remote_worker = ray.remote(max_restarts=-1, max_task_retries=0)(RunWorker)

_kept: list[tuple[str, list[Any]]] = []
"""The kept actors of this process (at most one pool): the key of their CPUs and runtime
environment, and their handles."""


def _key(num_cpus: float, runtime_env: Mapping[str, Any]) -> str:
    """The key of actors asking for ``num_cpus`` in ``runtime_env`` in this Ray job (a Ray
    shut down and started again is another job: its actors are new)."""
    job = ray.get_runtime_context().get_job_id()
    return json.dumps([job, num_cpus, dict(runtime_env)], sort_keys=True, default=str)


def acquire(count: int, num_cpus: float, runtime_env: Mapping[str, Any]) -> list[Any]:
    """``count`` actor handles asking for ``num_cpus`` each in ``runtime_env`` (``{}``: the
    job's): the kept ones of the same key first, then new ones. Kept actors of another
    key, or beyond ``count``, are killed (their CPUs are given back)."""
    key = _key(num_cpus, runtime_env)
    actors: list[Any] = []
    if _kept:
        kept_key, kept = _kept.pop()
        if kept_key == key:
            actors, surplus = kept[:count], kept[count:]
        else:
            surplus = kept
        _kill(surplus)
    options: dict[str, Any] = {"num_cpus": num_cpus}
    if runtime_env:
        options["runtime_env"] = dict(runtime_env)
    actors += [_remote_worker.options(**options).remote() for _ in range(count - len(actors))]
    return actors


def release(actors: list[Any], num_cpus: float, runtime_env: Mapping[str, Any]) -> None:
    """The experiment that :func:`acquire` d ``actors`` ended: keep them for the next one on a
    Ray this process started, else kill them."""
    from autobench.ray._cluster import owns_ray

    if owns_ray():
        _kept.append((_key(num_cpus, runtime_env), list(actors)))
    else:
        _kill(actors)


def discard(actors: list[Any]) -> None:
    """Kill ``actors`` (and what is kept): their calls in flight end with their processes."""
    while _kept:
        _kill(_kept.pop()[1])
    _kill(actors)


def _kill(actors: list[Any]) -> None:
    for actor in actors:
        with contextlib.suppress(Exception):
            ray.kill(actor, no_restart=True)
