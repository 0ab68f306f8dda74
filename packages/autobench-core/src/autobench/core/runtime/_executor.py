"""Matrix execution: run every planned run on asyncio with a bound on active runs.

* At most ``concurrency_limit`` runs are active at once (an
  :class:`asyncio.Semaphore`); a run task is only created once a slot is free,
  so a large plan never holds more than the limit in flight. Sync tasks run in
  a thread pool of the same size.
* Each run is its own asyncio task and so has its own :mod:`contextvars`
  context: spans and the active run context never leak between runs.
* The sink receives each run as it ends (completion order); the returned
  runs are in plan order whatever the completion order.
* Cancelling :meth:`MatrixExecutor.run` cancels the active runs, waits for
  them to unwind, and re-raises :class:`asyncio.CancelledError`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from autobench.core.planning import MatrixRunSpec
from autobench.records import ExperimentSink, RunRecord

from autobench.core.runtime._progress import ProgressCallback, ProgressEvent, ProgressEventKind, deliver
from autobench.core.runtime._run import RunSetup, execute_run


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

    def _event(self, kind: ProgressEventKind, planned: MatrixRunSpec, **fields: Any) -> None:
        if self._progress is None:
            return
        deliver(
            self._progress,
            ProgressEvent(
                kind=kind,
                experiment_id=self._setup.experiment_id,
                total=len(self._runs),
                completed=self.completed,
                run_id=planned.run_id,
                case_id=planned.case_id,
                variant_id=planned.variant_id,
                index=planned.index,
                **fields,
            ),
        )

    async def _one(self, position: int, planned: MatrixRunSpec) -> None:
        self._event(ProgressEventKind.RUN_STARTED, planned)
        output = await execute_run(self._setup, planned)
        record = output.record
        if self._sink is not None:
            record = self._sink.run_finished(record, output.payloads)
        else:
            for artifact_id, payload in output.payloads.items():
                self.payloads[(record.run_id, artifact_id)] = payload
        self._results[position] = record
        self.completed += 1
        self._event(
            ProgressEventKind.RUN_FINISHED,
            planned,
            status=record.status.value,
            payload=_finished_payload(record),
        )

    async def run(self) -> tuple[RunRecord, ...]:
        """Execute all runs; return the records of the finished ones in plan order."""
        if self._limit == 1:
            for position, planned in enumerate(self._runs):
                await asyncio.create_task(self._one(position, planned))
            return self._finished()
        slots = asyncio.Semaphore(self._limit)
        active: set[asyncio.Task[None]] = set()
        failure: list[BaseException] = []

        def _done(task: asyncio.Task[None]) -> None:
            active.discard(task)
            slots.release()
            if not task.cancelled() and task.exception() is not None:
                failure.append(task.exception())  # type: ignore[arg-type]

        try:
            for position, planned in enumerate(self._runs):
                await slots.acquire()
                if failure:
                    break
                task = asyncio.create_task(self._one(position, planned))
                active.add(task)
                task.add_done_callback(_done)
            while active:
                await asyncio.wait(set(active))
        except BaseException:
            for task in active:
                task.cancel()
            await asyncio.gather(*active, return_exceptions=True)
            raise
        if failure:
            raise failure[0]
        return self._finished()

    def _finished(self) -> tuple[RunRecord, ...]:
        return tuple(record for record in self._results if record is not None)


def _finished_payload(record: RunRecord) -> Mapping[str, Any]:
    return {
        "duration": record.run.duration,
        "task": record.task_status.value,
        "evaluation": record.evaluation_status.value,
    }
