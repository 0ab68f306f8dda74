"""Matrix execution: run every planned run with a bound on active runs.

* At most ``concurrency_limit`` runs are active at once: that many workers
  take the next planned run from a shared iterator, so a large plan never
  holds more than the limit in flight (a counting semaphore without the
  wake-up cost of one).
* Async tasks: the workers are asyncio tasks, and each run is an asyncio task
  of its own, so it has its own :mod:`contextvars` context.
* Sync tasks: the workers are threads that each execute whole runs, with no
  event loop running in them and a fresh :mod:`contextvars` context per run,
  and hand finished runs back to the loop thread in batches (``_threads``).
* Spans and the active run context never leak between runs. The sink and the
  progress callback are only called on the event loop thread; the sink
  receives each run as it ends (completion order); the returned runs are in
  plan order whatever the completion order.
* Cancelling :meth:`MatrixExecutor.run` cancels the active async runs, waits
  for them to unwind, hands each to the sink as an errored run (error stage
  ``cancelled``, not scored) and re-raises :class:`asyncio.CancelledError`;
  sync runs cannot be interrupted: no new ones start, active ones get up to
  ``_threads.CANCEL_GRACE`` seconds to end (and are recorded), later ones are
  dropped (missing from the record).

:class:`MatrixExecutor` is the built-in ``local`` executor. Executors are chosen by
name (``executor:`` in the spec, ``Benchmark.executor``, ``autobench run --executor``)
among those of the ``autobench_executors`` hook; each is an :class:`ExecutorFactory`
whose result satisfies :class:`Executor`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

from autobench.core._hookspecs import Executor
from autobench.core.planning import MatrixRunSpec
from autobench.core.runtime._progress import (
    ProgressCallback,
    ProgressEvent,
    ProgressEventKind,
    deliver,
)
from autobench.core.runtime._run import RunCancelled, RunOutput, RunSetup, execute_run
from autobench.core.runtime._threads import RunThreads
from autobench.records import DurableSink, ExperimentSink, PreparingSink, RunRecord


class ExecutorFactory(Protocol):
    """Builds the :class:`~autobench.core.plugins.Executor` of one session: its ``runs`` (plan order), the shared
    per-run ``setup`` (give each run to :func:`execute_run`, or ``execute_sync_run`` in a
    worker thread, see ``_threads``), the bound on active runs, the sink, the progress
    callback and the ``options`` written beside the executor's name in the spec
    (``executor: {name: ..., <option>: <value>}``; empty when none). Raises
    ``ValueError`` for options it does not take."""

    def __call__(
        self,
        setup: RunSetup,
        runs: Sequence[MatrixRunSpec],
        *,
        concurrency_limit: int,
        sink: ExperimentSink | None,
        progress: ProgressCallback | None,
        options: Mapping[str, Any],
    ) -> Executor: ...


def local_executor(
    setup: RunSetup,
    runs: Sequence[MatrixRunSpec],
    *,
    concurrency_limit: int,
    sink: ExperimentSink | None,
    progress: ProgressCallback | None,
    options: Mapping[str, Any],
) -> MatrixExecutor:
    """The ``local`` executor (an :class:`ExecutorFactory`): a :class:`MatrixExecutor` in
    this process. It takes no options (``ValueError`` names the ones given)."""
    if options:
        raise ValueError(
            f"the local executor takes no options, got: {', '.join(sorted(map(str, options)))}"
        )
    return MatrixExecutor(
        setup, runs, concurrency_limit=concurrency_limit, sink=sink, progress=progress
    )


class MatrixExecutor:
    """Executes the runs of one experiment (see the module docstring for the rules)."""

    def __init__(
        self,
        setup: RunSetup,
        runs: Sequence[MatrixRunSpec],
        *,
        concurrency_limit: int,
        sink: ExperimentSink | None,
        progress: ProgressCallback | None,
    ) -> None:
        if concurrency_limit < 1:
            raise ValueError(f"concurrency_limit must be at least 1, got {concurrency_limit}")
        self._setup = setup
        self._runs = runs
        self._limit = concurrency_limit
        self._sink = sink
        self._progress = progress
        self._results: list[RunRecord | None] = [None] * len(runs)
        self.payloads: dict[tuple[str, str], Any] = {}
        self.completed = 0
        self._reported = 0
        self._awaiting_storage = 0
        self._all_stored: asyncio.Event | None = None

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

    def _started(self, planned: MatrixRunSpec) -> None:
        self._event(ProgressEventKind.RUN_STARTED, planned)

    async def _one(self, position: int, planned: MatrixRunSpec) -> None:
        self._started(planned)
        try:
            output = await execute_run(self._setup, planned)
        except RunCancelled as cancelled:
            self._finished_run(position, planned, cancelled.output)
            raise asyncio.CancelledError from None
        self._finished_run(position, planned, output)

    def _finished_run(self, position: int, planned: MatrixRunSpec, output: RunOutput) -> None:
        record = output.record
        if output.prepared is not None and isinstance(self._sink, PreparingSink):
            record = self._sink.run_prepared(output.prepared)
        elif self._sink is not None:
            record = self._sink.run_finished(record, output.payloads)
        else:
            for artifact_id, payload in output.payloads.items():
                self.payloads[(record.run_id, artifact_id)] = payload
        self._results[position] = record
        self.completed += 1
        if self._progress is None:
            return
        if isinstance(self._sink, DurableSink):
            # A run is reported finished once it is on disk: a crash never loses a run the
            # progress display already counted.
            loop = asyncio.get_running_loop()
            self._awaiting_storage += 1
            self._sink.after_stored(
                record.run_id, lambda ok: _call_soon(loop, self._stored, planned, record, ok)
            )
        else:
            self._report_finished(planned, record)

    def _report_finished(self, planned: MatrixRunSpec, record: RunRecord) -> None:
        self._reported += 1
        self._event(
            ProgressEventKind.RUN_FINISHED,
            planned,
            status=record.status.value,
            payload=_finished_payload(record),
        )

    def _stored(self, planned: MatrixRunSpec, record: RunRecord, ok: bool) -> None:
        # On the loop thread: the sink stored (or failed to store) one run.
        self._awaiting_storage -= 1
        if ok:
            self._report_finished(planned, record)
        if self._awaiting_storage == 0 and self._all_stored is not None:
            self._all_stored.set()

    async def _storage_reported(self) -> None:
        """Wait until every run handed to a durable sink has been reported stored."""
        if self._awaiting_storage:
            self._all_stored = asyncio.Event()
            await self._all_stored.wait()

    async def run(self) -> tuple[RunRecord, ...]:
        """Execute all runs; return the records of the finished ones in plan order."""
        pending = iter(enumerate(self._runs))
        if not self._setup.task_is_async:
            await RunThreads(
                self._setup,
                pending,
                threads=min(self._limit, len(self._runs)),
                runs=len(self._runs),
                on_started=None if self._progress is None else self._started,
                on_finished=self._finished_run,
            ).run()
            await self._storage_reported()
            return self._finished()
        workers = [
            asyncio.create_task(self._worker(pending))
            for _ in range(min(self._limit, len(self._runs)))
        ]
        try:
            await asyncio.gather(*workers)
        except BaseException:
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            raise
        await self._storage_reported()
        return self._finished()

    async def _worker(self, pending: Iterator[tuple[int, MatrixRunSpec]]) -> None:
        # One of ``concurrency_limit`` workers: each takes the next planned run and
        # executes it in a task of its own (a fresh contextvars context per run).
        for position, planned in pending:
            await asyncio.create_task(self._one(position, planned))

    @property
    def finished(self) -> tuple[RunRecord, ...]:
        """The records of the runs finished so far (as handed to the sink), in plan order."""
        return self._finished()

    def _finished(self) -> tuple[RunRecord, ...]:
        return tuple(record for record in self._results if record is not None)


def _finished_payload(record: RunRecord) -> Mapping[str, Any]:
    return {
        "duration": record.run.duration,
        "task": record.task_status.value,
        "evaluation": record.evaluation_status.value,
    }


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Any, *args: Any) -> None:
    """Schedule ``callback(*args)`` on ``loop`` from any thread; nothing if it has closed."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(callback, *args)
