"""Extraction replay: run a :class:`TraceExtractor` on recorded runs and store a derived record.

:func:`replay_extraction` reads one run (its ``run.yaml`` and, when the trace
was stored as an artifact, ``trace.yaml``), runs the extractor on the trace and
writes a *new* ``extraction.yaml`` under ``derived/`` (layout and sections in
:mod:`autobench.records._extraction_record`). Nothing that exists is ever
rewritten: the original record bytes stay as they are, and a second
extraction with the same extractor name and version is refused. It returns the
derived run record (:class:`DerivedRunRecord`): the run with the extracted
observations appended, carrying the stored record and its lineage.

Versions and lineage. Before writing, the newest derived record of the same
extractor name with a *lower* version is looked up for the run (versions
compare part by part, numerically where both parts are numbers). When there
is one it becomes ``lineage.parent``: its observations, diagnostics and
references owned by extractors that run again now are replaced by the new
ones, and those owned by other extractors are carried over, so one derived
record never mixes two versions of one extractor.
"""

from __future__ import annotations

import contextlib
import hashlib
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from autobench.abp import PROTOCOL_NAME, PROTOCOL_VERSION, Trace
from autobench.records._atomic import AtomicFiles
from autobench.records._errors import RecordingError
from autobench.records._extraction import (
    ExtractionDiagnostic,
    ExtractionResult,
    TraceExtractor,
    components,
    owned,
)
from autobench.records._extraction_io import (
    extraction_path,
    extraction_record_to_yaml,
    extractions_of,
    version_key,
)
from autobench.records._extraction_record import (
    DerivedRunRecord,
    ExtractionLineage,
    ExtractionRecord,
    ExtractorInfo,
)
from autobench.records._paths import run_record_path
from autobench.records._record_origin import origin_of
from autobench.records._records import RunRecord, TraceSummary
from autobench.records._replay import (
    EXPERIMENT_FILE,
    load_experiment_record,
    load_run_record,
    load_trace_artifact,
)
from autobench.records._run_accounting import (
    ACCOUNTING_EXTRACTOR,
    SpanIndex,
    accounting_observations,
)
from autobench.records._semantics import DEFAULT_SEMANTIC_REGISTRY


def replay_extraction(
    record_or_run: RunRecord | Path | str,
    extractor: TraceExtractor,
    *,
    root: Path | str | None = None,
    root_dir: Path | str | None = None,
) -> DerivedRunRecord:
    """Extract evidence from one recorded run, store it as a new derived record and return
    the derived run record.

    ``record_or_run`` is the path of a ``run.yaml`` or a :class:`RunRecord`. ``root`` (or
    its other name ``root_dir``) is the experiment directory; it defaults to the one a
    record read by :func:`load_run_record` came from, and for a path to the directory three
    levels above the run file's directory. Returns a :class:`DerivedRunRecord`: the run
    with the extracted observations appended, its ``lineage`` (parent run file and sha256,
    extractor name and version, previous derived record) and ``path`` (where the derived
    record was written, relative to the experiment directory); ``.extraction`` is the
    stored :class:`ExtractionRecord`. The given record and every existing file are left as
    they were. Raises ``TypeError`` when no directory is known (a record built or copied in
    memory without ``root``) or ``root`` and ``root_dir`` differ, :class:`RecordingError`
    when this extractor version was already extracted for the run, and the loaders' errors
    for damaged records.
    """
    return DerivedRunRecord.of(*_extract_and_store(record_or_run, extractor, root, root_dir))


def _extract_and_store(
    record_or_run: RunRecord | Path | str,
    extractor: TraceExtractor,
    root: Path | str | None,
    root_dir: Path | str | None,
) -> tuple[RunRecord, ExtractionRecord]:
    if root is not None and root_dir is not None and Path(root) != Path(root_dir):
        raise TypeError(f"replay_extraction: root={root!s} and root_dir={root_dir!s} differ")
    root = root if root is not None else root_dir
    run, root_dir, run_path = _resolve(record_or_run, root)
    run_file = root_dir.joinpath(*PurePosixPath(run_path).parts)
    digest = hashlib.sha256(run_file.read_bytes()).hexdigest() if run_file.is_file() else None
    trace, missing = _trace_of(run, root_dir, run_file, extractor.name)
    result = ExtractionResult(diagnostics=missing) + _extract(extractor, trace, run)
    parent = _parent(root_dir, run_path, extractor)
    if parent is not None:
        result = _carry_over(
            parent, result, {part.name for part in components(extractor)} | {ACCOUNTING_EXTRACTOR}
        )
    result = _with_totals(result, run, trace, root_dir)
    lineage = ExtractionLineage(
        run=run.run_id,
        experiment=run.experiment_id,
        case=run.case_id,
        variant=run.variant_id,
        run_record=run_path,
        run_sha256=digest,
        trace=trace.id if not missing else None,
        protocol=trace.protocol if not missing else PROTOCOL_NAME,
        protocol_version=trace.protocol_version if not missing else PROTOCOL_VERSION,
        semantic_registry=DEFAULT_SEMANTIC_REGISTRY.version,
        extractor=ExtractorInfo(name=extractor.name, version=extractor.version),
        components=tuple(
            ExtractorInfo(name=part.name, version=part.version) for part in components(extractor)
        ),
        parent=None if parent is None else parent.path,
        extracted_at=datetime.now(UTC),
    )
    record = ExtractionRecord(
        lineage=lineage,
        observations=result.observations,
        diagnostics=result.diagnostics,
        references=result.references,
    )
    relative = extraction_path(run_path, extractor.name, extractor.version)
    target = root_dir.joinpath(*PurePosixPath(relative).parts)
    if target.exists():
        raise RecordingError(
            f"cannot write {target}: {extractor.name} {extractor.version} was already "
            "extracted for this run, and derived records are never overwritten",
            path=target,
        )
    # Derived records add files under derived/ only: the schema copy goes beside their
    # cases/ directory, in derived/<extractor>/<version>/schemas/.
    files = AtomicFiles(root_dir, schema_root=root_dir.joinpath(*PurePosixPath(relative).parts[:3]))
    files.ensure_dir(target.parent, for_path=target)
    files.create(target, extraction_record_to_yaml(record).encode("utf-8"))
    files.sync()
    return run, record.stored_at(relative)


