"""The index written as runs land: :class:`LiveIndex`.

``autobench run`` (and ``run_experiment`` with a record directory) tells the live index of
each group of runs once the group is durable. For a large experiment it runs in the index
worker, a child process (:mod:`autobench.index._worker`), which is told the paths of the
run files and reads them back from disk (:meth:`LiveIndex.runs_stored`: durable and never
rewritten, so the bytes read are those hashed, and each run's trace comes from its file).
For a small one it is the record listener itself, on the writer's background thread
(:meth:`LiveIndex.runs_durable`: the ``run.yaml`` bytes just written, the traces the
recording process holds). Either way each run is parsed as a report replays it (evidence
only), its file hashed and stamped; its rows go to the tables of a staging directory beside
the record (``.index.live-<pid>/``, the recording process's pid), written in row groups of
:data:`ROW_GROUP_RUNS` runs, so what the index holds stays small. When the experiment
finishes (``summary.yaml`` stored), the files table, the experiment record and the manifest
complete the staged index, which is renamed into place as ``index/``.

The index is derived data and never the reason a run fails: an index that cannot be
written logs one warning (``autobench.index``) naming ``autobench index DIR`` and stops;
the staging directory is removed. A process killed meanwhile leaves no index, or the index
of an earlier session, which the new runs make stale (its staging directory is removed by
the worker, or by the next index written in the directory). An experiment whose record the
index did not see whole (a post-derived or derived record beside the runs, a run file it
did not write) is indexed from its YAML at the end instead
(:func:`~autobench.index.build_index`). A resumed session whose record had a fresh index
when it began adds that index's rows (and its run files' stamps and hashes, checked
unchanged) to its own; without one, it builds from the YAML at the end too.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from autobench.abp import Trace
from autobench.index._arrow import column_array
from autobench.index._build import IndexBuilt, build_index, finish_index, replay_index
from autobench.index._layout import INDEX_DIR, index_root, partition, read_manifest, staging_dir
from autobench.index._load import index_status, read_parquet
from autobench.index._round_trip import reads_back_from_json
from autobench.index._run_sources import RunSources
from autobench.index._sources import (
    EXPERIMENT_FILE,
    Source,
    read_sources,
    read_stamped,
    side_files,
    sources_table,
    stamp_of,
    stored_stamps,
)
from autobench.index._tables import SCHEMAS, TableRows
from autobench.records import (
    EVIDENCE_ONLY,
    PLAN_COLUMNS,
    DurableRun,
    ExperimentRecord,
    ExperimentSummary,
    TraceSummary,
    experiment_record_with_plan_columns,
    load_run_record,
    plan_column_chunks,
    run_record_from_yaml,
)

_log = logging.getLogger("autobench.index")

YIELD_AFTER = 0.002
"""Seconds of row building after which the writer's thread yields the interpreter between
two runs (as the group commit does), so the event loop that runs the tasks never waits
for it much longer than that."""

ROW_GROUP_RUNS = 2048
"""Runs whose rows are gathered before they are written as one row group of each table."""

_SUMMARIES = ("summary.yaml", "summary.")
_NO_PAYLOADS = EVIDENCE_ONLY - {"trace"}
"""What a run read from disk skips: its case's payloads and its output (its trace is read,
for the spans tables)."""


class LiveIndex:
    """Writes the index of the experiment recorded in ``record_dir`` as its runs land (a
    :class:`~autobench.records.RecordListener`; module docstring). ``resumed``: the record
    held runs before this session; their rows come from its index when that is fresh now,
    else the index is built from the YAML at the end. ``owner``: the recording process's
    pid (default: this one's), which names the staging directory; ``yields``: whether the
    thread writing it gives the interpreter up every :data:`YIELD_AFTER` seconds (in the
    recording process, for its event loop)."""

    def __init__(
        self,
        record_dir: Path,
        experiment: ExperimentRecord,
        *,
        resumed: bool,
        owner: int | None = None,
        yields: bool = True,
    ) -> None:
        self.root = Path(record_dir)
        self._prefix = os.path.join(os.fspath(self.root), "")
        self._owner = os.getpid() if owner is None else owner
        self._yields = yields
        self._partition = partition(experiment.benchmark.id, experiment.experiment.id)
        self._plan = experiment.plan
        self._plan_arrays: dict[str, pa.ChunkedArray] | None = None
        self._base: dict[str, Source] = {}  # the earlier runs' sources, from a fresh index
        # Whether the rows will cover the record: this session's runs, and the earlier ones
        # through a fresh index of them.
        self._whole = not resumed or self._fresh_base()
        self._rows = TableRows()
        self._writers: dict[str, pq.ParquetWriter] = {}
        self._counts = dict.fromkeys(SCHEMAS, 0)
        self._runs = RunSources(len(experiment.plan))
        self._problem: str | None = None
        self._staged: Path | None = None
        self._experiment: ExperimentRecord | None = None  # as experiment.yaml gives it back
        self._failed = False
        self._streamed = False  # built by stream_index: errors raise, a rebuild replays
        self.built: IndexBuilt | None = None
        """What the index holds once put in place."""
        self._missed = False  # some runs' paths were dropped on the way (give_up_rows)

    def _fresh_base(self) -> bool:
        try:
            return self._read_base()
        except Exception:  # a damaged index: the rows come from the YAML at the end
            self._base = {}
            return False

    def _read_base(self) -> bool:
        status = index_status(self.root)
        manifest = read_manifest(self.root)
        if not (status.fresh and status.reportable) or manifest is None:
            return False
        if manifest.get("partition") != self._partition.as_posix():
            return False
        table = read_parquet(index_root(self.root) / "files.parquet")
        hashes = table.column("sha256").to_pylist()
        self._base = {
            path: Source(path, stamp, digest)
            for (path, stamp), digest in zip(stored_stamps(table), hashes, strict=True)
            if stamp is not None
        }
        return True

    @classmethod
    def of_record(cls, record_dir: Path, *, resumed: bool, owner: int) -> LiveIndex:
        """The live index of the experiment whose ``experiment.yaml`` is stored in
        ``record_dir``, written for the recording process ``owner`` by the index worker
        (which has no event loop to yield to). Raises ``OSError`` / ``RecordFormatError``
        when that file cannot be read."""
        experiment = experiment_record_with_plan_columns(Path(record_dir) / EXPERIMENT_FILE)
        live = cls(record_dir, experiment, resumed=resumed, owner=owner, yields=False)
        live._experiment = experiment
        return live

    def _plan_columns(self) -> dict[str, pa.ChunkedArray]:
        """The plan's columns as Arrow arrays (read when first needed, at the end, a stretch
        of planned runs at a time: a plan read as columns is never held as Python
        strings)."""
        if self._plan_arrays is None:
            chunks: dict[str, list[pa.Array]] = {name: [] for name in PLAN_COLUMNS}
            for stretch in plan_column_chunks(self._plan):
                for name, values in stretch.items():
                    chunks[name].append(column_array(values, pa.string()))
            self._plan_arrays = {
                name: pa.chunked_array(arrays, pa.string()) for name, arrays in chunks.items()
            }
        return self._plan_arrays

    def _planned(self) -> Iterator[str]:
        """The planned runs' record paths, in plan order."""
        for chunk in self._plan_columns()["path"].chunks:
            yield from chunk.to_pylist()

    @property
    def staging(self) -> Path:
        """Where the index is written before it is renamed into place (named after the
        recording process, ``owner``, so a later index leaves it alone while that runs)."""
        return self.root / f".{INDEX_DIR}.live-{self._owner}"

    def runs_durable(self, record_dir: Path, runs: Sequence[DurableRun]) -> None:
        """Add the rows of ``runs`` (their ``run.yaml`` bytes as written, their traces as
        the recording process holds them)."""
        self._add_each([(durable.path, durable.data, durable.run.trace) for durable in runs])

    def runs_stored(self, paths: Sequence[str]) -> None:
        """Add the rows of the runs stored at ``paths`` (relative to the record directory),
        read from disk: durable and never rewritten, so the bytes read are the bytes hashed
        and parsed, and each run's trace is read from the file (inline, or the trace
        artifact it references)."""
        self._add_each([(path, None, None) for path in paths])

    def _add_each(self, runs: list[tuple[str, bytes | None, object]]) -> None:
        if self._failed or not self._whole:
            return
        try:
            if self._experiment is None:  # read while runs go on, not when they are over
                self._experiment = self._read_experiment()
            held = time.perf_counter()
            for path, data, trace in runs:
                self._add(path, data, trace)
                if self._yields and time.perf_counter() - held > YIELD_AFTER:
                    time.sleep(0)  # let the event loop's thread take the interpreter
                    held = time.perf_counter()
            if self._rows.runs >= ROW_GROUP_RUNS:
                self._write_rows()
        except Exception as error:
            self._fail(error)

    def finished(self, record_dir: Path, summary: ExperimentSummary) -> None:
        """Complete the index and put it in place (or build it from the YAML when this
        session did not see the whole record); a failure is a warning."""
        self.finish()

    def finish(self) -> None:
        """:meth:`finished`, without the summary it does not need (the index worker's
        end)."""
        if self._failed:
            return
        try:
            if self._whole and self._missed:
                self._catch_up()
            if self._whole and self._sees_everything():
                self._complete()
            else:
                self._discard()
                self.built = (replay_index if self._streamed else build_index)(self.root)
        except Exception as error:
            self._fail(error)

    def give_up_rows(self) -> None:
        """Some runs' paths will not come (the recording process dropped them, this worker
        being far behind): :meth:`finish` reads every planned run file not seen yet from
        disk, one at a time, as :meth:`runs_stored` does (a replay of the whole record
        instead took about 11 KB a run, and at a million runs longer than the recording
        waits for the index)."""
        self._missed = True

    def _catch_up(self) -> None:
        """Add the rows of the planned run files present and not seen (after
        :meth:`give_up_rows`)."""
        missing = [
            path
            for position, path in enumerate(self._planned())
            if not self._runs.read(position) and os.path.exists(self._prefix + path)
        ]
        for start in range(0, len(missing), ROW_GROUP_RUNS):
            self._add_each([(path, None, None) for path in missing[start : start + ROW_GROUP_RUNS]])

    def discard(self) -> None:
        """Remove what was staged (the recording process is gone: there is no end to wait
        for); never raises."""
        with contextlib.suppress(Exception):
            self._discard()

    def _add(self, path: str, data: bytes | None, trace: object) -> None:
        source = self._prefix + path  # a string join: a ``Path`` per run costs more
        if data is None:  # from disk: the trace is read back with the run
            # Stamped from the open file as it is read: the rows, the hash and the stamp
            # are all of the bytes read.
            data, stamp = read_stamped(source)
            full = run_record_from_yaml(data.decode("utf-8"), source=source, skip=_NO_PAYLOADS)
            trace = full.trace
            if isinstance(trace, TraceSummary):  # stored as an artifact beside the run
                trace = load_run_record(Path(source), root=self.root).trace
            run = full.model_copy(update={"trace": None})
        else:
            run = run_record_from_yaml(data.decode("utf-8"), source=source, skip=EVIDENCE_ONLY)
            stamp = stamp_of(source)
        raw = hashlib.sha256(data).digest()
        digest = raw.hex()
        self._runs.add(run.run.index, path, stamp, raw)
        record_json = run.model_dump_json()
        if self._problem is None and not reads_back_from_json(run, record_json):
            self._problem = f"run {run.run_id} does not read back identically from JSON"
        self._rows.add_run(
            run,
            path=path,
            sha256=digest,
            record_json=record_json,
            trace=trace if isinstance(trace, Trace) else None,
        )

    def _read_experiment(self) -> ExperimentRecord:
        """The experiment record as ``experiment.yaml`` gives it back (the index's copy);
        unlike ``load_experiment_record``, it changes no state of the process (the
        redaction rules the record names are the run's own)."""
        return experiment_record_with_plan_columns(self.root / EXPERIMENT_FILE)

    def _write_rows(self) -> None:
        where = self._stage() / self._partition
        for name, batch in self._rows.take_batches():
            writer = self._writers.get(name)
            if writer is None:
                where.mkdir(parents=True, exist_ok=True)
                writer = pq.ParquetWriter(where / f"{name}.parquet", SCHEMAS[name])
                self._writers[name] = writer
            writer.write_batch(batch)
            self._counts[name] += batch.num_rows
            if self._yields:  # one table at a time: the event loop's thread gets its turn
                time.sleep(0)

    def _stage(self) -> Path:
        if self._staged is None and self._streamed:  # as any rebuilt index is staged
            self._staged = staging_dir(self.root)
        if self._staged is None:
            staged = self.staging
            if staged.exists():  # left by a killed process that had this pid
                shutil.rmtree(staged)
            staged.mkdir()
            self._staged = staged
        return self._staged

    def _sees_everything(self) -> bool:
        """Whether the rows cover the record: every run file present was written through
        this listener, and nothing but summaries lies beside them (no post-derived or
        derived record, whose observations the runs' rows would lack)."""
        if self._runs.misplaced:
            return False
        if any(not name.startswith(_SUMMARIES) for name in side_files(self.root)):
            return False
        for position, path in enumerate(self._planned()):
            if self._runs.read_at(position, path):
                continue
            if self._runs.misplaced:  # a run file read at another planned run's path
                return False
            stamp = stamp_of(self.root / path)
            earlier = self._base.get(path)
            if stamp is None:
                if earlier is not None:  # removed meanwhile: the earlier index has its rows
                    return False
                continue
            if earlier is None or earlier.stamp != stamp:  # a run file the rows lack
                return False
        return True

    def _complete(self) -> None:
        self._write_rows()
        if self._base:
            self._copy_base_rows()
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()
        assert self._staged is not None
        experiment = self._experiment or self._read_experiment()
        files, runs = self._files()
        staged, self._staged = self._staged, None
        try:
            problem = finish_index(
                self.root,
                staged,
                experiment,
                files,
                runs,
                self._counts,
                self._problem,
                plan_columns=self._plan_columns(),
            )
        except BaseException:
            shutil.rmtree(staged, ignore_errors=True)
            raise
        self.built = IndexBuilt(
            self.root / INDEX_DIR, runs, dict(self._counts), problem is None, problem
        )

    def _files(self) -> tuple[pa.Table, int]:
        """The ``files`` table (the experiment record, the planned runs in plan order, the
        summaries) and how many planned runs it has present."""
        if self._base:  # a resumed session: the earlier index's sources fill the gaps
            runs = [
                self._runs.source(position, path)
                if self._runs.read(position)
                else self._base.get(path, Source(path, None, None))
                for position, path in enumerate(self._planned())
            ]
            plan = sources_table(runs)
        else:
            plan = self._runs.table(self._plan_columns()["path"])
        present = self._runs.count - plan.column("sha256").null_count
        tables = [
            sources_table(read_sources(self.root, [EXPERIMENT_FILE])),
            plan,
            sources_table(read_sources(self.root, side_files(self.root))),
        ]
        return pa.concat_tables(tables), present

    def _copy_base_rows(self) -> None:
        """Append the rows of the earlier index (this session's runs are not in it) to
        the staged tables, batch by batch."""
        base = index_root(self.root) / self._partition
        where = self._stage() / self._partition
        for name, schema in SCHEMAS.items():
            writer = self._writers.get(name)
            if writer is None:
                where.mkdir(parents=True, exist_ok=True)
                writer = self._writers[name] = pq.ParquetWriter(where / f"{name}.parquet", schema)
            with pq.ParquetFile(base / f"{name}.parquet") as file:
                for batch in file.iter_batches(batch_size=ROW_GROUP_RUNS):
                    writer.write_batch(batch)
                    self._counts[name] += batch.num_rows

    def _discard(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()
        if self._staged is not None:
            shutil.rmtree(self._staged, ignore_errors=True)
            self._staged = None

    def _fail(self, error: Exception) -> None:
        self._failed = True
        with contextlib.suppress(Exception):  # the warning below says enough
            self._discard()
        if self._streamed:
            raise error
        _log.warning(
            "Warning: the columnar index of %s was not written (%s: %s); the record is "
            "complete, `autobench index %s` builds the index",
            self.root,
            type(error).__name__,
            error,
            self.root,
        )


def stream_index(root: Path) -> IndexBuilt | None:
    """Build the index of the experiment recorded in ``root`` as the live index writes it
    (every planned run file present read from disk, a group of :data:`ROW_GROUP_RUNS` at a
    time, its rows written as a row group), so the memory it takes does not grow with the
    runs; ``None`` when files other than summaries lie beside the runs, or no
    ``experiment.yaml`` (:func:`~autobench.index._build.replay_index` then builds it, or
    says what is missing). A run file changed while it is read sends it to the replay too.
    Raises ``OSError`` and :class:`~autobench.records.RecordFormatError` (the file, line and
    column of a record that does not read)."""
    if not (root / EXPERIMENT_FILE).is_file():
        return None
    if any(not name.startswith(_SUMMARIES) for name in side_files(root)):
        return None
    live = LiveIndex.of_record(root, resumed=False, owner=os.getpid())
    live._streamed = True
    live.give_up_rows()  # every planned run file is read at the end
    live.finish()
    return live.built
