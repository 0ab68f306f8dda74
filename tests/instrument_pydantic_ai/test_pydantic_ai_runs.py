"""Agent runs of real Pydantic AI agents: the spans, their usage, tools, retries,
validation, exceptions and streams."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pai_support import (
    MODEL,
    MODEL_VERSION,
    REQUEST_USAGE,
    ScriptedAPI,
    lookup_agent,
    parent_of,
    recording,
    spans_of,
    text_turn,
    tool_turn,
    tree,
)
from pydantic import BaseModel
from pydantic_ai import Agent, ModelRetry, RunContext, UnexpectedModelBehavior
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

pytestmark = pytest.mark.usefixtures("installed")


class City(BaseModel):
    name: str


async def test_a_run_records_agent_model_tool_and_output_spans() -> None:
    agent = Agent(TestModel(), output_type=City, name="geo")

    @agent.tool_plain
    def lookup(query: str) -> str:
        return "paris"

    with recording() as collector:
        result = await agent.run("Where?")
    assert isinstance(result.output, City)
    trace = collector.materialize()
    assert tree(trace) == [
        (0, "task", "task"),
        (1, "agent", "pydantic_ai.agent"),
        (2, "llm", "pydantic_ai.model"),
        (2, "tool", "lookup"),
        (2, "llm", "pydantic_ai.model"),
        (2, "parser", "pydantic_ai.output.validate"),
        (2, "parser", "pydantic_ai.output.process"),
    ]
    agent_span = spans_of(trace, "agent")[0]
    assert agent_span.attributes["agent.name"] == "geo"
    requests = spans_of(trace, "llm")
    assert [span.attributes["llm.model.requested"] for span in requests] == ["test", "test"]
    assert all(span.attributes["llm.stream"] is False for span in requests)
    # each request's own usage; the run's roll-up on the agent, marked aggregate
    usage = result.usage
    assert sum(span.usage["input_tokens"] for span in requests) == usage.input_tokens
    assert agent_span.usage == {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "requests": 2,
        "aggregate": True,
    }
    assert all(span.usage["requests"] == 1 for span in requests)
    assert all(span.status.value == "ok" for span in trace.spans)


async def test_model_identity_and_usage_of_the_openai_model() -> None:
    api = ScriptedAPI(tool_turn("lookup", query="lamp"), text_turn("A lamp."))
    with recording() as collector:
        result = await lookup_agent(api).run("Find a lamp")
    assert result.output == "A lamp."
    requests = spans_of(collector.materialize(), "llm")
    assert len(requests) == 2
    for span in requests:
        assert span.attributes["llm.model.requested"] == MODEL
        assert span.attributes["llm.model.response"] == MODEL_VERSION
        assert span.attributes["llm.provider"] == "openai"
        # cached input stays inside input, reasoning inside output: counted apart, never added
        assert span.usage == REQUEST_USAGE
    assert [span.attributes["llm.finish_reason"] for span in requests] == ["tool_call", "stop"]


async def test_the_provider_is_named_as_the_openai_layer_names_the_client() -> None:
    import httpx2
    import openai
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.azure import AzureProvider
    from pydantic_ai.providers.ollama import OllamaProvider

    api = ScriptedAPI(text_turn("ok"))
    azure = openai.AsyncAzureOpenAI(
        api_key="azure-test-key",
        api_version="2026-01-01",
        azure_endpoint="https://contoso.example.net",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(api.handler)),
    )
    ollama = openai.AsyncOpenAI(
        api_key="unused",
        base_url="http://gpu-box.test:11434/v1",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(api.handler)),
    )
    models = [
        OpenAIChatModel(MODEL, provider=AzureProvider(openai_client=azure)),
        # Pydantic AI calls this provider "ollama"; it is an OpenAI-compatible server
        OpenAIChatModel(MODEL, provider=OllamaProvider(openai_client=ollama)),
        TestModel(),  # a system without a convention value keeps its own name
    ]
    with recording() as collector:
        for model in models:
            await Agent(model).run("Hello")
    requests = spans_of(collector.materialize(), "llm")
    assert [
        (span.attributes["llm.provider"], span.attributes.get("server.address"))
        for span in requests
    ] == [
        ("azure.ai.openai", "contoso.example.net"),
        ("openai", "gpu-box.test"),
        ("test", None),
    ]


async def test_tool_arguments_and_results_are_recorded_under_the_capture_policy() -> None:
    secret = "sk-" + "a1b2c3d4" * 4
    api = ScriptedAPI(tool_turn("lookup", query=f"token {secret}"), text_turn("ok"))
    with recording() as collector:
        await lookup_agent(api).run("Find it")
    tool = spans_of(collector.materialize(), "tool")[0]
    assert tool.operation == "lookup"
    assert tool.input == {"query": "token [redacted]"}
    assert tool.output == "found token [redacted]"
    assert tool.attributes["tool.call_id"] == "call-0"
    assert secret not in repr(collector.materialize().model_dump())


async def test_a_tool_retry_is_an_error_span_and_the_run_goes_on() -> None:
    agent = Agent(TestModel(), name="retrying")
    attempts: list[int] = []

    @agent.tool
    def flaky(ctx: RunContext[None], query: str) -> str:
        attempts.append(ctx.retry)
        if ctx.retry == 0:
            raise ModelRetry("try again")
        return "fine"

    with recording() as collector:
        await agent.run("go")
    tools = spans_of(collector.materialize(), "tool")
    assert attempts == [0, 1]
    assert [(span.status.value, span.attributes["tool.retry"]) for span in tools] == [
        ("error", 0),
        ("ok", 1),
    ]
    assert tools[0].attributes["tool.retry_requested"] is True
    assert tools[1].output == "fine"


async def test_output_validation_retries_and_failures_are_parser_spans() -> None:
    calls: list[int] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        return ModelResponse(parts=[TextPart("draft" if len(calls) == 1 else "final")])

    agent = Agent(FunctionModel(answer), name="strict")

    @agent.output_validator
    def must_be_final(output: str) -> str:
        if output != "final":
            raise ModelRetry("not final yet")
        return output

    with recording() as collector:
        assert (await agent.run("go")).output == "final"
    parsers = spans_of(collector.materialize(), "parser")
    assert [span.status.value for span in parsers] == ["error", "ok"]
    assert [span.attributes["output.retry"] for span in parsers] == [0, 1]

    never = Agent(FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart("no")])))

    @never.output_validator
    def refuse(output: str) -> str:
        raise ModelRetry("never")

    with recording() as collector, pytest.raises(UnexpectedModelBehavior):
        await never.run("go")
    trace = collector.materialize()
    assert spans_of(trace, "parser") and all(
        span.status.value == "error" for span in spans_of(trace, "parser")
    )
    agent_span = spans_of(trace, "agent")[0]
    assert agent_span.status.value == "error"
    assert agent_span.error is not None and agent_span.error.type == "UnexpectedModelBehavior"


async def test_exceptions_pass_through_unchanged() -> None:
    failure = ValueError("the catalogue is down")
    agent = Agent(TestModel(), name="failing")

    @agent.tool_plain
    def lookup(query: str) -> str:
        raise failure

    with recording() as collector, pytest.raises(ValueError) as raised:
        await agent.run("go")
    assert raised.value is failure
    trace = collector.materialize()
    tool = spans_of(trace, "tool")[0]
    assert tool.status.value == "error" and tool.error is not None
    assert tool.error.message == "the catalogue is down"
    assert spans_of(trace, "agent")[0].status.value == "error"


@pytest.mark.usefixtures("thread_loop")
def test_run_sync_is_recorded_like_run() -> None:
    agent = Agent(TestModel(custom_output_text="hello"), name="sync")
    with recording() as collector:
        assert agent.run_sync("hi").output == "hello"
    assert [kind for _, kind, _ in tree(collector.materialize())] == [
        "task",
        "agent",
        "llm",
        "parser",
    ]


async def test_a_streamed_run_records_its_request_once_finished() -> None:
    api = ScriptedAPI(text_turn("Hello there"))
    agent = lookup_agent(api)
    with recording() as collector:
        async with agent.run_stream("hi") as streamed:
            text = "".join([chunk async for chunk in streamed.stream_text(delta=True)])
    assert text == "Hello there"
    trace = collector.materialize()
    request = spans_of(trace, "llm")[0]
    assert request.attributes["llm.stream"] is True
    assert request.usage == REQUEST_USAGE
    assert request.status.value == "ok" and not request.partial
    assert parent_of(trace, request).kind == "agent"


async def test_an_abandoned_stream_ends_every_span() -> None:
    api = ScriptedAPI(text_turn("Hello there, a long answer"))
    agent = lookup_agent(api)
    with recording() as collector:
        async with agent.run_stream("hi") as streamed:
            async for _ in streamed.stream_text(delta=True):
                break  # the caller stops reading after the first chunk
    trace = collector.materialize()
    assert [span.kind for span in trace.spans] == ["task", "agent", "llm"]
    assert all(span.duration is not None for span in trace.spans)  # all of them ended


async def test_concurrent_runs_never_cross_parents() -> None:
    agent = Agent(TestModel(), name="parallel")

    @agent.tool_plain
    def lookup(query: str) -> str:
        return query

    async def one(label: str) -> Any:
        with recording() as collector:
            await asyncio.sleep(0)
            await agent.run(label)
            await asyncio.sleep(0)
        return collector.materialize()

    traces = await asyncio.gather(*(one(f"run-{index}") for index in range(6)))
    for trace in traces:
        ids = {span.id for span in trace.spans}
        assert all(span.parent in ids for span in trace.spans[1:])
        assert [kind for _, kind, _ in tree(trace)] == [
            "task",
            "agent",
            "llm",
            "tool",
            "llm",
            "parser",
        ]


async def test_nested_agents_nest_under_the_tool_that_calls_them() -> None:
    inner = Agent(TestModel(custom_output_text="inner answer"), name="inner")
    outer = Agent(TestModel(), name="outer")

    @outer.tool_plain
    async def ask(question: str) -> str:
        return (await inner.run(question)).output

    with recording() as collector:
        await outer.run("go")
    trace = collector.materialize()
    inner_span = next(s for s in spans_of(trace, "agent") if s.attributes["agent.name"] == "inner")
    assert parent_of(trace, inner_span).operation == "ask"


@pytest.mark.usefixtures("thread_loop")
def test_tool_call_parts_survive_unchanged() -> None:
    # the capability changes nothing the agent sees: the same messages with and without it
    agent = Agent(TestModel(), name="same")

    @agent.tool_plain
    def lookup(query: str) -> str:
        return "x"

    with recording():
        instrumented = agent.run_sync("go").all_messages()
    plain = agent.run_sync("go").all_messages()  # outside a run: not instrumented
    parts = [type(part) for message in instrumented for part in message.parts]
    assert parts == [type(part) for message in plain for part in message.parts]
    assert any(isinstance(part, ToolCallPart) for message in plain for part in message.parts)
