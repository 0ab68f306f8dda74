"""RunContext and Span evidence: ids, links, roles, duration metrics, errors, active context."""

from __future__ import annotations

from pathlib import Path

import pytest
from runtime_support import CollectingSink, make_spec, run, write_task_module

from autobench.abp import SpanStatus
from autobench.core.runtime import DurationMetricSpec, get_active_run_context
from autobench.records import (
    Direction,
    ObservationKind,
    ObservationRole,
    ObservationSource,
    RunStatus,
    Semantic,
    TaskStatus,
)

EVIDENCE_TASK = """
from autobench.core.runtime import DurationMetricSpec

def run_case(ctx, case):
    ctx.metric("size", case.input["n"], semantic_type="workload.size", unit="items",
               direction="maximize", role="objective", tags={"k": "v"})
    ctx.metrics({"a": 1, "b": 2}, unit="ms")
    ctx.factor_observation("served_model", "m-1", semantic_type="llm.model.response")
    ctx.event("retry", 1)
    ctx.diagnostic("queue_depth", 0)
    ctx.outcome(True)
    ctx.check("label", True, reason="matches")
    ref = ctx.artifact("raw", {"x": 1}, tags={"kind": "debug"})
    with ctx.span("inner", kind="tool", input={"q": 1}, attributes={"a": 1}, usage={"input_tokens": 3},
                  duration_metric=DurationMetricSpec("inner_latency", unit="ms")) as span:
        span.set_output({"ok": True})
        span.set_attribute("b", 2)
        span.set_usage(output_tokens=4)
        span.metric("inside", 1.5)
        ctx.metric("via_ctx", 2)
        span.artifact("span_art", "payload")
    return {"ref": ref.id, "factor": ctx.factor("model"), "ids": [ctx.run_id, ctx.experiment_id, ctx.benchmark_id]}
"""


def test_observations_are_numbered_linked_and_typed(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, EVIDENCE_TASK)
    result = run(make_spec(tmp_path, f"{module}:run_case"), experiment_id="exp_t")
    record = result.runs[0]
    assert record.status is RunStatus.PASSED
    obs = {o.name: o for o in record.observations}
    assert [o.id for o in record.observations] == [
        f"obs_{i}" for i in range(1, len(record.observations) + 1)
    ]
    assert all(o.source is ObservationSource.TASK_OBSERVATION for o in record.observations)
    assert all((o.case_id, o.variant_id) == ("c1", "v1") for o in record.observations)
    root = record.trace.root_spans[0]
    inner = record.trace.children(root.id)[0]
    size = obs["size"]
    assert (size.value, size.unit, size.semantic_type, size.direction, size.role, size.tags) == (
        1,
        "items",
        "workload.size",
        Direction.MAXIMIZE,
        ObservationRole.OBJECTIVE,
        {"k": "v"},
    )
    assert size.span_id == root.id
    assert (obs["a"].value, obs["b"].unit) == (1, "ms")
    assert obs["served_model"].kind is ObservationKind.FACTOR
    assert obs["retry"].kind is ObservationKind.EVENT
    assert (obs["queue_depth"].kind, obs["queue_depth"].role) == (
        ObservationKind.DIAGNOSTIC,
        ObservationRole.DIAGNOSTIC,
    )
    success = obs["success"]
    assert (success.value, success.semantic_type, success.role) == (
        True,
        Semantic.RESULT_SUCCESS,
        ObservationRole.OBJECTIVE,
    )
    label = obs["label"]
    assert (label.value, label.role, label.reason, label.semantic_type) == (
        True,
        ObservationRole.CONSTRAINT,
        "matches",
        Semantic.QUALITY_CORRECTNESS,
    )
    assert obs["inside"].span_id == inner.id
    assert obs["via_ctx"].span_id == inner.id
    latency = obs["inner_latency"]
    assert (
        latency.span_id == inner.id
        and latency.unit == "ms"
        and latency.role is ObservationRole.DIAGNOSTIC
    )
    assert (
        latency.semantic_type == Semantic.TIME_LATENCY and latency.direction is Direction.MINIMIZE
    )
    assert latency.value == pytest.approx(inner.duration * 1e3)
    assert (inner.kind, inner.input, inner.output) == ("tool", {"q": 1}, {"ok": True})
    assert inner.attributes == {"a": 1, "b": 2}
    assert inner.usage == {"input_tokens": 3, "output_tokens": 4}
    assert record.output == {
        "ref": "art_1",
        "factor": "small",
        "ids": [record.run_id, "exp_t", "runtime-test"],
    }
    raw, span_art = record.artifacts
    assert (raw.id, raw.name, raw.media_type, raw.tags, raw.span_id) == (
        "art_1",
        "raw",
        "application/x-yaml",
        {"kind": "debug"},
        root.id,
    )
    assert span_art.span_id == inner.id
    assert result.artifact_payloads[(record.run_id, "art_1")] == {"x": 1}
    assert result.artifact_payloads[(record.run_id, "art_2")] == "payload"


