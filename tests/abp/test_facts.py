"""Measurement, event, link, reference and diagnostic signals materialised into the trace."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from autobench.abp import (
    PROTOCOL_VERSION,
    AccountingScope,
    DiagnosticSignal,
    InstrumentationScope,
    LinkSignal,
    MeasurementSignal,
    ReferenceSignal,
    Trace,
    TraceCollector,
    bind_collector,
    emit_diagnostic,
    start_span,
)
from autobench.records import (
    Case,
    EvaluationStatus,
    RunInfo,
    RunOutcome,
    RunRecord,
    RunStatus,
    TaskStatus,
    Variant,
    load_run_record,
    run_record_from_yaml,
    run_record_to_yaml,
)

CLIENT_SCOPE = InstrumentationScope(
    name="example.client",
    version="1.0.0",
    package="example-client",
    package_version="2.1.0",
    mechanism="hook",
    layer="client",
    target_package="example-client",
    target_version="2.1.0",
    source_convention="gen_ai",
)


def run_with(trace: Trace) -> RunRecord:
    """A minimal passed run record holding ``trace``."""
    return RunRecord(
        run=RunInfo(
            id="run_0001_c_v",
            experiment="exp_1",
            benchmark="b",
            case="c",
            variant="v",
            index=0,
            status=RunStatus.PASSED,
            outcome=RunOutcome(task=TaskStatus.PASSED, evaluation=EvaluationStatus.PASSED),
            started_at=datetime(2026, 5, 7, 12, tzinfo=UTC),
            duration=0.01,
        ),
        case=Case(id="c", input={"q": 1}),
        variant=Variant(id="v"),
        trace=trace,
    )


def _recorded_trace() -> Trace:
    collector = TraceCollector()
    with bind_collector(collector), start_span("benchmark.run", kind="task") as root:
        with start_span("llm.request", kind="llm", scope=CLIENT_SCOPE) as request:
            request.record_measurement(
                "input_tokens",
                420,
                semantic_type="llm.tokens.input",
                accounting=AccountingScope.DIRECT,
                layer="client",
                operation_id="op-1",
            )
            request.add_event("first_chunk", {"index": 0, "api_key": "hunter2"})
            request.add_link("retry_of", span=root.id)
            request.add_reference("openai.request", "req_123", uri="https://api.example/req_123")
            request.add_diagnostic("abp.degraded", "streaming usage missing", severity="info")
        collector.emit(LinkSignal(span_id=None, relation="follows_from", target_trace="f" * 32))
        collector.emit(ReferenceSignal(span_id=None, kind="artifact", ref_id="art_1"))
        assert emit_diagnostic("abp.unsupported", "no hook for version 3", scope="x")
        collector.emit(MeasurementSignal(span_id="0" * 16, name="orphan", value=1))
    return collector.materialize()


def test_facts_attach_to_their_span_and_the_trace() -> None:
    trace = _recorded_trace()
    root, request = trace.spans
    (measurement,) = request.measurements
    assert (measurement.name, measurement.value, measurement.semantic_type) == (
        "input_tokens",
        420,
        "llm.tokens.input",
    )
    assert (measurement.accounting, measurement.layer, measurement.operation_id) == (
        "direct",
        "client",
        "op-1",
    )
    assert isinstance(measurement.value, int) and measurement.offset is not None
    (event,) = request.events
    assert event.name == "first_chunk" and event.attributes == {"index": 0, "api_key": "[redacted]"}
    assert event.offset >= request.offset
    assert request.links[0].relation == "retry_of" and request.links[0].span == root.id
    assert request.references[0].id == "req_123"
    assert root.measurements == root.events == root.links == root.references == ()
    assert trace.links[0].trace == "f" * 32 and trace.references[0].id == "art_1"
    codes = [diagnostic.code for diagnostic in trace.diagnostics]
    assert codes == ["abp.degraded", "abp.unsupported", "abp.unknown_span"]
    assert trace.diagnostics[0].span == request.id and trace.diagnostics[0].severity == "info"


def test_scope_provenance_is_kept_per_span() -> None:
    trace = _recorded_trace()
    assert [span.scope for span in trace.spans] == ["autobench.manual", "example.client"]
    scope = trace.scopes["example.client"]
    assert (scope.mechanism, scope.layer, scope.target_version, scope.source_convention) == (
        "hook",
        "client",
        "2.1.0",
        "gen_ai",
    )
    assert trace.protocol_version == PROTOCOL_VERSION == 1


def test_links_need_a_target_and_diagnostics_outside_a_run_are_dropped() -> None:
    collector = TraceCollector()
    with bind_collector(collector), start_span("s") as span, pytest.raises(ValueError):
        span.add_link("follows_from")
    assert emit_diagnostic("abp.x", "outside a run") is False
    collector.emit(DiagnosticSignal(code="abp.y", message="direct"))
    assert collector.materialize().diagnostics[0].code == "abp.y"


def test_signals_are_immutable_and_carry_the_protocol_version() -> None:
    signal = MeasurementSignal(span_id=None, name="n", value=1.5)
    assert signal.type == "measurement" and signal.protocol_version == 1
    assert signal._asdict()["value"] == 1.5
    with pytest.raises(AttributeError):
        signal.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        signal.attributes["k"] = "v"  # type: ignore[index]


def test_empty_fact_tuples_are_left_out_of_the_yaml() -> None:
    collector = TraceCollector()
    with bind_collector(collector), start_span("benchmark.run"):
        pass
    text = run_record_to_yaml(run_with(collector.materialize()))
    for name in ("measurements", "events", "links", "references", "diagnostics"):
        assert f"{name}:" not in text


def test_facts_and_unknown_additive_fields_survive_a_run_yaml_round_trip(tmp_path: Path) -> None:
    record = run_with(_recorded_trace())
    text = run_record_to_yaml(record)
    assert "measurements:" in text and "diagnostics:" in text
    assert run_record_from_yaml(text) == record
    # A newer writer added fields to the trace, a span, a scope and signal-derived items.
    extended = (
        text.replace("\n  spans:\n", "\n  execution: {run: r1}\n  spans:\n", 1)
        .replace(
            "    operation: llm.request\n", "    operation: llm.request\n    end_reason: done\n"
        )
        .replace("    - name: input_tokens\n", "    - name: input_tokens\n      sequence: 7\n")
        .replace("    - name: first_chunk\n", "    - name: first_chunk\n      level: debug\n")
        .replace("    - relation: retry_of\n", "    - relation: retry_of\n      weight: 2\n")
        .replace("  - code: abp.degraded\n", "  - code: abp.degraded\n    hint: upgrade\n")
        .replace("      mechanism: hook\n", "      mechanism: hook\n      hook_name: on_request\n")
    )
    assert extended.count("\n") == text.count("\n") + 7, "every extra field was inserted"
    path = tmp_path / "run.yaml"
    path.write_text(extended, encoding="utf-8")
    loaded = load_run_record(path, root=tmp_path)
    trace = loaded.trace
    assert isinstance(trace, Trace)
    request = trace.spans[1]
    assert trace.model_extra == {"execution": {"run": "r1"}}
    assert request.model_extra == {"end_reason": "done"}
    assert request.measurements[0].model_extra == {"sequence": 7}
    assert request.events[0].model_extra == {"level": "debug"}
    assert request.links[0].model_extra == {"weight": 2}
    assert trace.diagnostics[0].model_extra == {"hint": "upgrade"}
    assert trace.scopes["example.client"].model_extra == {"hook_name": "on_request"}
    # Saving again keeps every extra field (unknown fields are written after known ones).
    saved = run_record_to_yaml(loaded)
    assert run_record_from_yaml(saved) == loaded
    for extra in ("execution:", "end_reason: done", "sequence: 7", "hook_name: on_request"):
        assert extra in saved
