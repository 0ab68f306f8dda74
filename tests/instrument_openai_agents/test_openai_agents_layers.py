"""Layered traces with the SDK's real OpenAI models: the framework ``llm`` span, the OpenAI
client's span beneath it and the HTTP span beneath that; token totals counted once."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, Runner, function_tool
from agents_support import (
    API_MODEL,
    API_MODEL_VERSION,
    FakeOpenAI,
    by_operation,
    one,
    parent_of,
    recording,
)

from autobench import (
    Benchmark,
    HTTPXInstrumentation,
    OpenAIAgentsInstrumentation,
    OpenAIInstrumentation,
)
from autobench.abp import InstrumentationManager
from autobench.instrument.httpx import create as httpx_instrumentor
from autobench.instrument.openai import create as openai_instrumentor
from autobench.instrument.openai_agents import create
from autobench.records import ObservationQuery, run_observations


@function_tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _model(kind: str, api: FakeOpenAI) -> Any:
    if kind == "responses":
        return OpenAIResponsesModel(model=API_MODEL, openai_client=api.client())
    return OpenAIChatCompletionsModel(model=API_MODEL, openai_client=api.client())


@pytest.fixture
def layered(manager: InstrumentationManager) -> InstrumentationManager:
    for instrumentor in (create(None), openai_instrumentor(None), httpx_instrumentor(None)):
        manager.install(instrumentor)
    return manager


@pytest.mark.usefixtures("layered")
@pytest.mark.parametrize(
    ("kind", "operation", "client_operation"),
    [
        ("responses", "openai_agents.response", "openai.responses"),
        ("chat", "openai_agents.generation", "openai.chat.completions"),
    ],
)
async def test_the_client_and_http_spans_nest_under_the_framework_llm_span(
    kind: str, operation: str, client_operation: str
) -> None:
    api = FakeOpenAI()
    agent = Agent(name="calc", instructions="Add.", tools=[add], model=_model(kind, api))
    with recording() as collector:
        result = await Runner.run(agent, "What is 2 + 3?")
    assert result.final_output == "5"
    trace = collector.materialize()
    calls = by_operation(trace, operation)
    assert len(calls) == 2 and len(api.paths) == 2
    for call in calls:
        (client,) = trace.children(call.id)
        (http,) = trace.children(client.id)
        assert (client.operation, client.scope) == (client_operation, "openai")
        assert (http.kind, http.scope) == ("http", "httpx")
        assert trace.path(http.id) == (
            "benchmark.run",
            "openai_agents.workflow",
            "openai_agents.task",
            "openai_agents.agent",
            "openai_agents.turn",
            operation,
            client_operation,
            http.operation,
        )
        # the same call measured at two layers, with the same counts
        framework = {key: value for key, value in call.usage.items() if value}
        client_usage = {key: value for key, value in client.usage.items() if value}
        assert framework == client_usage
    if kind == "chat":  # the SDK names the model asked for; its output has no model
        assert calls[0].attributes["llm.model.requested"] == API_MODEL
        assert calls[0].attributes["llm.provider"] == "openai"
    else:  # the SDK keeps the response, not the model asked for
        assert calls[0].attributes["llm.model.response"] == API_MODEL_VERSION
        assert calls[0].attributes["llm.response.id"] == "resp_1"
    tool = one(trace, "add")
    assert parent_of(trace, tool).operation == "openai_agents.turn"


TASK = '''
from agents import Agent, OpenAIResponsesModel, Runner, function_tool
from agents_support import API_MODEL, FakeOpenAI


@function_tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def run(ctx, case):
    api = FakeOpenAI()
    model = OpenAIResponsesModel(model=API_MODEL, openai_client=api.client())
    agent = Agent(name="calc", instructions="Add.", tools=[add], model=model)
    result = await Runner.run(agent, case.input["question"])
    return {"answer": result.final_output}
'''

SEMANTICS = (
    "llm.tokens.input",
    "llm.tokens.output",
    "llm.tokens.cache_read",
    "llm.tokens.reasoning",
    "llm.tokens.cache_write",
    "llm.request.count",
)


@pytest.fixture
def task_module(tmp_path: Path) -> str:
    (tmp_path / "agents_task.py").write_text(textwrap.dedent(TASK))
    sys.path.insert(0, str(tmp_path))
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        yield "agents_task"
    finally:
        sys.path.remove(str(tmp_path))
        sys.path.remove(str(Path(__file__).parent))
        sys.modules.pop("agents_task", None)


def _totals(tmp_path: Path, module: str, *settings: Any) -> dict[str, list[Any]]:
    benchmark = (
        Benchmark("agents")
        .dataset([{"id": "c1", "input": {"question": "What is 2 + 3?"}}])
        .variants([{"id": "v1"}])
        .task(f"{module}:run")
        .base_dir(tmp_path)
        .instrument(*settings)
    )
    (run,) = benchmark.run().runs
    assert run.status.value == "passed", run.status
    assert run.output == {"answer": "5"}
    problems = {"aggregate_measurement_mismatch", "ambiguous_direct_measurement"}
    assert not [o.name for o in run.observations if o.name in problems]  # roll-ups agree
    query = ObservationQuery(observations=run_observations(run))
    return {semantic: query.values(semantic) for semantic in SEMANTICS}


def test_token_totals_do_not_depend_on_the_layers_installed(
    tmp_path: Path, task_module: str
) -> None:
    client_only = _totals(tmp_path, task_module, OpenAIInstrumentation())
    framework_only = _totals(tmp_path, task_module, OpenAIAgentsInstrumentation())
    every_layer = _totals(
        tmp_path,
        task_module,
        OpenAIAgentsInstrumentation(),
        OpenAIInstrumentation(),
        HTTPXInstrumentation(),
    )
    # two calls of 40 input (10 cached) and 9 output (4 reasoning) tokens
    assert client_only["llm.tokens.input"] == [80] and client_only["llm.tokens.output"] == [18]
    assert client_only["llm.tokens.cache_read"] == [20]
    assert client_only["llm.tokens.reasoning"] == [8]
    assert client_only["llm.request.count"] == [2]
    assert framework_only == client_only
    assert every_layer == client_only
