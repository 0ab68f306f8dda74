"""Trace shapes of recorded runs: written with the record writer, read back by replay."""

from __future__ import annotations

from pathlib import Path

from _factories import BENCHMARK_ID, EXPERIMENT_ID, STARTED, experiment_for, trivial_run

from autobench.abp import DiagnosticRecord, InstrumentationScope, SpanRecord, Trace
from autobench.records import (
    DiagnosticTally,
    ExperimentSummary,
    RecordDirectoryWriter,
    RunTraceShape,
    ScopeShape,
    SpanTally,
    TraceSummary,
    VariantTraceShape,
    experiment_trace_shape,
    replay_experiment,
    run_record_from_yaml,
    run_record_path,
    trace_shape,
)

LEGACY = Path(__file__).resolve().parents[1] / "fixtures" / "legacy" / "experiment"
MANUAL = InstrumentationScope(name="autobench.manual", version="0.1.0")
HTTPX = InstrumentationScope(
    name="autobench.httpx", version="0.1.0", mechanism="patch", layer="transport"
)


def _span(span_id: str, kind: str, *, parent: str | None = None, **fields: object) -> SpanRecord:
    return SpanRecord(
        id=span_id,
        operation=f"{kind}.op",
        kind=kind,
        parent=parent,
        started_at=STARTED,
        duration=None if fields.get("partial") else 0.01,
        **fields,  # type: ignore[arg-type]
    )


def agent_trace() -> Trace:
    """Two roots; an llm span with two httpx children, one of them cut short."""
    return Trace(
        id="a" * 32,
        scopes={MANUAL.name: MANUAL, HTTPX.name: HTTPX},
        spans=(
            _span("0000000000000001", "task"),
            _span("0000000000000002", "llm", parent="0000000000000001"),
            _span("0000000000000003", "http", parent="0000000000000002", scope=HTTPX.name),
            _span(
                "0000000000000004",
                "http",
                parent="0000000000000002",
                scope=HTTPX.name,
                partial=True,
            ),
            _span("0000000000000005", "task"),
        ),
        diagnostics=(
            DiagnosticRecord(code="dropped_value", message="body over 4 KiB dropped"),
            DiagnosticRecord(code="dropped_value", message="second drop"),
        ),
    )


def test_trace_shape_counts_spans_roots_kinds_scopes_and_partial_spans() -> None:
    shape = trace_shape(trivial_run("c1", "v1", trace=agent_trace()))
    assert shape == RunTraceShape(
        run_id="run_c1_v1",
        case_id="c1",
        variant_id="v1",
        has_trace=True,
        spans=5,
        roots=2,
        partial=True,  # no trace-level flag: a partial span is enough
        kinds={"http": 2, "llm": 1, "task": 2},
        scopes={"autobench.httpx": 2, "autobench.manual": 3},
        diagnostics=agent_trace().diagnostics,
    )
    assert list(shape.kinds) == ["http", "llm", "task"]


def test_a_run_without_a_trace_has_a_missing_trace_diagnostic_and_zero_counts() -> None:
    shape = trace_shape(trivial_run("c1", "v1").model_copy(update={"trace": None}))
    assert (shape.has_trace, shape.spans, shape.roots, shape.partial) == (False, 0, 0, False)
    assert shape.kinds == {} and shape.scopes == {}
    assert shape.diagnostics == (
        DiagnosticRecord(code="missing_trace", message="run run_c1_v1 has no recorded trace"),
    )


def _write(root: Path, runs: list[tuple[str, str]], skip: set[tuple[str, str]]) -> None:
    writer = RecordDirectoryWriter(root)
    writer.start(experiment_for(runs))
    for index, (case, variant) in enumerate(runs):
        if (case, variant) in skip:
            continue
        run = trivial_run(case, variant, index=index)
        if case == "c1":
            run = trivial_run(case, variant, index=index, trace=agent_trace())
        elif case == "c3":
            run = run.model_copy(update={"trace": None})
        writer.run_finished(run, {})
    writer.finish(ExperimentSummary(experiment=EXPERIMENT_ID, benchmark=BENCHMARK_ID, runs=5))


