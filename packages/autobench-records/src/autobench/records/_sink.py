"""The sink protocol: where a live experiment hands its evidence as it is produced."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Protocol, runtime_checkable

from autobench.records._evidence import Observation
from autobench.records._records import ExperimentRecord, ExperimentSummary, RunRecord


class ExperimentSink(Protocol):
    """Receives an experiment's evidence in order: ``start`` once, ``run_finished`` as
    each run ends (in completion order), ``post_derived`` once after every run when
    the spec has ``post_derive`` entries, ``finish`` once at the end.

    ``run_finished`` gets the artifact payloads of the run keyed by artifact id
    and returns the run record as stored (artifact references completed with
    their paths, sizes and digests).
    """

    def start(self, experiment: ExperimentRecord) -> None: ...

    def run_finished(self, run: RunRecord, payloads: Mapping[str, Any]) -> RunRecord: ...

    def post_derived(self, observations_by_run: Mapping[str, Sequence[Observation]]) -> None:
        """Store the observations post-derivation added, keyed by run id (plan order).
        Called only when the spec declares ``post_derive`` (possibly with no entries)."""
        ...

    def finish(self, summary: ExperimentSummary) -> None: ...


@runtime_checkable
class DurableSink(Protocol):
    """A sink that stores runs in the background and says when each one is on disk.

    ``after_stored(run_id, callback)`` calls ``callback(True)`` once the files of a
    run handed to ``run_finished`` are durably stored, ``callback(False)`` if storing
    them failed (the error itself is raised by the next ``run_finished`` or by
    ``finish``). The callback may run on another thread, or at once.
    """

    def after_stored(self, run_id: str, callback: Callable[[bool], None]) -> None: ...


@runtime_checkable
class ClosableSink(Protocol):
    """A sink with work of its own in the background (a thread writing files). ``close()``
    waits for that work (what was handed over is still stored, or fails alone) and stops it,
    without raising: what an experiment that ends on an error calls before the error goes on
    (``finish`` closes it otherwise)."""

    def close(self) -> None: ...


@runtime_checkable
class PreparingSink(Protocol):
    """A sink whose ``run_finished`` splits in two, so the rendering of a run's files can
    happen where the run executed, before the next run starts, instead of beside it.

    ``prepare_run(run, payloads)`` does the work that needs no state of the sink's but its
    configuration (render the files, hash the payloads) and may be called on any thread,
    for several runs at once; ``run_prepared(prepared)`` does the rest on the thread that
    calls the other methods, and returns what ``run_finished`` would.
    ``run_finished(run, payloads)`` equals ``run_prepared(prepare_run(run, payloads))``.
    """

    def prepare_run(self, run: RunRecord, payloads: Mapping[str, Any]) -> Any: ...

    def run_prepared(self, prepared: Any) -> RunRecord: ...


@runtime_checkable
class DirectorySink(ExperimentSink, Protocol):
    """A sink that stores the experiment in a record directory, and can continue one.

    ``root`` is the record directory. ``resume(experiment)`` takes the place of ``start``
    for an experiment already recorded there (its ``experiment.yaml`` is not written
    again); the runs that follow are added beside the recorded ones.
    :class:`~autobench.records.RecordDirectoryWriter` is one.
    """

    @property
    def root(self) -> Path: ...

    def resume(self, experiment: ExperimentRecord) -> None: ...


class DurableRun(NamedTuple):
    """A run whose files are on disk: its record as stored, the path of its ``run.yaml``
    (relative to the record directory, POSIX) and the bytes written there (empty when no
    listener of the writer needs them: see :class:`RecordListener`)."""

    run: RunRecord
    path: str
    data: bytes


@runtime_checkable
class RecordListener(Protocol):
    """Follows a record directory as it is written, to keep data derived from it (such as
    autobench-index's columnar index) without reading the files back.

    ``runs_durable(record_dir, runs)`` is called on the writer's background thread after
    each group of runs is durably stored (completion order, each run once);
    ``finished(record_dir, summary)`` once, after ``summary.yaml`` is stored and every
    write is done. A listener must never fail the recording: what it raises is logged as a
    warning and the listener is not called again.

    A listener with ``needs_data = False`` reads what it needs from the paths: when no
    listener needs them, a record writer process does not send each ``run.yaml``'s bytes
    back to the recording process (its reader thread would unpickle them while the event
    loop waits for the interpreter) and :attr:`DurableRun.data` is empty."""

    def runs_durable(self, record_dir: Path, runs: Sequence[DurableRun]) -> None: ...

    def finished(self, record_dir: Path, summary: ExperimentSummary) -> None: ...


@runtime_checkable
class ListenedSink(Protocol):
    """A sink that tells :class:`RecordListener` objects what it stores (``add_listener``,
    before ``start`` or ``resume``). :class:`~autobench.records.RecordDirectoryWriter` is one."""

    def add_listener(self, listener: RecordListener) -> None: ...
