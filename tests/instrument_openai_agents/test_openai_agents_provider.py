"""One provider identity per model call, whichever layers record it: the Agents layer names
the provider and the host of the model's own client (Responses and Chat Completions models,
OpenAI and Azure clients, OpenAI's host and others), alone and under the OpenAI layer."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import openai
import pytest
from agents import Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, Runner, function_tool
from agents_support import (
    API_MODEL,
    FakeOpenAI,
    ScriptedModel,
    by_operation,
    message,
    recording,
    response_json,
)

from autobench.abp import InstrumentationManager
from autobench.instrument.openai import create as openai_instrumentor
from autobench.instrument.openai_agents import create


@function_tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _client(kind: str, api: FakeOpenAI) -> openai.AsyncOpenAI:
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(api.handle))
    if kind == "openai":
        return openai.AsyncOpenAI(api_key="k", max_retries=0, http_client=http)
    if kind == "compatible":
        return openai.AsyncOpenAI(
            api_key="k", max_retries=0, http_client=http, base_url="https://LLM.example.test/v1"
        )
    endpoint = {
        "azure": "https://contoso.openai.azure.com",
        "azure-gateway": "https://gateway.example.test",
    }[kind]
    return openai.AsyncAzureOpenAI(
        api_key="k",
        max_retries=0,
        http_client=http,
        azure_endpoint=endpoint,
        api_version="2025-03-01-preview",
    )


EXPECTED = {
    "openai": ("openai", "api.openai.com"),
    "compatible": ("openai", "llm.example.test"),
    "azure": ("azure.ai.openai", "contoso.openai.azure.com"),
    "azure-gateway": ("azure.ai.openai", "gateway.example.test"),
}


@pytest.mark.parametrize("client_kind", sorted(EXPECTED))
@pytest.mark.parametrize(
    ("model_kind", "operation", "client_operation"),
    [
        ("responses", "openai_agents.response", "openai.responses"),
        ("chat", "openai_agents.generation", "openai.chat.completions"),
    ],
)
@pytest.mark.parametrize("with_openai_layer", [False, True], ids=["agents-alone", "with-openai"])
async def test_every_layer_names_the_provider_and_host_of_the_model_client(
    manager: InstrumentationManager,
    monkeypatch: pytest.MonkeyPatch,
    client_kind: str,
    model_kind: str,
    operation: str,
    client_operation: str,
    with_openai_layer: bool,
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    manager.install(create(None))
    if with_openai_layer:
        manager.install(openai_instrumentor(None))
    api = FakeOpenAI()
    client = _client(client_kind, api)
    model: Any = (
        OpenAIResponsesModel(model=API_MODEL, openai_client=client)
        if model_kind == "responses"
        else OpenAIChatCompletionsModel(model=API_MODEL, openai_client=client)
    )
    agent = Agent(name="calc", instructions="Add.", tools=[add], model=model)
    with recording() as collector:
        result = await Runner.run(agent, "What is 2 + 3?")
    assert result.final_output == "5"
    trace = collector.materialize()
    calls = by_operation(trace, operation)
    assert len(calls) == 2 == len(api.paths)
    spans = calls + (by_operation(trace, client_operation) if with_openai_layer else [])
    assert len(spans) == (4 if with_openai_layer else 2)
    identities = {
        (span.attributes["llm.provider"], span.attributes.get("server.address")) for span in spans
    }
    assert identities == {EXPECTED[client_kind]}


async def test_a_model_call_made_by_a_custom_model_keeps_the_plain_openai_identity(
    manager: InstrumentationManager,
) -> None:
    """A model that is not the SDK's OpenAI model holds no client to read: the span names
    ``openai`` and no host rather than guessing one."""
    manager.install(create(None))
    agent = Agent(name="plain", model=ScriptedModel([[message("hi")]]))
    with recording() as collector:
        await Runner.run(agent, "hello")
    (call,) = by_operation(collector.materialize(), "openai_agents.generation")
    assert call.attributes["llm.provider"] == "openai"
    assert "server.address" not in call.attributes


def _streamed_responses(request: httpx2.Request) -> httpx2.Response:
    """A Responses API stream: ``response.created`` then ``response.completed`` with usage."""
    text = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "5", "annotations": []}],
    }
    done = response_json([text], 1)
    started = {**done, "status": "in_progress", "output": [], "usage": None}
    events = [
        {"type": "response.created", "sequence_number": 0, "response": started},
        {"type": "response.completed", "sequence_number": 1, "response": done},
    ]
    frames = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=frames)


@pytest.mark.parametrize("with_openai_layer", [False, True], ids=["agents-alone", "with-openai"])
async def test_a_streamed_responses_call_names_the_azure_client_behind_a_gateway(
    manager: InstrumentationManager, with_openai_layer: bool
) -> None:
    manager.install(create(None))
    if with_openai_layer:
        manager.install(openai_instrumentor(None))
    client = openai.AsyncAzureOpenAI(
        api_key="k",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(_streamed_responses)),
        azure_endpoint="https://gateway.example.test",
        api_version="2025-03-01-preview",
    )
    agent = Agent(
        name="streamer", model=OpenAIResponsesModel(model=API_MODEL, openai_client=client)
    )
    with recording() as collector:
        result = Runner.run_streamed(agent, "What is 2 + 3?")
        async for _ in result.stream_events():
            pass
    assert result.final_output == "5"
    trace = collector.materialize()
    spans = by_operation(trace, "openai_agents.response")
    if with_openai_layer:
        spans += by_operation(trace, "openai.responses")
    assert len(spans) == (2 if with_openai_layer else 1)
    for span in spans:
        assert span.attributes["llm.provider"] == "azure.ai.openai"
        assert span.attributes["server.address"] == "gateway.example.test"
        assert span.usage.get("input_tokens"), (span.operation, span.usage, span.attributes, span)
