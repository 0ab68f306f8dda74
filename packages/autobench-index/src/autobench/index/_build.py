"""``build_index``: the columnar index of one record directory, from its YAML records."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from autobench.abp import Trace, gc_paused
from autobench.index._layout import (
    EXPERIMENT_JSON,
    FILES,
    FORMAT,
    MANIFEST,
    PLAN,
    partition,
    records_version,
    remove_leftovers,
    replace_index,
    staging_dir,
)
from autobench.index._round_trip import reads_back_from_json
from autobench.index._sources import (
    EXPERIMENT_FILE,
    Source,
    read_sources,
    side_files,
    sources_table,
)
from autobench.index._tables import PLAN_SCHEMA, TableRows, plan_table
from autobench.records import (
    Case,
    ExperimentRecord,
    RunRecord,
    replay_experiment,
)


@dataclass(frozen=True, slots=True)
class IndexBuilt:
    """What :func:`build_index` wrote: the index directory, the runs and rows per table,
    and whether reports may read it (``reportable``; else ``reason`` says why not)."""

    path: Path
    runs: int
    rows: dict[str, int]
    reportable: bool
    reason: str | None


def _evidence_only(runs: Sequence[RunRecord]) -> list[RunRecord]:
    """Each of ``runs`` as a replay with ``evidence_only`` reads it: its case cut to its
    id, no output, no trace (what :data:`~autobench.records.EVIDENCE_ONLY` leaves unread).
    The cut cases are copies of one case built once (``model_construct`` inspects each
    default's factory per call: five times the cost of a copy); they share its empty
    defaults, which nothing changes (the records are dumped to JSON and dropped)."""
    template = Case.model_construct(id="")
    return [
        run.model_copy(
            update={
                "case": template.model_copy(update={"id": run.case_id}),
                "output": None,
                "trace": None,
            }
        )
        for run in runs
    ]


def _round_trip_problem(runs: Sequence[RunRecord], texts: list[str]) -> str | None:
    for run, text in zip(runs, texts, strict=True):
        if not reads_back_from_json(run, text):
            return f"run {run.run_id} does not read back identically from JSON"
    return None


def build_index(record_dir: Path | str) -> IndexBuilt:
    """Build (or rebuild, whole) the index of the experiment recorded in ``record_dir``
    and put it in place atomically (``record_dir/index``, see :mod:`._layout`).

    A record whose only files beside its runs are summaries is read one group of run files
    at a time, as the live index reads runs that land
    (:func:`~autobench.index._live.stream_index`: memory flat in the number of runs); any
    other (a post-derived or derived record changes what its runs read back as) is
    replayed whole (:func:`replay_index`). Raises as :func:`replay_index` does.
    """
    from autobench.index._live import stream_index  # (the live index builds on this module)

    built = stream_index(Path(record_dir))
    return built if built is not None else replay_index(record_dir)


def replay_index(record_dir: Path | str) -> IndexBuilt:
    """:func:`build_index` by replaying the record whole (its runs held at once).

    The sources are stamped and hashed first, then replayed (evidence only, as reports
    read them) and each run's trace read for the ``spans`` and ``llm_calls`` tables; a
    source that changes meanwhile leaves an index that the next freshness check finds
    stale. Raises what :func:`~autobench.records.replay_experiment` raises
    (``MissingRecordError``, ``RecordFormatError``); the YAML is never written.
    """
    root = Path(record_dir)
    experiment_source = read_sources(root, [EXPERIMENT_FILE])
    # Thousands of records, none garbage until their rows are taken: the collector stays
    # off from the replay until they are freed (by reference counting, inside the block),
    # so no collection traverses them.
    with gc_paused():
        # One replay with the traces (the spans tables need them), each run then cut to
        # the evidence a report reads: the record reports replay with ``evidence_only``.
        result = replay_experiment(root)
        experiment: ExperimentRecord = result.experiment
        planned = [planned.path for planned in experiment.plan]
        sources: list[Source] = [
            *experiment_source,
            *read_sources(root, planned),
            *read_sources(root, side_files(root)),
        ]
        digests = {source.path: source.sha256 for source in sources}
        paths = {planned.id: planned.path for planned in experiment.plan}
        rows = TableRows()
        runs = _evidence_only(result.runs)
        texts = [run.model_dump_json() for run in runs]
        for full, run, text in zip(result.runs, runs, texts, strict=True):
            path = paths[run.run_id]
            trace = full.trace
            rows.add_run(
                run,
                path=path,
                sha256=digests.get(path) or "",
                record_json=text,
                trace=trace if isinstance(trace, Trace) else None,
            )
        problem = _round_trip_problem(runs, texts)
        count = len(runs)
        del result, runs, texts  # the records (traces and all) are in the rows now
    staged = staging_dir(root)
    try:
        where = staged / partition(experiment.benchmark.id, experiment.experiment.id)
        where.mkdir(parents=True)
        counts = {}
        for name, table in rows.tables():
            pq.write_table(table, where / f"{name}.parquet")
            counts[name] = table.num_rows
        problem = finish_index(root, staged, experiment, sources, count, counts, problem)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    return IndexBuilt(root / "index", count, counts, problem is None, problem)


def finish_index(
    root: Path,
    staged: Path,
    experiment: ExperimentRecord,
    sources: list[Source] | pa.Table,
    runs: int,
    counts: dict[str, int],
    problem: str | None,
    *,
    plan_columns: Mapping[str, pa.ChunkedArray] | None = None,
) -> str | None:
    """Complete the index staged in ``staged`` (its tables written: ``counts`` rows each,
    ``runs`` runs) with the ``files`` table of ``sources`` (or ``sources`` itself, a
    ``files`` table), ``experiment.json`` (without the
    plan), the plan's table (of ``plan_columns``, the plan's columns by name, when given)
    and the manifest, and put it in place of ``root``'s index. Returns why reports may not read it
    (``problem``, or the experiment record not reading back from JSON), else ``None``.
    Raises ``OSError`` (and pyarrow's errors) when a write fails; ``staged`` is then the
    caller's to remove."""
    plan = experiment.plan
    head = experiment.model_copy(update={"plan": ()})
    experiment_json = head.model_dump_json()
    if problem is None and ExperimentRecord.model_validate_json(experiment_json) != head:
        problem = "the experiment record does not read back identically from JSON"
    files = sources if isinstance(sources, pa.Table) else sources_table(sources)
    pq.write_table(files, staged / FILES)
    plan_rows = (
        plan_table(plan)
        if plan_columns is None
        else pa.Table.from_arrays(
            [plan_columns[name] for name in PLAN_SCHEMA.names], schema=PLAN_SCHEMA
        )
    )
    pq.write_table(plan_rows, staged / PLAN)
    (staged / EXPERIMENT_JSON).write_text(experiment_json, encoding="utf-8")
    manifest = {
        "format": FORMAT,
        "autobench_records": records_version(),
        "benchmark": experiment.benchmark.id,
        "experiment": experiment.experiment.id,
        "partition": partition(experiment.benchmark.id, experiment.experiment.id).as_posix(),
        "built_at": datetime.now(UTC).isoformat(),
        "runs": runs,
        "rows": counts,
        "reportable": problem is None,
        "not_reportable_because": problem,
    }
    (staged / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    replace_index(root, staged)
    remove_leftovers(root)
    return problem
