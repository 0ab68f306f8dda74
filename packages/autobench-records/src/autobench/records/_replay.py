"""Loading record directories, replay, and recording a finished in-memory result.

Replay reads ``experiment.yaml``, ``summary.yaml`` (when present) and every
planned ``run.yaml`` that exists, in plan order, into an
:class:`ExperimentResult`. To each run it adds, in this order:

* for records written before run totals (no ``run.accounting``), the totals of
  additive evidence by the same rules as a live run, with the run's trace for
  span parentage and layers (read for these runs even when replaying evidence
  only), see :mod:`autobench.records._run_accounting`;
* the observations of its derived records (``derived/``, written by
  :func:`~autobench.records.replay_extraction`), the highest version of each
  extractor;
* the observations of ``post_derived.yaml`` (when present).

It imports no task or scorer module and never writes into the directory. Trace
artifacts are only read from inside the experiment directory.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from autobench.abp import Trace, extend_redaction, gc_paused_for, pattern_problem
from autobench.records._codec import (
    EVIDENCE_ONLY,
    experiment_record_from_yaml,
    experiment_summary_from_yaml,
    post_derived_from_yaml,
    run_record_from_body,
    run_record_from_yaml,
    trace_from_yaml,
)
from autobench.records._directory import RecordDirectoryWriter, latest_session_file
from autobench.records._errors import MissingRecordError, RecordFormatError
from autobench.records._extraction_io import DerivedRecords, merge_extractions
from autobench.records._locate import locate_value
from autobench.records._ownership import RecordPaths, check_own_run, record_file
from autobench.records._parallel import parse_run_bodies, worker_count
from autobench.records._parsed_runs import ParsedRuns, file_stamp
from autobench.records._post_derived import POST_DERIVED_FILE, PostDerivedRecord, merge_post_derived
from autobench.records._record_origin import remember_origin
from autobench.records._records import (
    ExperimentRecord,
    ExperimentSummary,
    RunRecord,
    StatusCounts,
    TraceSummary,
)
from autobench.records._result import ExperimentResult
from autobench.records._run_accounting import NO_SPANS, SpanIndex, account_run, needs_accounting
from autobench.records._semantics import DEFAULT_SEMANTIC_REGISTRY, SemanticRegistry

EXPERIMENT_FILE = "experiment.yaml"
SUMMARY_FILE = "summary.yaml"


def _read_text(path: Path, what: str) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise MissingRecordError(f"no {what} here", path=path) from None
    except IsADirectoryError:
        raise RecordFormatError(f"expected a {what} file, found a directory", path=path) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RecordFormatError(f"not UTF-8 text (byte {error.start})", path=path) from error


def load_experiment_record(root: Path) -> ExperimentRecord:
    """Read ``<root>/experiment.yaml``.

    Raises :class:`MissingRecordError` (also a ``FileNotFoundError``) naming the
    path when ``root`` or its ``experiment.yaml`` does not exist, and
    :class:`RecordFormatError` when the file is malformed or too new. The redaction
    rules the record names (``redaction:``) are added to this process's
    (:func:`apply_record_redaction`), so whatever is shown or written from the record
    redacts them.
    """
    root = Path(root)
    if not root.is_dir():
        raise MissingRecordError("no record directory here", path=root)
    path = root / EXPERIMENT_FILE
    experiment = experiment_record_from_yaml(
        _read_text(path, "experiment record (experiment.yaml)"), source=path
    )
    apply_record_redaction(experiment, path)
    return experiment


def apply_record_redaction(experiment: ExperimentRecord, source: Path | None = None) -> None:
    """Add the redaction rules ``experiment`` names to those of this process
    (:func:`autobench.abp.extend_redaction`). Raises :class:`RecordFormatError` naming
    ``source`` and the line and column of a pattern that
    :func:`autobench.abp.pattern_problem` refuses (a tampered record could otherwise name a
    pattern that stalls every command on its text)."""
    rules = experiment.redaction
    if rules is None:
        return
    for index, pattern in enumerate(rules.patterns):
        problem = pattern_problem(pattern)
        if problem is None:
            continue
        where = None
        if source is not None:
            with contextlib.suppress(OSError, UnicodeDecodeError):
                where = locate_value(
                    source.read_text(encoding="utf-8"), ("redaction", "patterns", index)
                )
        raise RecordFormatError(
            f"redaction pattern {pattern!r} {problem}",
            path=source,
            line=None if where is None else where[0],
            column=None if where is None else where[1],
        )
    extend_redaction(keys=rules.keys, patterns=rules.patterns, query_params=rules.query_params)


def load_experiment_summary(root: Path) -> ExperimentSummary | None:
    """Read the latest summary: ``<root>/summary.yaml``, or ``summary.<n>.yaml`` with the
    highest ``n`` when the experiment was resumed; ``None`` when no session finished."""
    path = latest_session_file(Path(root), SUMMARY_FILE)
    if path is None:
        return None
    return experiment_summary_from_yaml(_read_text(path, "experiment summary"), source=path)


def load_post_derived(root: Path) -> PostDerivedRecord | None:
    """Read ``<root>/post_derived.yaml``; ``None`` when the experiment has none (no
    ``post_derive`` in its spec, or it stopped before post-derivation). A resumed
    experiment's latest ``post_derived.<n>.yaml`` covers every run and wins."""
    path = latest_session_file(Path(root), POST_DERIVED_FILE)
    if path is None:
        return None
    return post_derived_from_yaml(_read_text(path, "post-derived record"), source=path)


