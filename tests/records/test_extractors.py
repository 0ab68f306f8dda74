"""The extractor rules, on real traces and run records (no mocks)."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

import pytest

from autobench.abp import (
    EventRecord,
    InstrumentationScope,
    MeasurementRecord,
    ReferenceRecord,
    SpanRecord,
    SpanStatus,
    Trace,
)
from autobench.records import (
    CompositeExtractor,
    ExtractionResult,
    RunRecord,
    SignalExtractor,
    SpanExtractor,
    TraceExtractor,
    UsageExtractor,
)

T0 = datetime(2026, 5, 7, 12, tzinfo=UTC)
RUN = RunRecord.model_validate(
    {
        "run": {
            "id": "run_1",
            "experiment": "exp",
            "benchmark": "b",
            "case": "c",
            "variant": "v",
            "index": 0,
            "status": "passed",
            "outcome": {"task": "passed", "evaluation": "passed"},
        },
        "case": {"id": "c"},
        "variant": {"id": "v"},
    }
)


def span(span_id: str, parent: str | None = None, **fields: Any) -> SpanRecord:
    fields.setdefault("operation", span_id)
    fields.setdefault("started_at", T0)
    fields.setdefault("duration", 1.0)
    return SpanRecord(id=span_id, parent=parent, **fields)


def trace(*spans: SpanRecord, **fields: Any) -> Trace:
    return Trace(id="t", spans=spans, **fields)


def values(result: ExtractionResult) -> dict[str, Any]:
    """semantic -> value of the non-per-span observations."""
    return {
        observation.semantic_type: observation.value
        for observation in result.observations
        if observation.semantic_type is not None and not observation.id.startswith("span.latency")
    }


def codes(result: ExtractionResult) -> list[str]:
    return [diagnostic.code for diagnostic in result.diagnostics]


def test_extractors_satisfy_the_protocol_and_have_stable_identity() -> None:
    for extractor, name in ((SignalExtractor(), "signal"), (SpanExtractor(), "span")):
        assert isinstance(extractor, TraceExtractor)
        assert (extractor.name, extractor.version) == (name, "1")
    composite = CompositeExtractor(SignalExtractor(), CompositeExtractor(SpanExtractor()))
    assert composite.version == "signal@1+span@1"
    assert [part.name for part in composite.extractors] == ["signal", "span"]
    with pytest.raises(ValueError, match="repeats"):
        CompositeExtractor(SpanExtractor(), SpanExtractor())


def test_span_topology_timing_and_parallelism() -> None:
    # root [0, 4]; two parallel leaves [0.5, 2.5] and [1, 3]; one nested leaf [3, 4]
    result = SpanExtractor().extract(
        trace(
            span("root", offset=0.0, duration=4.0),
            span("a", "root", offset=0.5, duration=2.0),
            span("b", "root", offset=1.0, duration=2.0),
            span("c", "root", offset=3.0, duration=0.5),
            span("d", "c", offset=3.0, duration=1.0, kind="tool"),
        ),
        RUN,
    )
    got = values(result)
    assert got["operation.count"] == 5
    assert got["operation.depth.max"] == 3
    assert got["operation.fanout.max"] == 3
    assert got["time.critical_path"] == 4.0
    assert got["operation.parallelism"] == pytest.approx((2.0 + 2.0 + 1.0) / 4.0)
    assert got["operation.incomplete"] == 0
    assert got["workflow.tool_call.success"] == 1
    assert got["workflow.tool_call.failure"] == 0
    latencies = {o.span_id: o.value for o in result.observations if o.id.startswith("span.latency")}
    assert latencies == {"root": 4.0, "a": 2.0, "b": 2.0, "c": 0.5, "d": 1.0}
    assert all(o.source.value == "derived" for o in result.observations)
    assert result.diagnostics == ()


def test_partial_and_invalid_clock_evidence_are_diagnosed_not_repaired() -> None:
    result = SpanExtractor().extract(
        trace(
            span("root", offset=0.0, duration=2.0),
            span("open", "root", offset=0.5, duration=None, partial=True),
            span("bad", "root", offset=1.0, duration=-3.0),
            span("nan", "root", offset=1.0, duration=math.nan),
            partial=True,
        ),
        RUN,
    )
    got = values(result)
    assert got["operation.incomplete"] == 1
    assert got["time.critical_path"] == 2.0  # bad clocks are left out, not fixed
    assert codes(result) == ["partial_trace", "invalid_clock_evidence"]
    assert result.diagnostics[1].details["excluded"] == ["bad", "nan"]


def test_retries_validation_and_approvals() -> None:
    result = SpanExtractor().extract(
        trace(
            span("call1", kind="tool", status=SpanStatus.ERROR),
            span("call2", kind="tool", attributes={"attempt": 2}),
            span("call3", kind="tool", tags={"retry": "true"}, status=SpanStatus.ERROR),
            span("validate_output", attributes={"valid": False}),
            span("schema", kind="validation"),
            span("approve", kind="approval", duration=5.0),
            span("m1", offset=0.0, attributes={"message_count": 2}),
            span("m2", offset=1.0, attributes={"message_count": 7}),
        ),
        RUN,
    )
    got = values(result)
    assert got["operation.retries"] == 2
    assert got["operation.retries.recovered"] == 1
    assert got["operation.first_attempt.success"] is False
    assert got["workflow.validation.failures"] == 1
    assert got["workflow.approval.count"] == 1
    assert got["workflow.approval.wait"] == 5.0
    assert got["workflow.tool_call.success"] == 1
    assert got["workflow.tool_call.failure"] == 2
    assert got["workflow.message.growth"] == 5


def test_references_are_counted_and_returned() -> None:
    reference = ReferenceRecord(kind="artifact", id="art_1")
    result = SpanExtractor().extract(
        trace(span("root", references=(reference,)), references=(reference,)), RUN
    )
    assert values(result)["workflow.evidence.references"] == 2
    assert [(ref.id, ref.span_id) for ref in result.references] == [
        ("art_1", None),
        ("art_1", "root"),
    ]


def _scopes() -> dict[str, InstrumentationScope]:
    return {
        "fw": InstrumentationScope(name="fw", version="1", layer="framework"),
        "sdk": InstrumentationScope(name="sdk", version="1", layer="client"),
        "http": InstrumentationScope(name="http", version="1", layer="transport"),
    }


def test_usage_prefers_client_layer_and_never_adds_aggregates() -> None:
    result = UsageExtractor().extract(
        trace(
            # the framework agent span reports the roll-up of its children
            span("agent", scope="fw", kind="agent", usage={"input_tokens": 30}),
            span("req1", "agent", scope="fw", kind="llm", usage={"input_tokens": 10}),
            span("c1", "req1", scope="sdk", kind="llm", usage={"input_tokens": 10}),
            span("req2", "agent", scope="fw", kind="llm", usage={"input_tokens": 20}),
            span("c2", "req2", scope="sdk", kind="llm", usage={"prompt_tokens": 20}),
            span("h1", "c2", scope="http", usage={"input_tokens": 999}),
            scopes=_scopes(),
        ),
        RUN,
    )
    tokens = next(o for o in result.observations if o.semantic_type == "llm.tokens.input")
    assert tokens.value == 30
    assert tokens.tags == {
        "accounting": "summary",
        "basis": "direct",
        "layer": "client",
        "operations": "2",
    }
    assert result.diagnostics == ()


def test_usage_deduplicates_operations_and_reports_conflicts() -> None:
    result = UsageExtractor().extract(
        trace(
            span("a", kind="llm", usage={"output_tokens": 5}, attributes={"operation_id": "op1"}),
            span("b", kind="llm", usage={"output_tokens": 5}, attributes={"operation_id": "op1"}),
            span("c", kind="llm", usage={"output_tokens": 7}, attributes={"operation_id": "op2"}),
            span("d", kind="llm", usage={"output_tokens": 8}, attributes={"operation_id": "op2"}),
            span(
                "e",
                kind="llm",
                usage={"output_tokens": 3},
                attributes={"operation_id": "op3", "authority": True},
            ),
            span("f", kind="llm", usage={"output_tokens": 4}, attributes={"operation_id": "op3"}),
        ),
        RUN,
    )
    got = values(result)
    assert got["llm.tokens.output"] == 5 + 3  # op1 once, op2 excluded, op3 by its authority
    assert got["llm.request.count"] == 3
    assert codes(result) == ["ambiguous_direct_measurement"]
    assert result.diagnostics[0].details["operation"] == "op2"


def test_usage_aggregate_mismatch_and_model_identity() -> None:
    result = UsageExtractor().extract(
        trace(
            span(
                "agent",
                kind="agent",
                usage={"total_tokens": 100, "cost": 9.0},
                attributes={"accounting": "aggregate"},
            ),
            span(
                "llm",
                "agent",
                kind="llm",
                usage={"total_tokens": 60},
                attributes={
                    "request_model": "gpt-x",
                    "response_model": "gpt-x-2026",
                    "provider": "openai",
                },
            ),
        ),
        RUN,
    )
    got = values(result)
    assert got["llm.tokens.total"] == 60
    assert codes(result) == ["aggregate_measurement_mismatch"]
    assert got["llm.model.requested"] == "gpt-x"
    assert got["llm.model.response"] == "gpt-x-2026"
    assert got["llm.provider"] == "openai"
    assert not any(o.semantic_type and "cost" in o.semantic_type for o in result.observations)


def test_usage_from_aggregates_only_uses_the_outermost() -> None:
    result = UsageExtractor().extract(
        trace(
            span("outer", usage={"input_tokens": 50}, attributes={"accounting": "aggregate"}),
            span(
                "inner", "outer", usage={"input_tokens": 40}, attributes={"accounting": "aggregate"}
            ),
        ),
        RUN,
    )
    tokens = next(o for o in result.observations if o.semantic_type == "llm.tokens.input")
    assert (tokens.value, tokens.tags["basis"], tokens.tags["operations"]) == (50, "aggregate", "1")


def test_usage_reads_stored_measurements() -> None:
    measurement = MeasurementRecord(
        name="input_tokens",
        value=12,
        semantic_type="llm.tokens.input",
        layer="client",
        operation_id="req-1",
    )
    duplicate = measurement.model_copy()
    result = UsageExtractor().extract(
        trace(span("a", measurements=(measurement,)), span("b", measurements=(duplicate,))), RUN
    )
    assert values(result)["llm.tokens.input"] == 12


def test_signal_extractor_rebuilds_measurements_and_events_with_provenance() -> None:
    measurement = MeasurementRecord(
        name="input_tokens",
        value=12,
        semantic_type="llm.tokens.input",
        unit="tokens",
        accounting="aggregate",
        operation_id="req-1",
    )
    event = EventRecord(name="retry", attributes={"attempt": 2})
    result = SignalExtractor().extract(
        trace(
            span("a", scope="sdk", measurements=(measurement,), events=(event,)), scopes=_scopes()
        ),
        RUN,
    )
    metric, happened = result.observations
    assert (metric.name, metric.value, metric.unit, metric.semantic_type) == (
        "input_tokens",
        12,
        "tokens",
        "llm.tokens.input",
    )
    assert metric.span_id == "a"
    assert metric.tags == {
        "scope": "sdk",
        "layer": "client",
        "operation_id": "req-1",
        "accounting": "aggregate",
        "instrumentor": "sdk",
    }
    assert (happened.kind.value, happened.name, happened.value) == (
        "event",
        "retry",
        {"attempt": 2},
    )
    assert SignalExtractor().extract(trace(span("plain")), RUN).observations == ()


def test_composite_tags_each_observation_with_its_owner() -> None:
    result = CompositeExtractor(SpanExtractor(), UsageExtractor()).extract(
        trace(span("llm", kind="llm", usage={"input_tokens": 1})), RUN
    )
    owners = {(o.tags["extractor"], o.tags["extractor_version"]) for o in result.observations}
    assert owners == {("span", "1"), ("usage", "3")}


def _guarded_turn(outer_task: int, outer_turn: int, nested: bool = True) -> Trace:
    """An agent run whose turn ran a guardrail that ran its own agent (one call each)."""
    flag = {"accounting.nested_run": True} if nested else {}
    return trace(
        span("task", scope="fw", usage={"input_tokens": outer_task, "aggregate": True}),
        span("turn", "task", scope="fw", usage={"input_tokens": outer_turn, "aggregate": True}),
        span("call", "turn", scope="fw", kind="llm", usage={"input_tokens": 40}),
        span("guard", "turn", scope="fw", kind="guardrail"),
        span(
            "inner",
            "guard",
            scope="fw",
            usage={"input_tokens": 7, "aggregate": True},
            attributes=flag,
        ),
        span("inner_call", "inner", scope="fw", kind="llm", usage={"input_tokens": 7}),
        scopes=_scopes(),
    )


@pytest.mark.parametrize(
    ("outer", "why"),
    [(40, "the nested run has its own usage"), (47, "the runs share their usage")],
)
def test_a_nested_run_may_be_in_the_roll_ups_around_it_or_not(outer: int, why: str) -> None:
    result = UsageExtractor().extract(_guarded_turn(outer, outer), RUN)
    assert values(result)["llm.tokens.input"] == 47, why  # every call once
    assert codes(result) == []


def test_a_roll_up_matching_neither_still_disagrees() -> None:
    result = UsageExtractor().extract(_guarded_turn(45, 40), RUN)
    assert values(result)["llm.tokens.input"] == 47
    assert codes(result) == ["aggregate_measurement_mismatch"]  # the task's 45


def test_without_the_nested_run_mark_a_separate_roll_up_disagrees() -> None:
    result = UsageExtractor().extract(_guarded_turn(40, 40, nested=False), RUN)
    assert codes(result) == ["aggregate_measurement_mismatch"] * 2  # the task and the turn
