"""Reading an index: whether it is fresh, and the replayed experiment it holds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pyarrow as pa
import pyarrow.parquet as pq

from autobench.index._arrow import combined, shared_pylist
from autobench.index._columns import PlanCases, decoded, run_table
from autobench.index._layout import (
    EXPERIMENT_JSON,
    FILES,
    FORMAT,
    PLAN,
    index_root,
    read_manifest,
    records_version,
)
from autobench.index._sources import StampReader, side_files
from autobench.index._tables import PLAN_SCHEMA
from autobench.records import (
    DEFAULT_SEMANTIC_REGISTRY,
    ExperimentRecord,
    ExperimentResult,
    PlanTable,
    RunRecord,
    apply_record_redaction,
    load_experiment_summary,
)


def read_parquet(path: Path, columns: list[str] | None = None) -> pa.Table:
    """The table (or ``columns`` of it) in the Parquet file at ``path``; read without
    ``pyarrow.dataset``, whose import alone costs half a second."""
    with pq.ParquetFile(path) as file:
        return file.read(columns=columns)


def _digests(files: Path) -> dict[str, str | None]:
    """``{path: sha256}`` of the ``files`` table at ``files``."""
    table = read_parquet(files, ["path", "sha256"])
    return dict(zip(table.column(0).to_pylist(), table.column(1).to_pylist(), strict=True))


@dataclass(frozen=True, slots=True)
class IndexStatus:
    """Whether the index of a record directory can be trusted: ``fresh`` when every
    source is unchanged since it was built; otherwise ``reason`` says what is missing or
    changed (``"no index"``, ``"cases/x/a/run.yaml changed"``, ...). ``reportable`` is
    false when reports must not read it even though it is fresh (a run that JSON does
    not give back identically)."""

    fresh: bool
    reason: str | None
    reportable: bool = False


def index_status(record_dir: Path | str) -> IndexStatus:
    """The :class:`IndexStatus` of ``record_dir/index``: stats every source (and hashes
    those whose stamp changed; the stored hashes are read only then); never raises for a
    damaged index (it is then stale)."""
    check = _start_check(Path(record_dir))
    return check if isinstance(check, IndexStatus) else check.finish()


class _Check:
    """A freshness check under way: the sources' stamps are being read (by a child process
    for a large record, see :class:`~autobench.index._sources.StampReader`) while the
    caller does other work; :meth:`finish` waits for them and gives the status."""

    def __init__(
        self, root: Path, manifest: dict[str, Any], reader: StampReader, side: list[str]
    ) -> None:
        self.root = root
        self.manifest = manifest
        self.reader = reader
        self.side = side

    def finish(self) -> IndexStatus:
        files = index_root(self.root) / FILES
        try:
            change, stored_side = self.reader.first_change(lambda: _digests(files))
        except (OSError, ValueError, KeyError) as error:
            return IndexStatus(False, f"index files table unreadable: {error}")
        finally:
            self.reader.close()
        if change is None:
            added = [path for path in self.side if path not in stored_side]
            change = f"{added[0]} was added" if added else None
        if change is not None:
            return IndexStatus(False, change)
        reportable = self.manifest.get("reportable") is True
        reason = None if reportable else self.manifest.get("not_reportable_because")
        return IndexStatus(True, reason, reportable)

    def close(self) -> None:
        self.reader.close()


def _start_check(root: Path) -> IndexStatus | _Check:
    """The status of an index that is surely stale (missing, of another format or version,
    its files table unreadable), else the check of its sources, started."""
    manifest = read_manifest(root)
    if manifest is None:
        return IndexStatus(False, "no index")
    if manifest.get("format") != FORMAT:
        return IndexStatus(False, f"index format {manifest.get('format')!r}, not {FORMAT}")
    if manifest.get("autobench_records") != records_version():
        return IndexStatus(False, f"built by autobench-records {manifest.get('autobench_records')}")
    side = side_files(root)
    try:
        file = pq.ParquetFile(index_root(root) / FILES)
    except (OSError, ValueError, KeyError) as error:
        return IndexStatus(False, f"index files table unreadable: {error}")
    try:
        return _Check(root, manifest, StampReader(root, file, side), side)
    except (OSError, ValueError, KeyError) as error:
        file.close()
        return IndexStatus(False, f"index files table unreadable: {error}")


def load_index(record_dir: Path | str) -> ExperimentResult | None:
    """The experiment recorded in ``record_dir`` as its index holds it: equal to
    ``replay_experiment(record_dir, evidence_only=True)`` (same experiment record, runs in
    plan order with every derived and post-derived observation merged, summary, semantic
    registry), or ``None`` when the index is missing, stale, damaged or not reportable
    (see :func:`index_status`). The runs are a :class:`~autobench.records.RunTable`:
    their ids, statuses and metric values are read from the tables, and each run record
    is validated from its stored JSON when first used (a run edited into something that
    is not a run record raises :class:`pydantic.ValidationError` then). Like replay, it
    adds the record's redaction rules to this process's."""
    root = Path(record_dir)
    check = _start_check(root)
    if isinstance(check, IndexStatus):
        return None
    # The sources' stamps are read meanwhile (another process, for a large record); nothing
    # loaded is used unless they show the index fresh.
    try:
        manifest = check.manifest
        base = index_root(root)
        try:
            experiment, plan_ids, plan_cases = _experiment(base)
            runs = run_table(base / str(manifest["partition"]), plan_ids, plan_cases)
            del plan_cases
        except Exception as error:  # a stale index may hold anything: never an error then
            if isinstance(error, OSError | ValueError | KeyError) or not check.finish().fresh:
                return None
            raise
        if not check.finish().reportable:
            return None
    finally:
        check.close()
        pa.default_memory_pool().release_unused()  # the check's and the load's Arrow pages
    apply_record_redaction(experiment)
    return ExperimentResult(
        experiment=experiment,
        runs=cast(tuple[RunRecord, ...], runs),
        summary=load_experiment_summary(root),
        root_dir=root,
        registry=DEFAULT_SEMANTIC_REGISTRY.merged(experiment.semantic_registry),
        evidence_only=True,
    )


def _experiment(base: Path) -> tuple[ExperimentRecord, pa.Array, PlanCases | None]:
    """The experiment record of the index root ``base``: ``experiment.json`` validated, its
    plan a :class:`~autobench.records.PlanTable` over ``plan.parquet`` (whose columns are
    read when first asked for, but its cases, read here and given as they are coded for the
    run table), the plan's run ids as an Arrow array, and its cases
    (:class:`~autobench.index._columns.PlanCases`, ``None`` when the column has nulls).
    Raises ``OSError``, ``ValueError`` (pydantic's and pyarrow's errors included) for a
    damaged index."""
    head = ExperimentRecord.model_validate_json(
        (base / EXPERIMENT_JSON).read_text(encoding="utf-8")
    )
    path = base / PLAN
    with pq.ParquetFile(path) as file:
        if not file.schema_arrow.equals(PLAN_SCHEMA):
            raise ValueError(f"{path}: not the plan's columns")
        count = file.metadata.num_rows
    cases = PlanCases.of(combined(read_parquet(path, ["case"]).column(0)))
    coded = None if cases is None else (cases.names, cases.codes)  # not the Arrow array

    def column(name: str) -> Sequence[str | None]:
        if name == "case" and coded is not None:
            return decoded(*coded)
        return shared_pylist(read_parquet(path, [name]).column(0))

    plan = PlanTable(count, column)
    ids = combined(read_parquet(path, ["id"]).column(0))
    fields = {name: getattr(head, name) for name in ExperimentRecord.model_fields}
    fields["plan"] = plan  # trusted: built from validated parts
    experiment = ExperimentRecord.model_construct(head.model_fields_set, **fields)
    return experiment, ids, cases