def load_run_record(
    path: Path | str,
    *,
    root: Path | str | None = None,
    evidence_only: bool = False,
    root_dir: Path | str | None = None,
) -> RunRecord:
    """Read one ``run.yaml`` (``root_dir`` is another name of ``root``).

    A trace stored as an artifact is loaded back into a full :class:`Trace`
    from the experiment directory ``root``; when ``root`` is ``None`` it is
    taken as the directory three levels above ``path``
    (``<root>/cases/<case>/<variant>/run.yaml``) if that holds an
    ``experiment.yaml``, and otherwise the :class:`TraceSummary` is kept.
    With ``evidence_only`` the case payloads, output and trace are not read
    (see :data:`EVIDENCE_ONLY`): what reports need, several times faster.
    Raises :class:`MissingRecordError` when the file does not exist and
    :class:`RecordFormatError` when it (or its trace artifact) is malformed,
    too new, altered (size or sha256 mismatch) or points outside ``root``.
    """
    path = Path(path)
    if root is not None and root_dir is not None and Path(root) != Path(root_dir):
        raise TypeError(f"load_run_record: root={root!s} and root_dir={root_dir!s} differ")
    chosen = root if root is not None else root_dir
    skip = EVIDENCE_ONLY if evidence_only else frozenset()
    run = run_record_from_yaml(_read_text(path, "run record"), source=path, skip=skip)
    root_path = _root_of(path, None if chosen is None else Path(chosen))
    run = _with_full_trace(run, path, root_path)
    if root_path is not None:
        remember_origin(run, root=root_path, path=path)
    return run


def _root_of(path: Path, root: Path | None) -> Path | None:
    """``root``, else the directory three levels above ``path``'s directory when it holds an
    ``experiment.yaml`` (``<root>/cases/<case>/<variant>/run.yaml``), else ``None``."""
    if root is not None:
        return root
    candidate = path.parent.parent.parent.parent
    return candidate if (candidate / EXPERIMENT_FILE).is_file() else None


def _with_full_trace(run: RunRecord, path: Path, root: Path | None) -> RunRecord:
    """``run`` with a trace stored as an artifact loaded back from inside ``root``."""
    if not isinstance(run.trace, TraceSummary):
        return run
    root = _root_of(path, root)
    if root is None:
        return run
    return run.model_copy(update={"trace": load_trace_artifact(Path(root), run.trace, source=path)})


def _run_path(paths: RecordPaths, relative: str, run_id: str) -> Path:
    """Where the plan puts a run file; refuses a path that leaves the record."""
    source = paths.root / EXPERIMENT_FILE
    return paths.file(relative, what=f"run {run_id!r}", source=source)


def check_run_files(
    run: RunRecord, root: Path, *, source: Path, paths: RecordPaths | None = None
) -> None:
    """Raise :class:`RecordFormatError` (located in ``source``, the run's file) when a path
    the run names (its artifacts, its case's attachments, its offloaded trace) leaves the
    record directory ``root``; nothing is opened. ``paths`` (for ``root``) carries what
    earlier checks of the same record looked at."""
    paths = RecordPaths(root) if paths is None else paths
    for index, ref in enumerate(run.artifacts):
        if ref.path is not None:
            paths.file(ref.path, what="artifact", source=source, at=("artifacts", index, "path"))
    for index, ref in enumerate(run.case.attachments):
        if ref.path is not None:
            at = ("case", "attachments", index, "path")
            paths.file(ref.path, what="attachment", source=source, at=at)
    if isinstance(run.trace, TraceSummary) and run.trace.artifact.path is not None:
        paths.file(run.trace.artifact.path, what="trace artifact", source=source, at=_TRACE_PATH)


