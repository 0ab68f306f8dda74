"""Pairing by the call, not by scope name: a GenAI client span an application makes with a
tracer of its own name (a scope Autobench knows nothing of) around, or inside, a call the
native OpenAI layer records is paired with that native span; one that is not the same call
(another model, another operation, a call beside it) is not.

The native spans come from the real OpenAI SDK over ``httpx.MockTransport`` with Autobench's
OpenAI instrumentor; the OpenTelemetry spans are made by hand with the SDK tracer."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest

from autobench.abp import InstrumentationManager, SpanRecord, TraceCollector
from autobench.instrument.openai import create as create_openai
from autobench.opentelemetry._import import create as create_otel
from autobench.records import RunRecord, UsageExtractor

sys.path.insert(0, str(Path(__file__).parents[1] / "instrument_openai"))

from openai_support import (
    ACCOUNTING_CHAT_USAGE,
    API_KEY,
    MODEL,
    FakeAPI,
    recording,
    sync_client,
)
from opentelemetry import trace

SCOPE = "acme.llm-gateway"
IMPORTED = "opentelemetry:" + SCOPE
MESSAGES = [{"role": "user", "content": "hi"}]
USAGE = {
    "gen_ai.usage.input_tokens": 1000,
    "gen_ai.usage.output_tokens": 200,
}
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


@pytest.fixture(autouse=True)
def installed() -> Iterator[None]:
    with InstrumentationManager() as manager:
        manager.install(create_otel(None))
        manager.install(create_openai(None))
        yield


def _genai(operation: str = "chat", model: str = MODEL) -> dict[str, Any]:
    return {"gen_ai.operation.name": operation, "gen_ai.request.model": model}


def _spans(collector: TraceCollector) -> tuple[list[SpanRecord], list[SpanRecord]]:
    spans = collector.materialize().spans
    return (
        [span for span in spans if span.scope == "openai"],
        [span for span in spans if span.scope == IMPORTED],
    )


def _totals(collector: TraceCollector) -> dict[str, Any]:
    result = UsageExtractor().extract(collector.materialize(), RUN)
    assert [d.code for d in result.diagnostics] == []
    return {o.semantic_type: o.value for o in result.observations if o.value is not None}


def _paired(imported: SpanRecord, native: SpanRecord) -> bool:
    return (
        imported.usage.get("aggregate") is True
        and imported.attributes.get("accounting.covered_by") == "openai"
        and imported.attributes.get("accounting.paired_span") == native.id
    )


def test_an_imported_span_around_the_native_call_is_paired() -> None:
    client = sync_client(FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE))
    tracer = trace.get_tracer(SCOPE)
    with recording() as collector:
        with tracer.start_as_current_span(f"chat {MODEL}", attributes=_genai()) as otel:
            client.chat.completions.create(model=MODEL, messages=MESSAGES)
            otel.set_attributes(USAGE)
    (native,), (imported,) = _spans(collector)
    assert native.parent == imported.id
    assert _paired(imported, native)
    totals = _totals(collector)
    assert totals["llm.tokens.input"] == 1000
    assert totals["llm.tokens.cache_read"] == 800
    assert totals["llm.request.count"] == 1


def test_an_imported_span_inside_the_native_call_is_paired() -> None:
    api = FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE)
    tracer = trace.get_tracer(SCOPE)

    def gateway(request: httpx2.Request) -> httpx2.Response:
        with tracer.start_as_current_span(f"chat {MODEL}", attributes=_genai()) as otel:
            otel.set_attributes(USAGE)
            return api.handle(request)

    client = openai.OpenAI(
        api_key=API_KEY,
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(gateway)),
    )
    with recording() as collector:
        client.chat.completions.create(model=MODEL, messages=MESSAGES)
    (native,), (imported,) = _spans(collector)
    assert imported.parent == native.id
    assert _paired(imported, native)
    totals = _totals(collector)
    assert totals["llm.tokens.input"] == 1000
    assert totals["llm.tokens.cache_read"] == 800
    assert totals["llm.request.count"] == 1


@pytest.mark.parametrize(
    "attributes",
    [_genai(model="another-model"), _genai(operation="embeddings")],
    ids=["other-model", "other-operation"],
)
def test_a_nested_span_of_another_request_is_not_paired(attributes: dict[str, Any]) -> None:
    client = sync_client(FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE))
    tracer = trace.get_tracer(SCOPE)
    with recording() as collector:
        with tracer.start_as_current_span("gateway call", attributes=attributes) as otel:
            client.chat.completions.create(model=MODEL, messages=MESSAGES)
            otel.set_attributes(USAGE)
    (native,), (imported,) = _spans(collector)
    assert native.parent == imported.id
    assert "accounting.covered_by" not in imported.attributes
    assert "accounting.paired_span" not in imported.attributes


def test_a_call_beside_the_native_one_is_not_paired_and_both_count() -> None:
    client = sync_client(FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE))
    tracer = trace.get_tracer(SCOPE)
    with recording() as collector:
        client.chat.completions.create(model=MODEL, messages=MESSAGES)
        with tracer.start_as_current_span(f"chat {MODEL}", attributes=_genai()) as otel:
            otel.set_attributes(USAGE)
    (native,), (imported,) = _spans(collector)
    assert imported.parent == native.parent
    assert "accounting.covered_by" not in imported.attributes
    assert imported.usage.get("aggregate") is None
    totals = _totals(collector)
    assert totals["llm.tokens.input"] == 2000
    assert totals["llm.request.count"] == 2
