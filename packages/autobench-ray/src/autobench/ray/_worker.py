"""The remote side: a worker actor executes whole runs and streams back their evidence.

:func:`execute_remote` runs in a Ray worker process, called by :meth:`RunWorker.runs` (the
actors of ``_pool``). It receives a key, a box holding the object reference of the
pickled experiment: the :class:`~autobench.core.runtime._run.RunSetup` and the planned
runs (boxed, so Ray does not resolve it before this function has put the working
directory on ``sys.path``: unpickling the setup imports the task's module), and the
positions of its runs among them, so a call carries a few bytes. One call executes
several runs in a row and yields each run's output as it ends (a streaming generator),
so Ray's cost per call is shared. The experiment is unpickled once per worker process
(by key) and kept; the setup's ``base_dir`` becomes the worker's working directory (the
shipped copy of the spec's directory, so recorded tracebacks name files relative to it
as a local run's do) and it has no ``prepare`` (the driver's sink renders the files).

An async task's run is executed with ``asyncio.run``; a sync task's in this thread,
inside a copy of the current :mod:`contextvars` context, with a background event loop
for the awaitables it or its scorers return (as ``_run.execute_sync_run`` expects).
Each yielded item is a run's :class:`~autobench.core.runtime._run.RunOutput` (record and
artifact payloads), pickled. An exception escaping the run (not one of the task's own,
which gives an errored run) reaches the driver as Ray's ``RayTaskError``.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import os
import pickle
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import ray
from ray import cloudpickle

from autobench.core.native import InstrumentationSession
from autobench.core.planning import MatrixRunSpec
from autobench.core.runtime._run import (
    RunInterrupted,
    RunOutput,
    RunSetup,
    execute_run,
    execute_sync_run,
)
from autobench.ray._limits import holder

_experiments: dict[str, tuple[RunSetup, Sequence[MatrixRunSpec]]] = {}
"""The setup and runs of the current experiment of this worker process, by key (one at a
time)."""

_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def _experiment(
    key: str, box: list[Any], shipped: bool
) -> tuple[RunSetup, Sequence[MatrixRunSpec]]:
    found = _experiments.get(key)
    if found is not None:
        return found
    here = os.getcwd()
    if shipped and here not in sys.path[:1]:
        sys.path.insert(0, here)
    setup, runs = cloudpickle.loads(ray.get(box[0]))
    setup = dataclasses.replace(
        setup, base_dir=Path(here) if shipped else setup.base_dir, prepare=None
    )
    _experiments.clear()
    _instrument(setup)
    _experiments[key] = (setup, runs)
    return setup, runs


_instrumented: list[InstrumentationSession] = []
"""The native instrumentation installed in this worker process for its current experiment."""


def _instrument(setup: RunSetup) -> None:
    """Install the experiment's native instrumentors in this process, as the driver's session
    installed them in its own (after removing the previous experiment's): the runs here
    record the same spans as local runs. What cannot be installed is already listed in
    the setup's diagnostics, as the driver found it."""
    while _instrumented:
        _instrumented.pop().__exit__(None, None, None)
    if setup.instrumentation is not None and setup.instrumentation.instrumentors:
        session = InstrumentationSession(setup.instrumentation, capture_policy=setup.capture)
        _instrumented.append(session.__enter__())


def _background_loop() -> asyncio.AbstractEventLoop:
    """An event loop running in a daemon thread of this process (started on first use)."""
    global _loop
    with _loop_lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(
                target=loop.run_forever, name="autobench-ray-loop", daemon=True
            ).start()
            _loop = loop
        return _loop


def execute_remote(
    key: str,
    box: list[Any],
    shipped: bool,
    positions: list[int],
    spent: dict[int, int] | None = None,
    token: str | None = None,
) -> Iterator[bytes]:
    """Execute the runs at ``positions`` of the experiment one after the other (see the
    module docstring), yielding each one's output, without a prepared form, pickled
    (:func:`output_bytes`), as it ends.
    ``spent`` maps a position to the attempts its run already lost with their workers:
    its retry policy has that many fewer attempts. ``token`` names the call to the
    rate-limit coordinator (``_limits.holder``)."""
    setup, runs = _experiment(key, box, shipped)
    for position in positions:
        used = (spent or {}).get(position, 0)
        policy = setup.retries
        run_setup = setup
        if used and policy is not None:
            retries = dataclasses.replace(policy, attempts=max(1, policy.attempts - used))
            run_setup = dataclasses.replace(setup, retries=retries)
        try:
            output = _execute(run_setup, runs[position], token)
        except RunInterrupted as stop:  # the run is recorded; the call runs no more
            yield output_bytes(Interrupted(_plain(stop.output)))
            return
        yield output_bytes(output)


@dataclasses.dataclass(frozen=True, slots=True)
class Interrupted:
    """The output of a run whose task raised ``KeyboardInterrupt`` (``_run.RunInterrupted``
    in the worker): the driver records it and ends the experiment as on Ctrl-C."""

    output: RunOutput


def output_bytes(output: RunOutput | Interrupted) -> bytes:
    """``output`` pickled for the driver (:func:`pickle.loads` reads it back): Ray passes
    bytes as they are, while an object of another type takes its general serialization
    path, which costs a worker about 0.3 ms more per run (``tools/bench_ray.py``)."""
    return cloudpickle.dumps(output, protocol=pickle.HIGHEST_PROTOCOL)


def _execute(setup: RunSetup, planned: MatrixRunSpec, token: str | None) -> RunOutput:
    context = contextvars.copy_context()
    context.run(holder.set, token)
    if setup.task_is_async:
        output = context.run(asyncio.run, execute_run(setup, planned))
    else:
        output = context.run(execute_sync_run, setup, planned, _background_loop())
    return _plain(output)


def _plain(output: RunOutput) -> RunOutput:
    """``output`` with its payloads in a plain dict (what crosses to the driver)."""
    return RunOutput(record=output.record, payloads=dict(output.payloads))


class RunWorker:
    """A worker actor (``_pool``): its :meth:`runs` executes runs of the experiment in its
    process, one call at a time."""

    @ray.method(num_returns="streaming")
    def runs(
        self,
        key: str,
        box: list[Any],
        shipped: bool,
        positions: list[int],
        spent: dict[int, int] | None = None,
        token: str | None = None,
    ) -> Iterator[bytes]:
        """:func:`execute_remote` in this actor's process."""
        yield from execute_remote(key, box, shipped, positions, spent, token)

    def pid(self) -> int:
        """This actor's process id."""
        return os.getpid()
