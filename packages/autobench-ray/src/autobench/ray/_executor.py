"""The driver of the ``ray`` executor: remote runs in, records to the sink.

* The factory (``_factory``) has joined Ray and shipped the spec's directory (the runs'
  ``runtime_env``, ``_cluster.working_dir_env``). :meth:`RayExecutor.run` puts the
  pickled run setup and planned runs in the object store once, then keeps at most ``concurrency_limit`` runs in
  flight, each a Ray task executing one whole run (``_worker``). Each run asks for
  ``_cluster.cpus_per_run`` CPUs.
* The sink, the progress callback and the returned runs stay in this process, on the
  event loop thread: the sink receives each run as its result arrives (completion
  order); :meth:`RayExecutor.run` returns the records in plan order. With a durable sink
  a run is reported finished once it is on disk, as with the local executor.
* A run whose worker died (``WorkerCrashedError``, ``NodeDiedError``, ``ObjectLostError``
  and the other errors of Ray that say the process or node went away) is recorded once
  as errored with error stage ``worker_lost`` (``_lost``); Ray never re-executes it. Any
  other failure of a remote call (the setup could not be unpickled in the worker, the
  runtime environment could not be built) stops the experiment: the runs in flight are
  cancelled and the error is raised.
* Cancelling :meth:`RayExecutor.run` (Ctrl-C) hands the runs whose results had arrived
  to the sink, cancels the runs in flight (``ray.cancel(force=True)``: their worker
  processes end) without recording them (``--resume`` runs them), starts no new ones and
  re-raises :class:`asyncio.CancelledError`; :attr:`finished` lists the recorded runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import ray
from ray import cloudpickle
from ray.exceptions import (
    NodeDiedError,
    ObjectLostError,
    OutOfMemoryError,
    OwnerDiedError,
    WorkerCrashedError,
)

from autobench.core.planning import MatrixRunSpec
from autobench.core.runtime._progress import (
    ProgressCallback,
    ProgressEvent,
    ProgressEventKind,
    deliver,
)
from autobench.core.runtime._run import RunOutput, RunSetup
from autobench.ray._cluster import cpus_per_run
from autobench.ray._lost import lost_run
from autobench.ray._options import RayOptions
from autobench.ray._worker import remote_run
from autobench.records import DurableSink, ExperimentSink, RunRecord

LOST_WORKER_ERRORS: tuple[type[BaseException], ...] = (
    WorkerCrashedError,
    NodeDiedError,
    ObjectLostError,
    OwnerDiedError,
    OutOfMemoryError,
)
"""Ray errors meaning the process (or node) executing a run went away."""


class _InFlight:
    __slots__ = ("future", "planned", "position", "ref", "started", "started_at")

    def __init__(self, position: int, planned: MatrixRunSpec, ref: Any) -> None:
        self.position = position
        self.planned = planned
        self.ref = ref
        self.started_at = datetime.now(UTC)
        self.started = time.perf_counter()
        self.future: asyncio.Future[Any] = asyncio.wrap_future(ref.future())


class RayExecutor:
    """Executes the runs of one experiment on Ray (see the module docstring for the rules)."""

    def __init__(
        self,
        setup: RunSetup,
        runs: Sequence[MatrixRunSpec],
        *,
        concurrency_limit: int,
        sink: ExperimentSink | None,
        progress: ProgressCallback | None,
        options: RayOptions,
        runtime_env: Mapping[str, Any],
        shipped: bool = False,
    ) -> None:
        if concurrency_limit < 1:
            raise ValueError(f"concurrency_limit must be at least 1, got {concurrency_limit}")
        self._setup = setup
        self._runs = runs
        self._limit = concurrency_limit
        self._sink = sink
        self._progress = progress
        self._options = options
        self._runtime_env = dict(runtime_env)
        self._shipped = shipped or bool(runtime_env)
        self._results: list[RunRecord | None] = [None] * len(runs)
        self.payloads: dict[tuple[str, str], Any] = {}
        self.completed = 0
        self._reported = 0
        self._awaiting_storage = 0
        self._all_stored: asyncio.Event | None = None

    @property
    def finished(self) -> tuple[RunRecord, ...]:
        """The records of the runs finished so far (as handed to the sink), in plan order."""
        return tuple(record for record in self._results if record is not None)

    async def run(self) -> tuple[RunRecord, ...]:
        """Execute all runs on Ray; return the records of the finished ones in plan order.
        Raises what Ray raises when a remote call fails for a reason other than a lost
        worker (``RayTaskError``, ``RuntimeEnvSetupError``)."""
        if not self._runs:
            return ()
        env = self._runtime_env
        blob = cloudpickle.dumps((_shippable(self._setup), tuple(self._runs)))
        box = [ray.put(blob)]
        limit = min(self._limit, len(self._runs))
        remote = remote_run.options(
            num_cpus=cpus_per_run(self._options.num_cpus, limit),
            **({"runtime_env": env} if env else {}),
        )
        key = uuid.uuid4().hex
        shipped = self._shipped
        pending: Iterator[tuple[int, MatrixRunSpec]] = iter(enumerate(self._runs))
        active: dict[asyncio.Future[Any], _InFlight] = {}
        try:
            while True:
                for position, planned in pending:
                    flight = _InFlight(
                        position, planned, remote.remote(key, box, shipped, position)
                    )
                    active[flight.future] = flight
                    self._event(ProgressEventKind.RUN_STARTED, planned)
                    if len(active) >= limit:
                        break
                if not active:
                    break
                done, _ = await asyncio.wait(active, return_when=asyncio.FIRST_COMPLETED)
                for future in done:
                    self._settle(active.pop(future))
        except BaseException:
            self._abandon(active)
            raise
        await self._storage_reported()
        return self.finished

    def _settle(self, flight: _InFlight) -> None:
        """Hand the run of a completed future to the sink (or raise its failure)."""
        try:
            output: RunOutput = flight.future.result()
        except LOST_WORKER_ERRORS as lost:
            record = lost_run(
                flight.planned,
                experiment_id=self._setup.experiment_id,
                benchmark_id=self._setup.benchmark_id,
                started_at=flight.started_at,
                duration=time.perf_counter() - flight.started,
                reason=lost,
            )
            output = RunOutput(record=record, payloads={})
        self._finished_run(flight.position, flight.planned, output)

    def _abandon(self, active: dict[asyncio.Future[Any], _InFlight]) -> None:
        """After a cancellation or failure: record the runs whose results already arrived,
        cancel the others on the cluster."""
        for future, flight in active.items():
            if future.done() and not future.cancelled() and future.exception() is None:
                self._finished_run(flight.position, flight.planned, future.result())
                continue
            future.cancel()
            with contextlib.suppress(Exception):
                ray.cancel(flight.ref, force=True)

    def _finished_run(self, position: int, planned: MatrixRunSpec, output: RunOutput) -> None:
        record = output.record
        if self._sink is not None:
            record = self._sink.run_finished(record, output.payloads)
        else:
            for artifact_id, payload in output.payloads.items():
                self.payloads[(record.run_id, artifact_id)] = payload
        self._results[position] = record
        self.completed += 1
        if self._progress is None:
            return
        if isinstance(self._sink, DurableSink):
            loop = asyncio.get_running_loop()
            self._awaiting_storage += 1
            self._sink.after_stored(
                record.run_id, lambda ok: _call_soon(loop, self._stored, planned, record, ok)
            )
        else:
            self._report_finished(planned, record)

    def _event(self, kind: ProgressEventKind, planned: MatrixRunSpec, **fields: Any) -> None:
        if self._progress is None:
            return
        deliver(
            self._progress,
            ProgressEvent(
                kind=kind,
                experiment_id=self._setup.experiment_id,
                total=len(self._runs),
                completed=self._reported,
                run_id=planned.run_id,
                case_id=planned.case_id,
                variant_id=planned.variant_id,
                index=planned.index,
                **fields,
            ),
        )

    def _report_finished(self, planned: MatrixRunSpec, record: RunRecord) -> None:
        self._reported += 1
        self._event(
            ProgressEventKind.RUN_FINISHED,
            planned,
            status=record.status.value,
            payload=_finished_payload(record),
        )

    def _stored(self, planned: MatrixRunSpec, record: RunRecord, ok: bool) -> None:
        self._awaiting_storage -= 1
        if ok:
            self._report_finished(planned, record)
        if self._awaiting_storage == 0 and self._all_stored is not None:
            self._all_stored.set()

    async def _storage_reported(self) -> None:
        if self._awaiting_storage:
            self._all_stored = asyncio.Event()
            await self._all_stored.wait()


def _shippable(setup: RunSetup) -> RunSetup:
    """The setup as the workers get it: without the driver's sink hook, nor its rate-limit
    coordinator (in-process state; the factory refuses specs with ``limits:``)."""
    return dataclasses.replace(setup, prepare=None, limits=None)


def _finished_payload(record: RunRecord) -> Mapping[str, Any]:
    return {
        "duration": record.run.duration,
        "task": record.task_status.value,
        "evaluation": record.evaluation_status.value,
    }


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Any, *args: Any) -> None:
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(callback, *args)