_TRACE_PATH = ("trace", "artifact", "path")


def load_trace_artifact(root: Path, summary: TraceSummary, *, source: Path) -> Trace:
    """The full trace a :class:`TraceSummary` refers to, read from inside ``root``."""
    relative = summary.artifact.path
    if relative is None:
        raise RecordFormatError("the trace summary has no artifact path", path=source)
    path = record_file(root, relative, what="trace artifact", source=source, at=_TRACE_PATH)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise MissingRecordError(f"trace artifact of {source} is missing", path=path) from None
    expected = summary.artifact.sha256
    if expected is not None and hashlib.sha256(data).hexdigest() != expected:
        raise RecordFormatError(
            "trace artifact does not match the sha256 in its run record", path=path
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RecordFormatError(f"not UTF-8 text (byte {error.start})", path=path) from error
    return trace_from_yaml(text, source=path)


def replay_experiment(
    source: Path | ExperimentRecord,
    root_dir: Path | None = None,
    *,
    evidence_only: bool = False,
    workers: int | None = None,
    extractions: bool = True,
    meanwhile: Callable[[], object] | None = None,
    parsed: ParsedRuns | None = None,
) -> ExperimentResult:
    """Rebuild an :class:`ExperimentResult` from a record directory.

    ``source`` is the directory, or an already loaded :class:`ExperimentRecord`
    (``root_dir`` then names its directory and is required). Runs come in plan
    order; planned runs without a ``run.yaml`` are allowed and listed by
    ``result.missing_runs``. Each run gets the evidence of the module docstring
    added (``extractions=False`` leaves derived records out). ``registry`` is
    the built-in semantic registry with the experiment's own entries laid over
    it. With ``evidence_only`` runs are read without case payloads, output and
    trace (``result.evidence_only`` is then true); reports and exports need no
    more. ``workers`` is the number of processes that parse run files (default:
    several for large experiments, see :mod:`autobench.records._parallel`).
    ``meanwhile``, when given, is called once in this process while worker
    processes parse the run files (before reading, when this process parses
    them): work the caller needs next, such as importing a slow module,
    overlaps with the reading. ``parsed`` (a :class:`ParsedRuns` kept between replays of
    this directory) spares parsing run files unchanged since an earlier replay given it.
    Raises :class:`MissingRecordError` / :class:`RecordFormatError` as the
    loaders do.
    """
    if isinstance(source, ExperimentRecord):
        if root_dir is None:
            raise TypeError("replay_experiment(record) needs root_dir, the record directory")
        experiment = source
        root = Path(root_dir)
        apply_record_redaction(experiment)
    else:
        root = Path(root_dir if root_dir is not None else source)
        experiment = load_experiment_record(Path(source))
    registry = DEFAULT_SEMANTIC_REGISTRY.merged(experiment.semantic_registry)
    paths = RecordPaths(root)
    planned_files = [
        (planned, _run_path(paths, planned.path, planned.id)) for planned in experiment.plan
    ]
    stamped = [(planned, path, file_stamp(path)) for planned, path in planned_files]
    present = [(planned, path, stamp) for planned, path, stamp in stamped if stamp is not None]
    kept = [
        None if parsed is None else parsed.get(path, stamp, evidence_only=evidence_only)
        for _, path, stamp in present
    ]
    unparsed = [path for (_, path, _), run in zip(present, kept, strict=True) if run is None]
    if parsed is not None:
        parsed.pending, parsed.last_parsed = len(unparsed), 0
    skip = EVIDENCE_ONLY if evidence_only else frozenset()
    workers = worker_count(len(unparsed)) if workers is None else max(1, workers)
    derived = DerivedRecords(root) if extractions else None
    runs: list[RunRecord] = []
    # Thousands of long-lived records: the collector would traverse them again and again.
    with gc_paused_for(len(present)):
        if workers > 1:
            parsed_bodies = iter(parse_run_bodies(unparsed, skip, workers, meanwhile))
        else:
            if meanwhile is not None:
                meanwhile()
            parsed_bodies = iter([None] * len(unparsed))
        for (planned, path, stamp), known in zip(present, kept, strict=True):
            if known is not None:
                run = known
            else:
                body = next(parsed_bodies)
                if body is None:
                    run = load_run_record(path, root=root, evidence_only=evidence_only)
                else:
                    run = _with_full_trace(run_record_from_body(body, source=path), path, root)
                if parsed is not None:
                    parsed.put(path, stamp, run, evidence_only=evidence_only)
            if run.run_id != planned.id:
                raise RecordFormatError(
                    f"holds run {run.run_id!r}, but the plan puts run {planned.id!r} here",
                    path=path,
                )
            check_own_run(experiment, planned, run, source=path)
            check_run_files(run, root, source=path, paths=paths)
            run = _accounted(run, path, root, registry)
            if derived:
                run = merge_extractions(run, derived.latest_extractions(planned.path))
            runs.append(run)
    if parsed is not None:
        parsed.keep_only(path for _, path, _ in present)
    post_derived = load_post_derived(root)
    return ExperimentResult(
        experiment=experiment,
        runs=tuple(runs) if post_derived is None else merge_post_derived(runs, post_derived.runs),
        summary=load_experiment_summary(root),
        root_dir=root,
        registry=registry,
        evidence_only=evidence_only,
    )


def _accounted(run: RunRecord, path: Path, root: Path, registry: SemanticRegistry) -> RunRecord:
    """``run`` with the run totals its record lacks; a run read without its trace is read
    again, whole, when it needs one (records written before run totals existed)."""
    if not needs_accounting(run, registry):
        return run
    trace = run.trace
    if not isinstance(trace, Trace):
        trace = load_run_record(path, root=root).trace
    index = SpanIndex.of(trace) if isinstance(trace, Trace) else NO_SPANS
    return account_run(run, registry, index)


def _hash_sources(source_files: Mapping[str, str] | Iterable[str | Path]) -> dict[str, str]:
    if isinstance(source_files, Mapping):
        return {str(name): str(digest) for name, digest in source_files.items()}
    hashes: dict[str, str] = {}
    for name in source_files:
        path = Path(name)
        try:
            hashes[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            continue
    return hashes


def summarize(result: ExperimentResult) -> ExperimentSummary:
    """The summary of an in-memory result that has none: run and status counts per variant."""
    variants: dict[str, StatusCounts] = {}
    for run in result.runs:
        if run.variant_id not in variants:
            variants[run.variant_id] = result.status_counts(run.variant_id)
    return ExperimentSummary(
        experiment=result.experiment_id,
        benchmark=result.benchmark_id,
        complete=result.complete,
        runs=len(result.runs),
        status=result.status_counts(),
        variants=variants,
    )


def record_experiment(
    result: ExperimentResult,
    root: Path,
    *,
    source_files: Mapping[str, str] | Iterable[str | Path] | None = None,
) -> ExperimentResult:
    """Write a finished in-memory ``result`` into the new directory ``root``.

    Uses :class:`RecordDirectoryWriter` and ``result.artifact_payloads``
    (keyed by ``(run_id, artifact_id)``). ``source_files`` adds entries to
    the experiment's ``files``: a mapping of path to sha256, or paths to hash
    (unreadable ones are skipped). A result without a summary gets one
    computed from its runs. Returns the result as recorded (``root_dir`` set,
    artifact references completed, payloads dropped). Raises
    :class:`RecordingError` when ``root`` is not a new or empty directory or a
    write fails.
    """
    experiment = result.experiment
    if source_files is not None:
        files = {**experiment.files, **_hash_sources(source_files)}
        experiment = experiment.model_copy(update={"files": files})
    payloads: dict[str, dict[str, Any]] = {}
    for (run_id, artifact_id), payload in result.artifact_payloads.items():
        payloads.setdefault(run_id, {})[artifact_id] = payload
    writer = RecordDirectoryWriter(Path(root))
    writer.start(experiment)
    runs = tuple(writer.run_finished(run, payloads.get(run.run_id, {})) for run in result.runs)
    summary = result.summary or summarize(result)
    writer.finish(summary)
    return dataclasses.replace(
        result,
        experiment=experiment,
        runs=runs,
        summary=summary,
        root_dir=Path(root),
        artifact_payloads={},
    )
