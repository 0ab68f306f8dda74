"""The driver of the ``ray`` executor: remote runs in, records to the sink.

* The factory (``_factory``) has joined Ray and shipped the spec's directory (the runs'
  ``runtime_env``, ``_cluster.working_dir_env``). :meth:`RayExecutor.run` puts the
  pickled run setup and planned runs in the object store once, then runs
  ``concurrency_limit`` slots, each with a worker actor of its own (``_pool``; each asks
  for ``_cluster.cpus_per_run`` CPUs). A slot makes one call at a time to its actor
  (``_worker``): a streaming call executing :func:`chunk_size` planned runs one after
  the other and yielding each run's output as it ends. So at most ``concurrency_limit``
  runs are active, and Ray's cost per call is shared by the runs of a chunk.
* A spec with ``limits:`` gets one coordinator for the experiment (``_limits``): a Ray
  actor holding every budget, started before the setup is shipped (the shipped setup's
  ``limits`` is its client) and killed when the runs end. Each call has a token its
  runs take budgets with: when its worker dies, the slots they held are given back.
* The sink, the progress callback and the returned runs stay in this process, on the
  event loop thread: the sink receives each run as its output arrives (completion
  order); :meth:`RayExecutor.run` returns the records in plan order. With a durable sink
  a run is reported finished once it is on disk, as with the local executor.
* When the worker of a call dies (``ActorDiedError``, ``NodeDiedError`` and the other
  errors of Ray that say the process or node went away; Ray restarts the actor), the runs of the call whose outputs had not arrived are executed again, each in a
  call of its own; a run that loses its worker alone in its call is recorded once as
  errored with error stage ``worker_lost`` (``_lost``). Ray never re-executes a call. So
  no run is lost or recorded twice, though a run that ended just before its worker died
  may be executed twice. Any other failure of a remote call (the setup could not be
  unpickled in the worker, the runtime environment could not be built) stops the
  experiment, as does an actor whose process could not start: the calls in flight are
  cancelled (their actors killed) and the error is raised.
* A run that loses its worker alone is retried when the spec's retry policy admits a
  :class:`~autobench.ray._lost.WorkerLostError` and attempts remain: after the policy's
  backoff for the attempt (``RetryPolicy.delay``) it is executed again in a call of its
  own, with the attempts it lost taken off its policy, and its record lists the lost
  attempts before its own (``_lost``).
* Cancelling :meth:`RayExecutor.run` (Ctrl-C) keeps the runs whose outputs had arrived
  (each went to the sink on arrival), ends the calls in flight by killing the actors
  (their processes end) without recording their other runs (``--resume`` runs them), starts no new ones and re-raises
  :class:`asyncio.CancelledError`; :attr:`finished` lists the recorded runs.
* A task raising ``KeyboardInterrupt`` ends the experiment the same way: the worker
  sends that run's record (errored, stage ``interrupted``) and runs no more of its call,
  the run goes to the sink, no new run starts, the other slots get
  ``_threads.CANCEL_GRACE`` seconds to finish the calls in flight (as sync runs do
  locally), then their actors are killed, and ``_run.RunInterrupted`` is raised.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import pickle
import time
import uuid
from collections import deque
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import ray
from ray import cloudpickle
from ray.exceptions import (
    ActorDiedError,
    ActorUnavailableError,
    NodeDiedError,
    ObjectLostError,
    OutOfMemoryError,
    OwnerDiedError,
    RayActorError,
    WorkerCrashedError,
)

from autobench.core.planning import MatrixRunSpec, PlannedRuns
from autobench.core.runtime._handoff import HandedOff, RunHandoff
from autobench.core.runtime._progress import ProgressCallback
from autobench.core.runtime._run import RunInterrupted, RunOutput, RunSetup
from autobench.core.runtime._threads import CANCEL_GRACE
from autobench.ray._cluster import cpus_per_run
from autobench.ray._limits import RayLimits, start_limits, stop_limits
from autobench.ray._lost import (
    WorkerLostError,
    attempt_lost,
    lost_message,
    lost_run,
    with_lost_attempts,
)
from autobench.ray._options import RayOptions
from autobench.ray._pool import acquire, discard, release
from autobench.ray._worker import Interrupted
from autobench.records import AttemptRecord, ExperimentSink, RunRecord

LOST_WORKER_ERRORS: tuple[type[BaseException], ...] = (
    RayActorError,
    WorkerCrashedError,
    NodeDiedError,
    ObjectLostError,
    OwnerDiedError,
    OutOfMemoryError,
)
"""Ray errors meaning the process (or node) executing a run went away."""


def chunk_size(pending: int, slots: int) -> int:
    """How many of the ``pending`` runs the next remote call executes in a row: half of each
    slot's share of them, between 1 and 16. Ray's cost per call is shared by several runs
    while many remain, and the calls shrink to single runs near the end, so the slots end
    close together (guided self-scheduling)."""
    return max(1, min(16, pending // (slots * 2)))


@dataclasses.dataclass(frozen=True, slots=True)
class _Call:
    """What every remote call of one experiment carries (see ``_worker``)."""

    key: str
    box: list[Any]
    shipped: bool


class RayExecutor(HandedOff):
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
        self._handoff = RunHandoff(setup.experiment_id, runs, sink, progress, keep=setup.keep)
        self._options = options
        self._runtime_env = dict(runtime_env)
        self._shipped = shipped or bool(runtime_env)
        self._lost_attempts: dict[int, tuple[AttemptRecord, ...]] = {}
        self._coordinator: RayLimits | None = None
        self._backing_off: dict[int, asyncio.TimerHandle] = {}
        self._requeued = asyncio.Event()

    async def run(self) -> tuple[RunRecord, ...]:
        """Execute all runs on Ray; return the records of the finished ones in plan order.
        Raises what Ray raises when a remote call fails for a reason other than a lost
        worker (``RayTaskError``, ``RuntimeEnvSetupError``)."""
        if not self._runs:
            return ()
        limits = start_limits(self._setup.limit_specs) if self._setup.limit_specs else None
        self._coordinator = limits
        try:
            return await self._run(limits)
        finally:
            if limits is not None:
                with contextlib.suppress(Exception):
                    stop_limits(limits)

    async def _run(self, limits: RayLimits | None) -> tuple[RunRecord, ...]:
        env = self._runtime_env
        # A plan's PlannedRuns ships as its cases (compact) and positions: no run built here.
        runs = self._runs if isinstance(self._runs, PlannedRuns) else tuple(self._runs)
        blob = cloudpickle.dumps((_shippable(self._setup, limits), runs))
        limit = min(self._limit, len(self._runs))
        num_cpus = cpus_per_run(self._options.num_cpus, limit)
        actors = acquire(limit, num_cpus, env)
        call = _Call(uuid.uuid4().hex, [ray.put(blob)], self._shipped)
        pending, suspects = deque(range(len(self._runs))), deque[int]()
        slots = [
            asyncio.create_task(self._slot(actor, call, pending, suspects, limit))
            for actor in actors
        ]
        try:
            await asyncio.gather(*slots)
        except BaseException as ended:
            for timer in self._backing_off.values():
                timer.cancel()
            if isinstance(ended, RunInterrupted):  # as a sync run on Ctrl-C: a grace period
                await asyncio.wait(slots, timeout=CANCEL_GRACE)
            for slot in slots:
                slot.cancel()
            await asyncio.gather(*slots, return_exceptions=True)
            discard(actors)  # ends the calls in flight with their processes
            raise
        release(actors, num_cpus, env)
        await self._handoff.all_stored()
        return self.finished

    async def _slot(
        self, actor: Any, call: _Call, pending: deque[int], suspects: deque[int], slots: int
    ) -> None:
        """One of the ``slots``: a call at a time to its ``actor``, over one suspect run (see
        :meth:`_lost`) or else the next :func:`chunk_size` planned runs. After its actor's
        process died, the slot waits for Ray to restart it before the next call
        (:func:`_restarted`): a call sent while it restarts fails without running, and its
        run would be recorded as lost with a worker it never had."""
        restarting = False
        while suspects or pending or self._backing_off:
            if not (suspects or pending):  # a lost run waits out its backoff
                self._requeued.clear()
                await self._requeued.wait()
                continue
            if restarting:  # other slots may have taken every run meanwhile: look again
                await _restarted(actor)
                restarting = False
                continue
            if suspects:
                positions = [suspects.popleft()]
            else:
                size = min(chunk_size(len(pending), slots), len(pending))
                positions = [pending.popleft() for _ in range(size)]
            done = 0
            started_at, started = datetime.now(UTC), time.perf_counter()
            self._handoff.started(self._runs[positions[0]])
            spent = {
                position: len(self._lost_attempts[position])
                for position in positions
                if position in self._lost_attempts
            }
            token = uuid.uuid4().hex
            generator = actor.runs.remote(call.key, call.box, call.shipped, positions, spent, token)
            try:
                async for ref in generator:
                    output: RunOutput | Interrupted = pickle.loads(await ref)
                    position = positions[done]
                    if isinstance(output, Interrupted):  # no new run starts; see run()
                        self._finished_run(position, self._runs[position], output.output)
                        pending.clear()
                        suspects.clear()
                        raise RunInterrupted(output.output)
                    self._finished_run(position, self._runs[position], output)
                    done += 1
                    if done < len(positions):
                        started_at, started = datetime.now(UTC), time.perf_counter()
                        self._handoff.started(self._runs[positions[done]])
            except LOST_WORKER_ERRORS as lost:
                if isinstance(lost, ActorDiedError) and lost.actor_init_failed:
                    raise
                if self._coordinator is not None:  # the dead worker's runs held slots
                    with contextlib.suppress(Exception):
                        await self._coordinator.free([token])
                self._lost(positions[done:], suspects, started_at, started, lost)
                restarting = True

    def _lost(
        self,
        positions: list[int],
        suspects: deque[int],
        started_at: datetime,
        started: float,
        reason: BaseException,
    ) -> None:
        """The worker of a call died before these runs' outputs arrived. Alone in its call, a
        run is recorded as lost, or retried when its retry policy says so (see the module
        docstring); several are suspects, each executed again in a call of its own (one of
        them may have ended without its output having arrived; none was recorded), so only
        the run that loses its worker alone is recorded as lost. A worker that died once
        every output of its call had arrived lost no run (``positions`` is empty)."""
        if not positions:
            return
        if len(positions) > 1:
            suspects.extend(positions)
            return
        position = positions[0]
        lost = (
            *self._lost_attempts.get(position, ()),
            attempt_lost(
                len(self._lost_attempts.get(position, ())) + 1,
                time.perf_counter() - started,
                reason,
            ),
        )
        policy = self._setup.retries
        if (
            policy is not None
            and len(lost) < policy.attempts
            and policy.retries(WorkerLostError(lost_message(reason)))
        ):
            self._lost_attempts[position] = lost
            self._retry_later(position, policy.delay(len(lost)), suspects)
            return
        self._lost_attempts.pop(position, None)
        record = lost_run(
            self._runs[position],
            experiment_id=self._setup.experiment_id,
            benchmark_id=self._setup.benchmark_id,
            started_at=started_at,
            duration=time.perf_counter() - started,
            reason=reason,
            attempts=lost if len(lost) > 1 else (),
        )
        self._finished_run(position, self._runs[position], RunOutput(record, {}))

    def _retry_later(self, position: int, delay: float, suspects: deque[int]) -> None:
        """Queue the run at ``position`` (alone in its next call) after ``delay`` seconds."""

        def requeue() -> None:
            self._backing_off.pop(position, None)
            suspects.append(position)
            self._requeued.set()

        self._backing_off[position] = asyncio.get_running_loop().call_later(delay, requeue)

    def _finished_run(self, position: int, planned: MatrixRunSpec, output: RunOutput) -> None:
        lost = self._lost_attempts.pop(position, None)
        if lost:
            output = dataclasses.replace(output, record=with_lost_attempts(output.record, lost))
        self._handoff.finished(position, planned, output)


async def _restarted(actor: Any, poll: float = 0.05) -> None:
    """Return once ``actor`` answers a call again: Ray restarts an actor whose process died
    (``max_restarts=-1``), and until it has, calls to it raise
    :class:`~ray.exceptions.ActorUnavailableError` (a restart takes about 2 s on an idle
    2-CPU machine, far longer on a loaded one). Raises what Ray raises for an actor that
    will not come back (``ActorDiedError``)."""
    while True:
        try:
            await actor.pid.remote()
            return
        except ActorUnavailableError:
            await asyncio.sleep(poll)


def _shippable(setup: RunSetup, limits: RayLimits | None) -> RunSetup:
    """The setup as the workers get it: without the driver's sink hook, and with the
    experiment's coordinator actor (``_limits``) in place of the driver's in-process
    rate-limit coordinator."""
    return dataclasses.replace(setup, prepare=None, limits=limits)