def replay_experiment_extraction(
    root: Path | str, extractor: TraceExtractor
) -> tuple[ExtractionRecord, ...]:
    """Extract and store, as :func:`replay_extraction` does, for every recorded run of the
    experiment in ``root``, in plan order (planned runs without a ``run.yaml`` are skipped);
    returns the stored :class:`ExtractionRecord` of each (``record.apply(run)`` gives its
    derived run record)."""
    root_dir = Path(root)
    experiment = load_experiment_record(root_dir)
    records = []
    for planned in experiment.plan:
        path = root_dir.joinpath(*PurePosixPath(planned.path).parts)
        if path.is_file():
            records.append(_extract_and_store(path, extractor, root_dir, None)[1])
    return tuple(records)


def _resolve(
    record_or_run: RunRecord | Path | str, root: Path | str | None
) -> tuple[RunRecord, Path, str]:
    if isinstance(record_or_run, RunRecord):
        run = record_or_run
        origin = origin_of(run)
        if root is None and origin is None:
            raise TypeError(
                f"replay_extraction(run {run.run_id!r}) needs root=, the experiment directory: "
                "the record was not read by load_run_record from a record directory"
            )
        root_dir = Path(root) if root is not None else origin.root  # type: ignore[union-attr]
        if origin is not None and origin.root.resolve() == root_dir.resolve():
            with contextlib.suppress(ValueError):
                return (
                    run,
                    root_dir,
                    origin.path.resolve().relative_to(root_dir.resolve()).as_posix(),
                )
        planned = {item.id: item.path for item in load_experiment_record(root_dir).plan}
        return (
            run,
            root_dir,
            planned.get(run.run_id) or run_record_path(run.case_id, run.variant_id),
        )
    path = Path(record_or_run)
    if root is None:
        candidate = path.parent.parent.parent.parent
        if not (candidate / EXPERIMENT_FILE).is_file():
            raise TypeError(
                f"replay_extraction({path}) needs root=: no experiment.yaml three levels up"
            )
        root = candidate
    root_dir = Path(root)
    run = load_run_record(path, root=root_dir)
    return run, root_dir, path.resolve().relative_to(root_dir.resolve()).as_posix()


def _trace_of(
    run: RunRecord, root: Path, run_file: Path, extractor: str
) -> tuple[Trace, tuple[ExtractionDiagnostic, ...]]:
    trace = run.trace
    if isinstance(trace, TraceSummary):
        trace = load_trace_artifact(root, trace, source=run_file)
    if isinstance(trace, Trace):
        return trace, ()
    missing = ExtractionDiagnostic(
        code="missing_trace",
        message=f"run {run.run_id!r} has no recorded trace",
        extractor=extractor,
    )
    return Trace(id=f"missing-{run.run_id}"), (missing,)


def _extract(extractor: TraceExtractor, trace: Trace, run: RunRecord) -> ExtractionResult:
    result = extractor.extract(trace, run)
    return result if len(components(extractor)) > 1 else owned(extractor, result)


def _parent(root: Path, run_path: str, extractor: TraceExtractor) -> ExtractionRecord | None:
    current = version_key(extractor.version)
    older = [
        record
        for record in extractions_of(root, run_path, extractor.name)
        if version_key(record.extractor.version) < current
    ]
    return max(older, key=lambda record: version_key(record.extractor.version), default=None)


def _with_totals(
    result: ExtractionResult, run: RunRecord, trace: Trace, root: Path
) -> ExtractionResult:
    """``result`` with the run totals of its additive observations that need the trace
    (span parentage, layers), computed now that the trace is at hand; the others are
    computed when the record is read (``autobench.records._run_accounting``)."""
    registry = DEFAULT_SEMANTIC_REGISTRY.merged(load_experiment_record(root).semantic_registry)
    totals = accounting_observations(
        result.observations,
        registry,
        SpanIndex.of(trace),
        case_id=run.case_id,
        variant_id=run.variant_id,
        trace_dependent_only=True,
        pools=("extracted",),
    )
    return result + ExtractionResult(observations=totals)


def _carry_over(
    parent: ExtractionRecord, result: ExtractionResult, replaced: set[str]
) -> ExtractionResult:
    kept = ExtractionResult(
        observations=tuple(
            item for item in parent.observations if item.tags.get("extractor") not in replaced
        ),
        diagnostics=tuple(item for item in parent.diagnostics if item.extractor not in replaced),
        references=tuple(item for item in parent.references if item.extractor not in replaced),
    )
    return kept + result