def test_experiment_trace_shape_of_a_replayed_directory(tmp_path: Path) -> None:
    runs = [(case, variant) for variant in ("v1", "v2") for case in ("c1", "c2", "c3")]
    _write(tmp_path / "rec", runs, skip={("c2", "v2")})
    shape = experiment_trace_shape(replay_experiment(tmp_path / "rec"))

    assert [(run.case_id, run.variant_id) for run in shape.runs] == [
        ("c1", "v1"),
        ("c2", "v1"),
        ("c3", "v1"),
        ("c1", "v2"),
        ("c3", "v2"),
    ]
    assert [run.spans for run in shape.runs] == [5, 2, 0, 5, 0]
    assert shape.variants == (
        VariantTraceShape("v1", runs=3, spans=7, roots=3, partial=1, diagnostics=3),
        VariantTraceShape("v2", runs=2, spans=5, roots=2, partial=1, diagnostics=3),
    )
    assert shape.variants[0].spans_per_run == 7 / 3
    # trivial traces: one task root and one workflow child, scope autobench.manual
    assert shape.kinds == {
        "task": SpanTally(spans=5, runs=3),
        "http": SpanTally(spans=4, runs=2),
        "llm": SpanTally(spans=2, runs=2),
        "workflow": SpanTally(spans=1, runs=1),
    }
    assert shape.scopes == {
        "autobench.manual": ScopeShape(MANUAL, SpanTally(spans=8, runs=3)),
        "autobench.httpx": ScopeShape(HTTPX, SpanTally(spans=4, runs=2)),
    }
    assert shape.missing_runs == ("run_c2_v2",)
    assert shape.diagnostics == {
        "dropped_value": DiagnosticTally(count=4, first_message="body over 4 KiB dropped"),
        "missing_trace": DiagnosticTally(
            count=2, first_message="run run_c3_v1 has no recorded trace"
        ),
        "missing_run": DiagnosticTally(
            count=1, first_message="1 planned run(s) have no run.yaml (interrupted?)"
        ),
    }


def test_a_trace_stored_as_an_artifact_counts_in_full_after_replay(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    writer = RecordDirectoryWriter(root)
    writer.start(experiment_for([("big", "v")]))
    tools = (_span(f"1{i:015x}", "tool", parent="0000000000000001") for i in range(800))
    spans = (_span("0000000000000001", "task"), *tools)
    writer.run_finished(trivial_run("big", "v", trace=Trace(id="b" * 32, spans=spans)), {})
    writer.finish(ExperimentSummary(experiment=EXPERIMENT_ID, benchmark=BENCHMARK_ID, runs=1))

    replayed = experiment_trace_shape(replay_experiment(root)).runs[0]
    assert (replayed.spans, replayed.roots, replayed.kinds) == (801, 1, {"task": 1, "tool": 800})

    # run.yaml read on its own keeps only the summary: the shape says where the trace is
    alone = run_record_from_yaml((root / run_record_path("big", "v")).read_text("utf-8"))
    assert isinstance(alone.trace, TraceSummary)
    shape = trace_shape(alone)
    assert not shape.has_trace and shape.spans == 0
    assert shape.diagnostics[0].code == "missing_trace"
    assert shape.diagnostics[0].message == (
        "run run_big_v's trace (801 spans) is in artifacts/run_big_v/trace.yaml, not read"
    )


def test_legacy_records_have_a_shape() -> None:
    shape = experiment_trace_shape(replay_experiment(LEGACY))
    assert [(run.case_id, run.spans, run.roots) for run in shape.runs] == [
        ("ticket_1", 4, 1),
        ("ticket_2", 2, 1),
    ]
    assert {key: entry.tally for key, entry in shape.scopes.items()} == {
        "autobench.legacy": SpanTally(spans=3, runs=1),
        "autobench.manual": SpanTally(spans=2, runs=2),
        "autobench.openai": SpanTally(spans=1, runs=1),
    }
    assert list(shape.kinds) == ["llm", "task", "tool", "workflow"]  # equal counts: by name
    assert shape.diagnostics == {} and shape.missing_runs == ()
