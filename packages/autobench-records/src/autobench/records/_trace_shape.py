"""Trace shapes: how many spans of which kind, from which instrumentors, each recorded run has.

:func:`trace_shape` describes one :class:`~autobench.records.RunRecord`'s trace;
:func:`experiment_trace_shape` describes every run of an
:class:`~autobench.records.ExperimentResult` and adds them up per variant, per
span kind, per instrumentation scope and per diagnostic code. Both read the
in-memory records only (a replayed directory is enough: no task, scorer or SDK
is imported) and never raise on a record that loaded; reading the directory
(:func:`~autobench.records.replay_experiment`) is what raises
:class:`~autobench.records.MissingRecordError` or
:class:`~autobench.records.RecordFormatError`.

Every number here is a count: of spans, of root spans (spans without a parent),
of runs or of diagnostics. Nothing is timed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from autobench.abp import DiagnosticRecord, InstrumentationScope, Trace
from autobench.records._records import RunRecord, TraceSummary
from autobench.records._result import ExperimentResult

MISSING_TRACE = "missing_trace"
"""Diagnostic code of a run whose record holds no full trace."""
MISSING_RUN = "missing_run"
"""Diagnostic code of planned runs that have no record (an interrupted experiment)."""


@dataclass(frozen=True, slots=True)
class RunTraceShape:
    """The shape of one run's trace.

    ``spans`` and ``roots`` count spans and parentless spans; ``partial`` is true
    when the trace or any of its spans was cut short. ``kinds`` maps span kind to
    spans (sorted by kind), ``scopes`` maps instrumentation scope key
    (``SpanRecord.scope``) to spans (sorted by key). ``diagnostics`` are the
    trace's own diagnostic records, in recorded order, plus one with code
    :data:`MISSING_TRACE` when ``has_trace`` is false (the run recorded no trace,
    it was replayed with ``evidence_only``, or only its :class:`TraceSummary` was
    read); the counts are then zero.
    """

    run_id: str
    case_id: str
    variant_id: str
    has_trace: bool
    spans: int
    roots: int
    partial: bool
    kinds: Mapping[str, int]
    scopes: Mapping[str, int]
    diagnostics: tuple[DiagnosticRecord, ...]


@dataclass(frozen=True, slots=True)
class VariantTraceShape:
    """The runs of one variant added up: ``runs`` counted, ``spans``, ``roots`` and
    ``diagnostics`` summed over them, ``partial`` the number of runs with a partial
    trace. ``spans_per_run`` is ``spans / runs`` (a variant always has a run)."""

    variant_id: str
    runs: int
    spans: int
    roots: int
    partial: int
    diagnostics: int

    @property
    def spans_per_run(self) -> float:
        return self.spans / self.runs


@dataclass(frozen=True, slots=True)
class SpanTally:
    """``spans`` of something (a kind, a scope) over the experiment, and the ``runs``
    with at least one of them."""

    spans: int
    runs: int


@dataclass(frozen=True, slots=True)
class ScopeShape:
    """An instrumentation scope (which instrumentor, version, mechanism and layer made
    the spans) and its :class:`SpanTally`. ``scope`` is the first description found in
    a trace's ``scopes``; ``None`` when spans name a scope no trace describes."""

    scope: InstrumentationScope | None
    tally: SpanTally


@dataclass(frozen=True, slots=True)
class DiagnosticTally:
    """How many diagnostics of one code the experiment has, and the first one's message."""

    count: int
    first_message: str


@dataclass(frozen=True, slots=True)
class ExperimentTraceShape:
    """The trace shape of an experiment.

    - ``runs``: one :class:`RunTraceShape` per recorded run, in plan order;
    - ``variants``: the runs added up per variant, in order of first appearance;
    - ``kinds``: span kind -> :class:`SpanTally`, most spans first (ties by kind);
    - ``scopes``: scope key -> :class:`ScopeShape`, most spans first (ties by key);
    - ``diagnostics``: code -> :class:`DiagnosticTally`, most frequent first (ties in
      order of first appearance): every run's diagnostics (:data:`MISSING_TRACE`
      included) and, when planned runs have no record, :data:`MISSING_RUN` counting them;
    - ``missing_runs``: the ids of those planned runs.
    """

    runs: tuple[RunTraceShape, ...]
    variants: tuple[VariantTraceShape, ...]
    kinds: Mapping[str, SpanTally]
    scopes: Mapping[str, ScopeShape]
    diagnostics: Mapping[str, DiagnosticTally]
    missing_runs: tuple[str, ...]


