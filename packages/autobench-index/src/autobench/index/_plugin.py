"""autobench-index's plugin (entry point ``index`` of group ``autobench``).

Importing this module imports neither pyarrow nor DuckDB: a process that loads every
plugin (a replay-only worker, ``autobench run``) pays nothing for the index until it is
used.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from autobench.core.plugins import ExportFormat, hookimpl

if TYPE_CHECKING:
    from autobench.records import (
        DurableRun,
        ExperimentRecord,
        ExperimentResult,
        ExperimentSummary,
        RecordListener,
    )

NO_INDEX_ENV = "AUTOBENCH_NO_INDEX"
"""Set (to anything but ``""`` or ``"0"``), a live run writes no index (as ``--no-index``)."""

WORKER_ENV = "AUTOBENCH_INDEX_WORKER"
"""``1``: the live index is always written by a worker process; ``0``: always in the
recording process; unset: by a worker for experiments of :data:`WORKER_MIN_RUNS` runs or
more."""

WORKER_MIN_RUNS = 500
"""Planned runs from which the live index is written by a worker process (see
:mod:`autobench.index._worker_link`): below, the index of so few runs costs the recording
process less than starting a process would."""


@hookimpl
def autobench_indexed_result(record_dir: Path) -> ExperimentResult | None:
    """The experiment from ``record_dir/index`` when it is fresh (``load_index``); ``None``
    when there is no index directory, without importing pyarrow. An index that is not
    fresh is not read, and one hint line on stderr says how to rebuild it (a read
    command never writes the record directory)."""
    if not (Path(record_dir) / "index" / "manifest.json").is_file():
        return None
    from autobench.index._load import index_status, load_index  # pyarrow only now

    result = load_index(record_dir)
    if result is None:
        status = index_status(record_dir)
        why = status.reason or "not reportable"
        print(
            f"hint: the columnar index of {record_dir} is not used ({why}); the YAML records "
            f"are read instead. `autobench index {record_dir}` rebuilds it.",
            file=sys.stderr,
        )
    return result


@hookimpl
def autobench_record_listener(
    record_dir: Path, experiment: ExperimentRecord, resumed: bool
) -> RecordListener | None:
    """The listener that writes ``record_dir/index`` as the runs land, unless
    ``AUTOBENCH_NO_INDEX`` is set: an index worker process
    (:class:`~autobench.index._worker_link.WorkerIndex`) for an experiment of
    :data:`WORKER_MIN_RUNS` runs or more, else :class:`~autobench.index._live.LiveIndex`
    in this process (see :data:`WORKER_ENV`; a worker that cannot be started, too)."""
    if os.environ.get(NO_INDEX_ENV, "") not in ("", "0"):
        return None
    if _in_worker(experiment):
        from autobench.index._worker_link import WorkerIndex  # no pyarrow here

        try:
            return WorkerIndex(Path(record_dir), resumed=resumed)
        except OSError as error:  # no process to spare: the index is written here
            logging.getLogger("autobench.index").debug("index worker not started: %s", error)
    listener = _DeferredLiveIndex(Path(record_dir), experiment, resumed)
    if resumed:  # the earlier runs' index is looked at before this session adds runs
        listener.live()
    return listener


def _in_worker(experiment: ExperimentRecord) -> bool:
    """Whether the live index is written by a worker process (``AUTOBENCH_INDEX_WORKER``:
    ``1`` always, ``0`` never; unset, experiments of :data:`WORKER_MIN_RUNS` planned runs
    or more)."""
    chosen = os.environ.get(WORKER_ENV, "")
    if chosen in ("0", "1"):
        return chosen == "1"
    return len(experiment.plan) >= WORKER_MIN_RUNS


class _DeferredLiveIndex:
    """The live index, created (and pyarrow, with numpy, imported: about 0.25 s) on the
    writer's thread when the first group of runs is durable, so a run's start never waits
    for it. A resumed session creates it at once (:func:`autobench_record_listener`)."""

    def __init__(self, record_dir: Path, experiment: ExperimentRecord, resumed: bool) -> None:
        self._args = (record_dir, experiment, resumed)
        self._index: RecordListener | None = None
        self._failed = False

    def live(self) -> RecordListener | None:
        """The :class:`~autobench.index._live.LiveIndex`, or ``None`` once it could not be
        created (one warning says so)."""
        if self._index is None and not self._failed:
            record_dir, experiment, resumed = self._args
            try:
                from autobench.index._live import LiveIndex  # pyarrow only now

                self._index = LiveIndex(record_dir, experiment, resumed=resumed)
            except Exception as error:  # the index is derived data: never a failed run
                self._failed = True
                logging.getLogger("autobench.index").warning(
                    "Warning: the columnar index of %s will not be written (%s: %s); "
                    "`autobench index %s` builds it",
                    record_dir,
                    type(error).__name__,
                    error,
                    record_dir,
                )
        return self._index

    def runs_durable(self, record_dir: Path, runs: Sequence[DurableRun]) -> None:
        live = self.live()
        if live is not None:
            live.runs_durable(record_dir, runs)

    def finished(self, record_dir: Path, summary: ExperimentSummary) -> None:
        live = self.live()
        if live is not None:
            live.finished(record_dir, summary)


class _LazyParquetExporter:
    """The ``parquet`` exporter, importing pyarrow when it exports."""

    name = "parquet"
    extension = "parquet"
    description = "One row per run with its projected metrics, typed, for pandas and polars."

    def export(self, report: object, result: object) -> bytes:
        from autobench.index._export import ParquetExporter

        return ParquetExporter().export(report, result)  # type: ignore[arg-type]

    def chunks(self, report: object, result: object) -> Iterator[bytes]:
        from autobench.index._export import ParquetExporter

        return ParquetExporter().chunks(report, result)  # type: ignore[arg-type]


@hookimpl
def autobench_exporters() -> Sequence[ExportFormat]:
    return [_LazyParquetExporter()]
