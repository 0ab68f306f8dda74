"""The mapping of a real SDK run: kinds, operations, attributes, usage, parentage, errors.

Every run uses :class:`~agents_support.ScriptedModel`: the real ``Runner`` drives it,
runs the real tools, handoffs and guardrails, and emits the SDK's own spans.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

import pytest
from agents import (
    Agent,
    GuardrailFunctionOutput,
    InputGuardrailTripwireTriggered,
    ModelSettings,
    OpenAIChatCompletionsModel,
    RunConfig,
    RunContextWrapper,
    Runner,
    custom_span,
    function_tool,
    input_guardrail,
    output_guardrail,
    trace,
)
from agents_support import (
    API_MODEL,
    API_MODEL_VERSION,
    MODEL,
    ScriptedModel,
    StreamingProvider,
    by_operation,
    message,
    one,
    parent_of,
    recording,
    scoped,
    tool_call,
)

from autobench.abp import InstrumentationManager, Trace, active_span
from autobench.instrument.openai import create as openai_instrumentor
from autobench.instrument.openai_agents import OpenAIAgentsInstrumentor, create

SEEN: list[str | None] = []
"""The ABP span active inside the tool body, by operation (what a client span's parent is)."""


@function_tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    current = active_span()
    SEEN.append(None if current is None else current.operation)
    with custom_span("adding", {"a": a, "b": b}):
        return a + b


def calculator(script: list[Any] | None = None, **options: Any) -> Agent[Any]:
    steps = script or [[tool_call("add", {"a": 2, "b": 3})], [message("5")]]
    return Agent(
        name="calc", instructions="Add.", tools=[add], model=ScriptedModel(steps), **options
    )


@pytest.mark.usefixtures("installed")
async def test_a_workflow_with_a_tool_and_a_custom_span() -> None:
    SEEN.clear()
    with recording() as collector:
        result = await Runner.run(calculator(), "What is 2 + 3?")
    assert result.final_output == "5"
    trace = collector.materialize()
    root = trace.spans[0]
    workflow = one(trace, "openai_agents.workflow")
    assert workflow.kind == "workflow" and workflow.parent == root.id
    assert workflow.attributes["workflow.name"] == "Agent workflow"
    assert workflow.attributes["openai_agents.trace_id"].startswith("trace_")
    task = one(trace, "openai_agents.task")
    agent = one(trace, "openai_agents.agent")
    assert (task.kind, parent_of(trace, task).id) == ("custom", workflow.id)
    assert (agent.kind, parent_of(trace, agent).id) == ("agent", task.id)
    assert agent.attributes["agent.name"] == "calc"
    assert agent.attributes["agent.tools"] == ["add"] and agent.attributes["agent.handoffs"] == []
    turns = by_operation(trace, "openai_agents.turn")
    assert [turn.attributes["openai_agents.turn"] for turn in turns] == [1, 2]
    assert all(parent_of(trace, turn).id == agent.id for turn in turns)
    generations = by_operation(trace, "openai_agents.generation")
    assert [parent_of(trace, span).id for span in generations] == [turn.id for turn in turns]
    for span in generations:
        assert span.kind == "llm" and span.status.value == "ok"
        assert span.attributes["llm.model.requested"] == MODEL
        assert span.usage == {"requests": 1, "input_tokens": 10, "output_tokens": 2}
    tool = one(trace, "add")
    assert tool.kind == "tool" and tool.attributes["tool.name"] == "add"
    assert parent_of(trace, tool).id == turns[0].id
    # off by default: no arguments, no result
    assert "tool.arguments" not in tool.attributes and tool.output is None
    adding = one(trace, "adding")
    assert adding.kind == "custom" and parent_of(trace, adding).id == tool.id
    assert adding.attributes["openai_agents.data"] == {"a": 2, "b": 3}
    assert SEEN == ["add"]  # the tool span is the active ABP span while the tool runs
    # the SDK's roll-ups are validation evidence, never added to the calls' usage
    assert task.usage == {"input_tokens": 20, "output_tokens": 4, "requests": 2, "aggregate": True}
    assert turns[0].usage == {"input_tokens": 10, "output_tokens": 2, "aggregate": True}
    assert {span.scope for span in scoped(trace)} == {"openai_agents"}
    scope = trace.scopes["openai_agents"]
    assert (scope.layer, scope.mechanism, scope.target_package) == (
        "framework",
        "hook",
        "openai-agents",
    )
    assert all(not span.partial and span.duration is not None for span in trace.spans)
    assert active_span() is None


async def test_capture_records_arguments_results_and_model_payloads(
    manager: InstrumentationManager,
) -> None:
    manager.install(OpenAIAgentsInstrumentor(capture_input=True, capture_output=True))
    with recording() as collector:
        await Runner.run(calculator(), "What is 2 + 3?")
    trace = collector.materialize()
    tool = one(trace, "add")
    assert tool.attributes["tool.arguments"] == '{"a": 2, "b": 3}' and tool.output == 5
    first = by_operation(trace, "openai_agents.generation")[0]
    assert first.attributes["openai_agents.input"][0]["role"] == "user"
    assert first.output[0]["name"] == "add"


async def test_without_sensitive_data_the_sdk_keeps_no_payloads(
    manager: InstrumentationManager,
) -> None:
    manager.install(OpenAIAgentsInstrumentor(capture_input=True, capture_output=True))
    config = RunConfig(trace_include_sensitive_data=False)
    with recording() as collector:
        await Runner.run(calculator(), "What is 2 + 3?", run_config=config)
    trace = collector.materialize()
    tool = one(trace, "add")
    assert "tool.arguments" not in tool.attributes and tool.output is None
    generation = by_operation(trace, "openai_agents.generation")[0]
    assert generation.output is None and generation.usage["input_tokens"] == 10


@pytest.mark.usefixtures("installed")
async def test_a_handoff() -> None:
    billing = Agent(name="billing", instructions="Bill.", model=ScriptedModel([[message("paid")]]))
    triage = Agent(
        name="triage",
        instructions="Route.",
        handoffs=[billing],
        model=ScriptedModel([[tool_call("transfer_to_billing", {})]]),
    )
    with recording() as collector:
        result = await Runner.run(triage, "I want to pay")
    assert result.final_output == "paid" and result.last_agent is billing
    trace = collector.materialize()
    agents = by_operation(trace, "openai_agents.agent")
    assert [span.attributes["agent.name"] for span in agents] == ["triage", "billing"]
    assert agents[0].attributes["agent.handoffs"] == ["billing"]
    handoff = one(trace, "openai_agents.handoff")
    assert handoff.kind == "handoff"
    assert handoff.attributes["handoff.from_agent"] == "triage"
    assert handoff.attributes["handoff.to_agent"] == "billing"
    assert trace.path(handoff.id)[:4] == (
        "benchmark.run",
        "openai_agents.workflow",
        "openai_agents.task",
        "openai_agents.agent",
    )
    assert parent_of(trace, agents[0]).id == parent_of(trace, agents[1]).id  # siblings


@input_guardrail
async def no_secrets(
    ctx: RunContextWrapper[Any], agent: Agent[Any], text: Any
) -> GuardrailFunctionOutput:
    return GuardrailFunctionOutput(output_info=None, tripwire_triggered="secret" in str(text))


@output_guardrail
async def short_answer(
    ctx: RunContextWrapper[Any], agent: Agent[Any], output: Any
) -> GuardrailFunctionOutput:
    return GuardrailFunctionOutput(output_info=None, tripwire_triggered=len(str(output)) > 20)


def guarded() -> Agent[Any]:
    return Agent(
        name="guarded",
        instructions="Answer.",
        model=ScriptedModel([[message("ok")]]),
        input_guardrails=[no_secrets],
        output_guardrails=[short_answer],
    )


@pytest.mark.usefixtures("installed")
async def test_guardrails_record_whether_they_tripped() -> None:
    with recording() as collector:
        assert (await Runner.run(guarded(), "hello")).final_output == "ok"
    trace = collector.materialize()
    spans = {span.operation: span for span in trace.spans if span.kind == "guardrail"}
    assert set(spans) == {"no_secrets", "short_answer"}
    assert all(span.attributes["guardrail.triggered"] is False for span in spans.values())
    assert spans["no_secrets"].attributes["guardrail.name"] == "no_secrets"
    with recording() as collector, pytest.raises(InputGuardrailTripwireTriggered):
        await Runner.run(guarded(), "my secret")
    trace = collector.materialize()
    tripped = one(trace, "no_secrets")
    assert tripped.kind == "guardrail" and tripped.attributes["guardrail.triggered"] is True
    assert all(not span.partial for span in trace.spans)
    assert active_span() is None


class ModelDown(RuntimeError):
    """The error the model raises."""


@pytest.mark.usefixtures("installed")
async def test_an_exception_passes_through_unchanged() -> None:
    error = ModelDown("the model is down")
    with recording() as collector, pytest.raises(ModelDown) as raised:
        await Runner.run(calculator([error]), "What is 2 + 3?")
    assert raised.value is error
    trace = collector.materialize()
    generation = one(trace, "openai_agents.generation")
    assert generation.status.value == "error"
    assert generation.error is not None and "the model is down" in generation.error.message
    agent = one(trace, "openai_agents.agent")
    assert agent.status.value == "error" and agent.error is not None
    assert all(not span.partial for span in trace.spans)
    assert active_span() is None


@pytest.mark.usefixtures("installed")
async def test_spans_the_application_opens_nest_as_the_sdk_nests_them() -> None:
    with recording() as collector:
        with trace("support flow", group_id="thread-7"):
            with custom_span("prepare", {"step": 1}):
                pass
            await Runner.run(calculator(), "What is 2 + 3?")
    recorded = collector.materialize()
    (workflow,) = by_operation(recorded, "openai_agents.workflow")  # one trace, not one per run
    assert workflow.attributes["workflow.name"] == "support flow"
    assert workflow.attributes["openai_agents.group_id"] == "thread-7"
    prepare = one(recorded, "prepare")
    assert parent_of(recorded, prepare).id == workflow.id
    agent = one(recorded, "openai_agents.agent")
    assert recorded.path(agent.id)[:2] == ("benchmark.run", "openai_agents.workflow")


def _run_sync_and_close_its_loop(results: list[Any]) -> None:
    results.append(Runner.run_sync(calculator(), "What is 2 + 3?").final_output)
    asyncio.get_event_loop_policy().get_event_loop().close()  # run_sync leaves it open


@pytest.mark.usefixtures("installed")
def test_run_sync_records_the_same_tree() -> None:
    results: list[Any] = []
    with recording() as collector:
        # a thread of its own, in the run's context: run_sync keeps its thread's default loop
        context = contextvars.copy_context()
        worker = threading.Thread(target=context.run, args=(_run_sync_and_close_its_loop, results))
        worker.start()
        worker.join()
    assert results == ["5"]
    trace = collector.materialize()
    tool = one(trace, "add")
    assert trace.path(tool.id) == (
        "benchmark.run",
        "openai_agents.workflow",
        "openai_agents.task",
        "openai_agents.agent",
        "openai_agents.turn",
        "add",
    )


@pytest.mark.usefixtures("installed")
async def test_a_streamed_run_records_the_same_tree() -> None:
    with recording() as collector:
        result = Runner.run_streamed(calculator(), "What is 2 + 3?")
        events = [event async for event in result.stream_events()]
    assert result.final_output == "5" and events
    trace = collector.materialize()
    tool = one(trace, "add")
    assert trace.path(tool.id)[:2] == ("benchmark.run", "openai_agents.workflow")
    assert trace.path(tool.id)[-2:] == ("openai_agents.turn", "add")
    generations = by_operation(trace, "openai_agents.generation")
    assert [span.usage["input_tokens"] for span in generations] == [10, 10]
    assert all(not span.partial for span in trace.spans)
    assert active_span() is None


def _tree(trace: Trace) -> list[tuple[str, ...]]:
    return sorted(trace.path(span.id) for span in trace.spans)


@pytest.mark.usefixtures("installed")
async def test_a_disabled_sdk_trace_records_no_framework_span() -> None:
    with recording() as collector:
        await Runner.run(calculator(), "x", run_config=RunConfig(tracing_disabled=True))
    assert _tree(collector.materialize()) == [("benchmark.run",)]


@pytest.mark.usefixtures("installed")
async def test_nothing_is_recorded_outside_a_run() -> None:
    result = await Runner.run(calculator(), "What is 2 + 3?")
    assert result.final_output == "5" and active_span() is None


async def test_a_streamed_chat_generation_names_no_answering_model(
    manager: InstrumentationManager,
) -> None:
    """The SDK builds a streamed chat completion's ``Response`` itself, with the model asked
    for: that is not the model that answered, which only the client layer beneath knows."""
    manager.install(create(None))
    manager.install(openai_instrumentor(None))
    provider = StreamingProvider()
    model = OpenAIChatCompletionsModel(model=API_MODEL, openai_client=provider.client())
    settings = ModelSettings(include_usage=True)
    agent = Agent(name="calc", instructions="Add.", model=model, model_settings=settings)
    with recording() as collector:
        result = Runner.run_streamed(agent, "2 + 3?")
        async for _ in result.stream_events():
            pass
    trace = collector.materialize()
    (generation,) = [s for s in trace.spans if s.operation == "openai_agents.generation"]
    (client,) = trace.children(generation.id)
    assert generation.attributes["llm.model.requested"] == API_MODEL
    assert "llm.model.response" not in generation.attributes
    assert client.attributes["llm.model.response"] == API_MODEL_VERSION
