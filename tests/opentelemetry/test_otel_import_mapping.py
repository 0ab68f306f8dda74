"""The span processor on a real SDK tracer provider of the test's own: what an imported span
records (older spellings, roll-ups, errors, content), suppression, and runs kept apart."""

from __future__ import annotations

import asyncio

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import Status, StatusCode, Tracer

from autobench.abp import (
    SpanRecord,
    Trace,
    TraceCollector,
    bind_collector,
    start_span,
    suppress_instrumentation,
)
from autobench.opentelemetry._import import INFO
from autobench.opentelemetry._import._processor import AutobenchSpanProcessor


def _tracer(*, capture_content: bool = False, scope: str = "acme") -> Tracer:
    provider = TracerProvider()
    provider.add_span_processor(AutobenchSpanProcessor(INFO, capture_content=capture_content))
    return provider.get_tracer(scope, "1.2")


def _record(tracer: Tracer, name: str, attributes: dict[str, object]) -> SpanRecord:
    collector = TraceCollector()
    with bind_collector(collector), tracer.start_as_current_span(name) as span:
        span.set_attributes(attributes)  # type: ignore[arg-type]
    [record] = collector.materialize().spans
    return record


def test_older_spellings_are_read_and_the_standard_one_wins() -> None:
    span = _record(
        _tracer(),
        "chat m",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.system": "anthropic",
            "gen_ai.usage.prompt_tokens": 70,
            "gen_ai.usage.completion_tokens": 9,
            "gen_ai.usage.details.cache_read_tokens": 5,
            "gen_ai.usage.cache_read.input_tokens": 6,
            "gen_ai.usage.details.input_audio_tokens": 3,
            "gen_ai.response.finish_reasons": ("stop", "length"),
        },
    )
    assert span.kind == "llm"
    assert span.usage == {
        "input_tokens": 70,
        "output_tokens": 9,
        "cache_read_tokens": 6,
        "requests": 1,
    }
    assert span.attributes["llm.provider"] == "anthropic"
    assert span.attributes["llm.finish_reason"] == ["stop", "length"]
    assert span.attributes["gen_ai.usage.details.input_audio_tokens"] == 3  # a source fact


def test_provider_name_wins_over_system_whatever_the_order() -> None:
    span = _record(
        _tracer(), "chat m", {"gen_ai.provider.name": "aws.bedrock", "gen_ai.system": "old"}
    )
    assert span.attributes["llm.provider"] == "aws.bedrock"


def test_the_older_system_spellings_become_convention_names_and_the_address_stays() -> None:
    span = _record(
        _tracer(),
        "chat m",
        {"gen_ai.system": "az.ai.openai", "server.address": "contoso.openai.azure.com"},
    )
    assert span.attributes["llm.provider"] == "azure.ai.openai"
    assert span.attributes["server.address"] == "contoso.openai.azure.com"
    custom = _record(_tracer(), "chat m", {"gen_ai.provider.name": "acme.llm"})
    assert custom.attributes["llm.provider"] == "acme.llm"  # no convention value: as it is


def test_agent_and_aggregated_usage_are_roll_ups() -> None:
    agent = _record(
        _tracer(),
        "invoke_agent a",
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.usage.input_tokens": 10},
    )
    assert agent.kind == "agent"
    assert agent.usage == {"input_tokens": 10, "aggregate": True}
    rolled = _record(_tracer(), "step", {"gen_ai.aggregated_usage.input_tokens": 10})
    assert rolled.usage == {"input_tokens": 10, "aggregate": True}


def test_content_is_dropped_unless_asked_for() -> None:
    attributes = {"gen_ai.input.messages": "[{...}]", "gen_ai.tool.call.arguments": "{}"}
    assert "gen_ai.input.messages" not in _record(_tracer(), "chat m", attributes).attributes
    kept = _record(_tracer(capture_content=True), "chat m", attributes).attributes
    assert kept["gen_ai.input.messages"] == "[{...}]"
    assert kept["gen_ai.tool.call.arguments"] == "{}"


def test_an_error_status_ends_the_span_as_an_error() -> None:
    tracer = _tracer()
    collector = TraceCollector()
    with bind_collector(collector):
        with tracer.start_as_current_span("execute_tool t", record_exception=False) as span:
            span.set_attribute("error.type", "timeout")
            span.set_status(Status(StatusCode.ERROR, "took too long"))
        with pytest.raises(KeyError), tracer.start_as_current_span("chat m"):
            raise KeyError("missing")
    first, second = collector.materialize().spans
    assert (first.status, first.error and first.error.type) == ("error", "timeout")
    assert first.error is not None and first.error.message == "took too long"
    assert first.kind == "tool"
    assert second.status == "error" and second.error is not None
    assert second.error.type == "KeyError"


def test_suppression_keeps_the_spans_out() -> None:
    tracer = _tracer()
    collector = TraceCollector()
    with bind_collector(collector):
        with suppress_instrumentation("opentelemetry"), tracer.start_as_current_span("hidden"):
            pass
        with tracer.start_as_current_span("shown"):
            pass
    assert [span.operation for span in collector.materialize().spans] == ["shown"]


async def test_concurrent_runs_keep_their_spans_and_parents() -> None:
    tracer = _tracer()

    async def run(name: str) -> Trace:
        collector = TraceCollector()
        with bind_collector(collector), start_span(f"task {name}", kind="task"):
            with tracer.start_as_current_span(f"outer {name}"):
                await asyncio.sleep(0.01)
                with tracer.start_as_current_span(f"inner {name}"):
                    await asyncio.sleep(0.01)
        return collector.materialize()

    traces = await asyncio.gather(run("a"), run("b"))
    for name, trace in zip("ab", traces, strict=True):
        task, outer, inner = trace.spans
        assert [task.operation, outer.operation, inner.operation] == [
            f"task {name}",
            f"outer {name}",
            f"inner {name}",
        ]
        assert (outer.parent, inner.parent) == (task.id, outer.id)
        assert trace.scopes[outer.scope].source_convention == "acme"


def test_a_parent_from_another_run_is_not_used() -> None:
    tracer = _tracer()
    first, second = TraceCollector(), TraceCollector()
    with bind_collector(first), tracer.start_as_current_span("in the first run"):
        with bind_collector(second), tracer.start_as_current_span("in the second run"):
            pass
    [span] = second.materialize().spans
    assert span.parent is None
    assert [s.operation for s in first.materialize().spans] == ["in the first run"]
