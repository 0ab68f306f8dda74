"""What every executor does with a run's start and end: the sink and the progress callback.

An executor decides where and when runs execute; :class:`RunHandoff` does the rest, on the
event loop thread, the same way for each of them (the local ``MatrixExecutor`` and those
plugins add):

* :meth:`RunHandoff.started` reports a run started to the progress callback;
* :meth:`RunHandoff.finished` hands a finished run to the sink (``run_prepared`` for an
  output prepared for a :class:`~autobench.records.PreparingSink`, else ``run_finished``
  with its artifact payloads; without a sink the payloads are kept in :attr:`payloads`),
  keeps the record (or what ``keep`` makes of it: ``_lean``; nothing when ``keep`` returns
  ``None``) at its plan position, and reports it finished: at once, or, for a
  :class:`~autobench.records.DurableSink`, once the sink says it is on disk, so a crash
  never loses a run the progress display already counted;
* :meth:`RunHandoff.room` holds an executor back, without blocking the event loop, while
  :data:`MAX_AWAITING_STORAGE` runs wait for a durable sink;
* :meth:`RunHandoff.all_stored` waits for those storage reports before the executor returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from autobench.core.planning import MatrixRunSpec
from autobench.core.runtime._progress import (
    ProgressCallback,
    ProgressEvent,
    ProgressEventKind,
    deliver,
)
from autobench.core.runtime._run import RunOutput
from autobench.records import DurableSink, ExperimentSink, PreparingSink, RunRecord

MAX_AWAITING_STORAGE = 1024
"""Runs handed to a durable sink and not yet stored past which :meth:`RunHandoff.room`
waits (below the sink's own bound, so the event loop never blocks on it)."""


class RunHandoff:
    """The sink and progress side of one executor's runs (see the module docstring).

    ``runs`` is the plan (positions index it), ``experiment_id`` names the experiment in
    progress events. :attr:`payloads` holds artifact payloads by ``(run_id, artifact_id)``
    when there is no sink; :attr:`completed` counts the runs handed over. ``keep`` (the
    setup's, ``RunSetup.keep``) turns each record as stored into what :attr:`records`
    holds; ``None`` keeps it whole. A ``keep`` that returns ``None`` (a
    :class:`~autobench.core.runtime._experiment.StatusTally`) keeps nothing: the run is
    then not among :attr:`records`."""

    def __init__(
        self,
        experiment_id: str,
        runs: Sequence[MatrixRunSpec],
        sink: ExperimentSink | None,
        progress: ProgressCallback | None,
        *,
        keep: Callable[[RunRecord], RunRecord | None] | None = None,
    ) -> None:
        self._experiment_id = experiment_id
        self._keep = keep
        self._runs = runs
        self._sink = sink
        # Checked once: a runtime-checkable protocol's isinstance walks its members (about
        # 14 us each on Python 3.11), too much to pay twice per run.
        self._preparing = sink if isinstance(sink, PreparingSink) else None
        self._durable = sink if isinstance(sink, DurableSink) else None
        self._progress = progress
        self._results: list[RunRecord | None] | None = None  # a slot a run, once one is kept
        self.payloads: dict[tuple[str, str], Any] = {}
        self.completed = 0
        self._reported = 0
        self._awaiting_storage = 0
        self._all_stored: asyncio.Event | None = None
        self._room: asyncio.Event | None = None
        self._stored_reports: list[tuple[MatrixRunSpec, _Shown | None, bool]] = []
        self._stored_lock = threading.Lock()

    @property
    def records(self) -> tuple[RunRecord, ...]:
        """The records of the runs finished so far (as handed to the sink, or what ``keep``
        made of them; none when it returns ``None``), in plan order."""
        if self._results is None:
            return ()
        return tuple(record for record in self._results if record is not None)

    def awaiting_storage(self) -> int:
        """How many runs handed to a durable sink are not reported stored yet (any thread
        may ask)."""
        return self._awaiting_storage

    def started(self, planned: MatrixRunSpec) -> None:
        """Report ``planned`` started (nothing without a progress callback)."""
        self._event(ProgressEventKind.RUN_STARTED, planned)

    def finished(self, position: int, planned: MatrixRunSpec, output: RunOutput) -> None:
        """Hand the run at plan ``position`` over (see the module docstring)."""
        record = output.record
        if output.prepared is not None and self._preparing is not None:
            record = self._preparing.run_prepared(output.prepared)
        elif self._sink is not None:
            record = self._sink.run_finished(record, output.payloads)
        else:
            for artifact_id, payload in output.payloads.items():
                self.payloads[(record.run_id, artifact_id)] = payload
        # From here on only what is kept is held: a report waiting for the sink (runs can end
        # far ahead of the disk) holds what the progress callback is told, not the record.
        shown = None if self._progress is None else _shown(record)
        kept = record if self._keep is None else self._keep(record)
        if kept is not None:
            if self._results is None:
                self._results = [None] * len(self._runs)
            self._results[position] = kept
        self.completed += 1
        if self._durable is not None:
            loop = asyncio.get_running_loop()
            self._awaiting_storage += 1
            self._durable.after_stored(
                record.run_id, lambda ok: self._stored_report(loop, planned, shown, ok)
            )
        elif shown is not None:
            self._report_finished(planned, shown)

    async def room(self) -> None:
        """Wait while :data:`MAX_AWAITING_STORAGE` runs wait for the durable sink (until
        half of them are stored); return at once otherwise."""
        while self._awaiting_storage >= MAX_AWAITING_STORAGE:
            if self._room is None:
                self._room = asyncio.Event()
            await self._room.wait()

    async def all_stored(self) -> None:
        """Wait until every run handed to a durable sink has been reported stored."""
        if self._awaiting_storage:
            self._all_stored = asyncio.Event()
            await self._all_stored.wait()

    def _event(self, kind: ProgressEventKind, planned: MatrixRunSpec, **fields: Any) -> None:
        if self._progress is None:
            return
        deliver(
            self._progress,
            ProgressEvent(
                kind=kind,
                experiment_id=self._experiment_id,
                total=len(self._runs),
                completed=self._reported,
                run_id=planned.run_id,
                case_id=planned.case_id,
                variant_id=planned.variant_id,
                index=planned.index,
                **fields,
            ),
        )

    def _report_finished(self, planned: MatrixRunSpec, shown: _Shown) -> None:
        self._reported += 1
        status, payload = shown
        self._event(ProgressEventKind.RUN_FINISHED, planned, status=status, payload=payload)

    def _stored_report(
        self,
        loop: asyncio.AbstractEventLoop,
        planned: MatrixRunSpec,
        shown: _Shown | None,
        ok: bool,
    ) -> None:
        # On any thread (the sink's): queue the report; one wake-up of the loop per batch, so
        # a group of runs stored together costs the sink's thread one hand-off, not one each.
        with self._stored_lock:
            self._stored_reports.append((planned, shown, ok))
            if len(self._stored_reports) > 1:
                return
        _call_soon(loop, self._stored_batch)

    def _stored_batch(self) -> None:
        with self._stored_lock:
            reports, self._stored_reports = self._stored_reports, []
        for planned, shown, ok in reports:
            self._stored(planned, shown, ok)

    def _stored(self, planned: MatrixRunSpec, shown: _Shown | None, ok: bool) -> None:
        # On the loop thread: the sink stored (or failed to store) one run.
        self._awaiting_storage -= 1
        if ok and shown is not None:
            self._report_finished(planned, shown)
        if self._room is not None and self._awaiting_storage <= MAX_AWAITING_STORAGE // 2:
            self._room.set()
            self._room = None
        if self._awaiting_storage == 0 and self._all_stored is not None:
            self._all_stored.set()


class HandedOff:
    """The :class:`~autobench.core.plugins.Executor` attributes an executor that hands its
    runs over through a :class:`RunHandoff` (``self._handoff``) reads from it."""

    _handoff: RunHandoff

    @property
    def payloads(self) -> dict[tuple[str, str], Any]:
        """Artifact payloads by ``(run_id, artifact_id)`` when there is no sink."""
        return self._handoff.payloads

    @property
    def completed(self) -> int:
        """How many runs ended."""
        return self._handoff.completed

    @property
    def finished(self) -> tuple[RunRecord, ...]:
        """The records of the runs finished so far (as handed to the sink), in plan order."""
        return self._handoff.records


_Shown = tuple[str, Mapping[str, Any]]
"""What a run-finished progress event says of its run: its status and payload."""


def _shown(record: RunRecord) -> _Shown:
    payload = {
        "duration": record.run.duration,
        "task": record.task_status.value,
        "evaluation": record.evaluation_status.value,
    }
    return record.status.value, payload


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Any, *args: Any) -> None:
    """Schedule ``callback(*args)`` on ``loop`` from any thread; nothing if it has closed."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(callback, *args)
