"""The span snippets of the product documentation, in their own shapes, through a real run:
``span.factor(...)``, ``span.set_usage(key, value)`` beside the mapping form, and
``duration_metric={"name": ...}`` beside ``DurationMetricSpec``."""

from __future__ import annotations

from pathlib import Path

import pytest
from runtime_support import make_spec, run, write_task_module

from autobench.records import ObservationKind

TASK = """
from autobench import DurationMetricSpec, Semantic, SpanKind


def run(ctx, case):
    prompt_version = ctx.factor("prompt_version")
    with ctx.span(
        "route_ticket",
        kind=SpanKind.WORKFLOW,
        input=case.input,
        attributes={"prompt_version": prompt_version},
        duration_metric={"name": "routing_duration"},
    ) as span:
        span.set_output({"queue": "billing"})
        span.factor("prompt_version", prompt_version, semantic_type=Semantic.PROMPT_VERSION)
        span.metric("confidence", 0.9, semantic_type=Semantic.QUALITY_SCORE)
        span.outcome(True)
    with ctx.span(
        "reply_generation",
        kind=SpanKind.LLM,
        duration_metric=DurationMetricSpec(name="reply_latency", unit="ms"),
    ) as span:
        span.set_usage("input_tokens", 120)
        span.set_usage("output_tokens", 30)
        span.set_usage({"requests": 1})
    with ctx.span("timed", duration_metric={"name": "timed_us", "unit": "us", "role": "objective"}):
        pass
    return {"queue": "billing"}
"""


def test_the_documented_span_snippets_record_what_they_say(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, TASK)
    spec = make_spec(
        tmp_path,
        f"{module}:run",
        variants=({"id": "v1", "factors": {"prompt_version": "v3"}},),
    )
    result = run(spec)
    record = result.runs[0]
    assert record.status.value == "passed", record.errors
    spans = {span.operation: span for span in record.spans}
    by_name = {o.name: o for o in record.observations}
    factor = by_name["prompt_version"]
    assert factor.kind is ObservationKind.FACTOR and factor.value == "v3"
    assert factor.semantic_type == "prompt.version"
    assert factor.span_id == spans["route_ticket"].id
    routing = by_name["routing_duration"]
    assert routing.kind is ObservationKind.METRIC and routing.semantic_type == "time.latency"
    assert routing.unit == "s" and routing.span_id == spans["route_ticket"].id
    assert by_name["reply_latency"].unit == "ms"
    assert by_name["timed_us"].unit == "us" and by_name["timed_us"].role.value == "objective"
    assert spans["reply_generation"].usage == {
        "input_tokens": 120,
        "output_tokens": 30,
        "requests": 1,
    }


def test_bad_span_arguments_are_clear_errors(tmp_path: Path) -> None:
    from autobench import DurationMetricSpec

    with pytest.raises(TypeError, match="duration_metric"):
        DurationMetricSpec.of({"nme": "typo"})
    with pytest.raises(TypeError, match="DurationMetricSpec or a mapping"):
        DurationMetricSpec.of("latency")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="duration unit"):
        DurationMetricSpec.of({"name": "x", "unit": "minutes"})
    module = write_task_module(
        tmp_path,
        "def run(ctx, case):\n"
        "    with ctx.span('s') as span:\n"
        "        span.set_usage('input_tokens')\n",
    )
    record = run(make_spec(tmp_path, f"{module}:run")).runs[0]
    assert record.status.value == "errored"
    assert "needs a value" in record.errors[0].message
