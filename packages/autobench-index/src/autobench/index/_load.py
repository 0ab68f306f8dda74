"""Reading an index: whether it is fresh, and the replayed experiment it holds."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pyarrow as pa
import pyarrow.parquet as pq

from autobench.abp import gc_paused
from autobench.index._columns import run_table
from autobench.index._layout import (
    EXPERIMENT_JSON,
    FILES,
    FORMAT,
    index_root,
    read_manifest,
    records_version,
)
from autobench.index._sources import STAMP_COLUMNS, first_change, side_files, stored_stamps
from autobench.records import (
    DEFAULT_SEMANTIC_REGISTRY,
    ExperimentRecord,
    ExperimentResult,
    RunRecord,
    apply_record_redaction,
    load_experiment_summary,
)
from autobench.records._fields_sets import share_flat_fields_sets


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
    root = Path(record_dir)
    manifest = read_manifest(root)
    if manifest is None:
        return IndexStatus(False, "no index")
    if manifest.get("format") != FORMAT:
        return IndexStatus(False, f"index format {manifest.get('format')!r}, not {FORMAT}")
    if manifest.get("autobench_records") != records_version():
        return IndexStatus(False, f"built by autobench-records {manifest.get('autobench_records')}")
    files = index_root(root) / FILES
    try:
        stored = stored_stamps(read_parquet(files, STAMP_COLUMNS))
    except (OSError, ValueError, KeyError) as error:
        return IndexStatus(False, f"index files table unreadable: {error}")
    try:
        change = first_change(root, stored, lambda: _digests(files))
    except (OSError, ValueError, KeyError) as error:
        return IndexStatus(False, f"index files table unreadable: {error}")
    if change is None:
        known = {path for path, _ in stored}
        added = [path for path in side_files(root) if path not in known]
        change = f"{added[0]} was added" if added else None
    if change is not None:
        return IndexStatus(False, change)
    reportable = manifest.get("reportable") is True
    return IndexStatus(
        True, None if reportable else manifest.get("not_reportable_because"), reportable
    )


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
    status = index_status(root)
    if not status.reportable:
        return None
    manifest = read_manifest(root)
    assert manifest is not None
    base = index_root(root)
    try:
        with gc_paused():
            experiment = ExperimentRecord.model_validate_json(
                (base / EXPERIMENT_JSON).read_text(encoding="utf-8")
            )
            share_flat_fields_sets(experiment.plan)  # one planned run per run: one shared set
        runs = run_table(base / str(manifest["partition"]), experiment)
    except (OSError, ValueError, KeyError):
        return None
    apply_record_redaction(experiment)
    return ExperimentResult(
        experiment=experiment,
        runs=cast(tuple[RunRecord, ...], runs),
        summary=load_experiment_summary(root),
        root_dir=root,
        registry=DEFAULT_SEMANTIC_REGISTRY.merged(experiment.semantic_registry),
        evidence_only=True,
    )
