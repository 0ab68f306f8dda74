"""Reading an index: whether it is fresh, and the replayed experiment it holds."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from autobench.abp import gc_paused_for, settle_long_lived
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


def read_parquet(path: Path, columns: list[str] | None = None) -> pa.Table:
    """The table (or ``columns`` of it) in the Parquet file at ``path``; read without
    ``pyarrow.dataset``, whose import alone costs half a second."""
    with pq.ParquetFile(path) as file:
        return file.read(columns=columns)


def _runs(path: Path, count: int) -> tuple[RunRecord, ...]:
    """The run records of a ``runs`` table, validated batch by batch (the JSON text of one
    batch is held at a time, not the whole column). The records are returned whole and
    long-lived: they are settled in the collector's oldest generation (see
    :func:`~autobench.abp.settle_long_lived`), which spares the first young collection
    after the load a walk over every one of their objects."""
    # RunRecord.model_validate_json without its Python wrapper (10,000 calls)
    validate = RunRecord.__pydantic_validator__.validate_json
    runs: list[RunRecord] = []
    with gc_paused_for(count), pq.ParquetFile(path) as file:
        for batch in file.iter_batches(batch_size=2048, columns=["record_json"]):
            runs.extend(map(validate, batch.column(0).to_pylist()))
        settle_long_lived()
    return tuple(runs)


def _digests(files: Path) -> dict[str, str | None]:
    """``{path: sha256}`` of the ``files`` table at ``files``."""
    table = read_parquet(files, ["path", "sha256"])
    return dict(zip(table.column(0).to_pylist(), table.column(1).to_pylist(), strict=True))


def in_plan_order(
    experiment: ExperimentRecord, runs: tuple[RunRecord, ...]
) -> tuple[RunRecord, ...]:
    """``runs`` in the order of the plan (an index written as runs landed holds them in the
    order they ended)."""
    position = {planned.id: index for index, planned in enumerate(experiment.plan)}
    keys = [position.get(run.run_id, len(position)) for run in runs]
    if all(a <= b for a, b in itertools.pairwise(keys)):
        return runs
    return tuple(run for _, run in sorted(zip(keys, runs, strict=True), key=lambda pair: pair[0]))


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
    (see :func:`index_status`). Like replay, it adds the record's redaction rules to this
    process's."""
    root = Path(record_dir)
    status = index_status(root)
    if not status.reportable:
        return None
    manifest = read_manifest(root)
    assert manifest is not None
    base = index_root(root)
    try:
        experiment = ExperimentRecord.model_validate_json(
            (base / EXPERIMENT_JSON).read_text(encoding="utf-8")
        )
        runs = _runs(base / str(manifest["partition"]) / "runs.parquet", int(manifest["runs"]))
    except (OSError, ValueError, KeyError):
        return None
    runs = in_plan_order(experiment, runs)
    apply_record_redaction(experiment)
    return ExperimentResult(
        experiment=experiment,
        runs=runs,
        summary=load_experiment_summary(root),
        root_dir=root,
        registry=DEFAULT_SEMANTIC_REGISTRY.merged(experiment.semantic_registry),
        evidence_only=True,
    )