def test_sink_gets_artifact_payloads_and_its_stored_record_is_returned(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, EVIDENCE_TASK)
    sink = CollectingSink()
    result = run(make_spec(tmp_path, f"{module}:run_case"), sink=sink)
    assert result.artifact_payloads == {}
    assert sink.payloads[result.runs[0].run_id] == {"art_1": {"x": 1}, "art_2": "payload"}
    assert result.runs[0].artifacts[0].path == f"artifacts/{result.runs[0].run_id}/art_1.yaml"


def test_missing_factor_raises_key_error_naming_variant_and_known_factors(tmp_path: Path) -> None:
    module = write_task_module(
        tmp_path,
        """
        def run_case(ctx, case):
            try:
                ctx.factor("temperature")
            except KeyError as exc:
                return str(exc)
        """,
    )
    result = run(make_spec(tmp_path, f"{module}:run_case"))
    message = result.runs[0].output
    assert "'v1'" in message and "'temperature'" in message and "'model'" in message


def test_raising_span_keeps_evidence_records_error_and_propagates(tmp_path: Path) -> None:
    module = write_task_module(
        tmp_path,
        """
        from autobench.core.runtime import DurationMetricSpec

        def run_case(ctx, case):
            try:
                with ctx.span("fails", duration_metric=DurationMetricSpec("fail_time", unit="us")) as span:
                    span.metric("before", 1)
                    span.artifact("partial", [1, 2])
                    raise ValueError("boom")
            except ValueError as exc:
                return {"caught": str(exc)}
        """,
    )
    record = run(make_spec(tmp_path, f"{module}:run_case")).runs[0]
    assert record.output == {"caught": "boom"}
    span = next(s for s in record.spans if s.operation == "fails")
    assert span.status is SpanStatus.ERROR and span.error is not None
    assert (span.error.type, span.error.message) == ("ValueError", "boom")
    names = {o.name: o for o in record.observations}
    assert names["before"].span_id == span.id
    assert names["fail_time"].span_id == span.id and names["fail_time"].value == pytest.approx(
        span.duration * 1e6
    )
    assert record.artifacts[0].span_id == span.id
    assert record.status is RunStatus.PASSED


@pytest.mark.parametrize(("unit", "factor"), [("s", 1.0), ("ms", 1e3), ("us", 1e6), ("ns", 1e9)])
def test_duration_metric_units(unit: str, factor: float) -> None:
    assert DurationMetricSpec("t", unit=unit).convert(0.5) == pytest.approx(0.5 * factor)


def test_duration_metric_rejects_unknown_unit() -> None:
    with pytest.raises(ValueError, match="minutes"):
        DurationMetricSpec("t", unit="minutes")


def test_ctx_error_records_context_error_and_fails_the_task(tmp_path: Path) -> None:
    module = write_task_module(
        tmp_path,
        """
        def run_case(ctx, case):
            ctx.metric("kept", 1)
            try:
                raise RuntimeError("upstream 503")
            except RuntimeError as exc:
                ctx.error(exc, source="client")
            with ctx.span("s"):
                ctx.error("plain message")
            return {"ok": False}
        """,
    )
    record = run(make_spec(tmp_path, f"{module}:run_case")).runs[0]
    first, second = record.errors
    assert (first.stage, first.type, first.message, first.source) == (
        "context",
        "RuntimeError",
        "upstream 503",
        "client",
    )
    assert first.traceback is not None and "upstream 503" in first.traceback
    assert (second.type, second.message, second.traceback) == ("Error", "plain message", None)
    assert second.span_id == next(s.id for s in record.spans if s.operation == "s")
    assert record.observations[0].name == "kept"
    assert (record.task_status, record.status) == (TaskStatus.FAILED, RunStatus.FAILED)


def test_active_run_context_is_task_local(tmp_path: Path) -> None:
    module = write_task_module(
        tmp_path,
        """
        import asyncio
        from autobench.core.runtime import get_active_run_context

        def sync_case(ctx, case):
            return get_active_run_context() is ctx

        async def async_case(ctx, case):
            async def nested():
                await asyncio.sleep(0)
                return get_active_run_context() is ctx
            return get_active_run_context() is ctx and await asyncio.create_task(nested())
        """,
    )
    cases = [{"id": f"c{i}"} for i in range(4)]
    for name in ("sync_case", "async_case"):
        result = run(make_spec(tmp_path, f"{module}:{name}", cases=cases), concurrency_limit=3)
        assert [r.output for r in result.runs] == [True] * 4
    assert get_active_run_context() is None
