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
* Async runs take turns of the event loop (``_turns``): at most ``_turns.PER_TURN`` runs
  start, and as many are finished, per turn of the loop, so runs that end together
  leave the loop free between them for the calls still running (their timings are
  taken outside the wait).
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
* A task raising ``KeyboardInterrupt`` (``_run.RunInterrupted``) ends the experiment the
  same way, its own run recorded first; :meth:`MatrixExecutor.run` then raises the
  ``RunInterrupted``.

:class:`MatrixExecutor` is the built-in ``local`` executor. Executors are chosen by
name (``executor:`` in the spec, ``Benchmark.executor``, ``autobench run --executor``)
among those of the ``autobench_executors`` hook; each is an :class:`ExecutorFactory`
whose result satisfies :class:`Executor`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

from autobench.core._hookspecs import Executor
from autobench.core.planning import MatrixRunSpec
from autobench.core.runtime._handoff import HandedOff, RunHandoff
from autobench.core.runtime._progress import ProgressCallback
from autobench.core.runtime._run import RunCancelled, RunInterrupted, RunSetup, execute_run
from autobench.core.runtime._threads import RunThreads
from autobench.core.runtime._turns import LoopTurns
from autobench.records import ExperimentSink, RunRecord


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


class MatrixExecutor(HandedOff):
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
        self._progress = progress
        self._handoff = RunHandoff(setup.experiment_id, runs, sink, progress, keep=setup.keep)
        self._turns = LoopTurns()

    async def _one(self, position: int, planned: MatrixRunSpec) -> None:
        if (wait := self._turns.take()) is not None:
            await wait
        self._handoff.started(planned)
        try:
            output = await execute_run(self._setup, planned, self._turns)
        except RunInterrupted as stop:  # recorded; the workers then stop as on Ctrl-C
            self._handoff.finished(position, planned, stop.output)
            raise
        except RunCancelled as cancelled:
            self._handoff.finished(position, planned, cancelled.output)
            raise asyncio.CancelledError from None
        self._handoff.finished(position, planned, output)
        await self._handoff.room()

    async def run(self) -> tuple[RunRecord, ...]:
        """Execute all runs; return the records of the finished ones in plan order."""
        pending = iter(enumerate(self._runs))
        if not self._setup.task_is_async:
            await RunThreads(
                self._setup,
                pending,
                threads=min(self._limit, len(self._runs)),
                runs=len(self._runs),
                on_started=None if self._progress is None else self._handoff.started,
                on_finished=self._handoff.finished,
                backlog=self._handoff.awaiting_storage,
            ).run()
            await self._handoff.all_stored()
            return self._handoff.records
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
        await self._handoff.all_stored()
        return self._handoff.records

    async def _worker(self, pending: Iterator[tuple[int, MatrixRunSpec]]) -> None:
        # One of ``concurrency_limit`` workers: each takes the next planned run and
        # executes it in a task of its own (a fresh contextvars context per run).
        for position, planned in pending:
            await asyncio.create_task(self._one(position, planned))