def trace_shape(run: RunRecord) -> RunTraceShape:
    """The shape of ``run``'s trace (see :class:`RunTraceShape`). Never raises."""
    trace = run.trace
    if not isinstance(trace, Trace):
        if isinstance(trace, TraceSummary):
            where = trace.artifact.path or trace.artifact.id
            message = f"run {run.run_id}'s trace ({trace.spans} spans) is in {where}, not read"
        else:
            message = f"run {run.run_id} has no recorded trace"
        return RunTraceShape(
            run_id=run.run_id,
            case_id=run.case_id,
            variant_id=run.variant_id,
            has_trace=False,
            spans=0,
            roots=0,
            partial=False,
            kinds={},
            scopes={},
            diagnostics=(DiagnosticRecord(code=MISSING_TRACE, message=message),),
        )
    spans = trace.spans
    return RunTraceShape(
        run_id=run.run_id,
        case_id=run.case_id,
        variant_id=run.variant_id,
        has_trace=True,
        spans=len(spans),
        roots=sum(span.parent is None for span in spans),
        partial=trace.partial or any(span.partial for span in spans),
        kinds=_sorted_counts(span.kind for span in spans),
        scopes=_sorted_counts(span.scope for span in spans),
        diagnostics=trace.diagnostics,
    )


def experiment_trace_shape(result: ExperimentResult) -> ExperimentTraceShape:
    """The shape of every run of ``result`` and their totals (see
    :class:`ExperimentTraceShape`). Never raises."""
    runs = tuple(trace_shape(run) for run in result.runs)
    missing = result.missing_runs
    described: dict[str, InstrumentationScope] = {}
    for run in result.runs:
        if isinstance(run.trace, Trace):
            for key, scope in run.trace.scopes.items():
                described.setdefault(key, scope)
    return ExperimentTraceShape(
        runs=runs,
        variants=_variants(runs),
        kinds=_tallies(shape.kinds for shape in runs),
        scopes={
            key: ScopeShape(described.get(key), tally)
            for key, tally in _tallies(shape.scopes for shape in runs).items()
        },
        diagnostics=_diagnostics(runs, missing),
        missing_runs=missing,
    )


def _sorted_counts(values: Iterable[str]) -> dict[str, int]:
    return dict(sorted(Counter(values).items()))


def _variants(runs: tuple[RunTraceShape, ...]) -> tuple[VariantTraceShape, ...]:
    groups: dict[str, list[RunTraceShape]] = {}
    for shape in runs:
        groups.setdefault(shape.variant_id, []).append(shape)
    return tuple(
        VariantTraceShape(
            variant_id=variant,
            runs=len(group),
            spans=sum(shape.spans for shape in group),
            roots=sum(shape.roots for shape in group),
            partial=sum(shape.partial for shape in group),
            diagnostics=sum(len(shape.diagnostics) for shape in group),
        )
        for variant, group in groups.items()
    )


def _tallies(per_run: Iterable[Mapping[str, int]]) -> dict[str, SpanTally]:
    spans: Counter[str] = Counter()
    present: Counter[str] = Counter()
    for counts in per_run:
        spans.update(counts)
        present.update(counts.keys())
    return {
        key: SpanTally(spans=count, runs=present[key])
        for key, count in sorted(spans.items(), key=lambda item: (-item[1], item[0]))
    }


def _diagnostics(
    runs: tuple[RunTraceShape, ...], missing: tuple[str, ...]
) -> dict[str, DiagnosticTally]:
    counts: Counter[str] = Counter()
    first: dict[str, str] = {}
    for shape in runs:
        for diagnostic in shape.diagnostics:
            counts[diagnostic.code] += 1
            first.setdefault(diagnostic.code, diagnostic.message)
    if missing:
        counts[MISSING_RUN] = len(missing)
        first.setdefault(
            MISSING_RUN, f"{len(missing)} planned run(s) have no run.yaml (interrupted?)"
        )
    # Counter.most_common keeps first-appearance order among equal counts.
    return {
        code: DiagnosticTally(count=count, first_message=first[code])
        for code, count in counts.most_common()
    }
