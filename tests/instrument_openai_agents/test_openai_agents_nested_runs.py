"""Agent runs inside agent runs: an input guardrail that runs its own agent (the SDK docs'
pattern, ``Runner.run(guardrail_agent, input, context=ctx.context)``: a run with its own
usage) and an agent used as a tool (``Agent.as_tool``: the nested run adds to the tool
call's usage). The SDK's task and turn roll-ups include the nested run in the second case
only; in both the totals count every model call once and no ``aggregate_measurement_mismatch``
is raised, with every combination of layers. Real SDK models over ``MockTransport``."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from autobench import (
    Benchmark,
    HTTPXInstrumentation,
    OpenAIAgentsInstrumentation,
    OpenAIInstrumentation,
)
from autobench.records import ObservationQuery, run_observations

APP = '''
import httpx2
import openai
from agents import (
    Agent,
    GuardrailFunctionOutput,
    OpenAIResponsesModel,
    RunContextWrapper,
    Runner,
    input_guardrail,
)
from agents_support import API_MODEL, FakeOpenAI, response_json

SENT = []


def answering(text):
    """A real client whose API answers every request with ``text``."""

    async def handle(request):
        SENT.append(request.url.path)
        message = {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        return httpx2.Response(200, json=response_json([message], len(SENT)))

    transport = httpx2.MockTransport(handle)
    return openai.AsyncOpenAI(
        api_key="k", max_retries=0, http_client=httpx2.AsyncClient(transport=transport)
    )


def model(client):
    return OpenAIResponsesModel(model=API_MODEL, openai_client=client)


guardrail_agent = Agent(
    name="Guardrail check", instructions="Is this homework?", model=model(answering("no"))
)


@input_guardrail
async def homework_guardrail(ctx: RunContextWrapper[None], agent, input):
    result = await Runner.run(guardrail_agent, input, context=ctx.context)
    return GuardrailFunctionOutput(output_info=result.final_output, tripwire_triggered=False)


async def guarded(ctx, case):
    SENT.clear()
    agent = Agent(
        name="Support",
        instructions="Help.",
        input_guardrails=[homework_guardrail],
        model=model(answering("Happy to help.")),
    )
    result = await Runner.run(agent, case.input["question"])
    return {"answer": result.final_output, "sent": len(SENT)}


async def delegating(ctx, case):
    SENT.clear()
    adder = Agent(name="Adder", instructions="Add.", model=model(answering("5")))
    api = FakeOpenAI(tool="add_numbers", arguments={"input": "2 + 3"})
    orchestrator = Agent(
        name="Orchestrator",
        instructions="Use the tool.",
        tools=[adder.as_tool(tool_name="add_numbers", tool_description="Add numbers.")],
        model=model(api.client()),
    )
    result = await Runner.run(orchestrator, case.input["question"])
    return {"answer": result.final_output, "sent": len(SENT) + len(api.paths)}
'''

SEMANTICS = ("llm.request.count", "llm.tokens.input", "llm.tokens.output", "llm.tokens.cache_read")
PROBLEMS = {"aggregate_measurement_mismatch", "ambiguous_direct_measurement"}

LAYERS = [
    pytest.param((OpenAIAgentsInstrumentation(),), id="agents"),
    pytest.param((OpenAIInstrumentation(),), id="openai"),
    pytest.param(
        (OpenAIAgentsInstrumentation(), OpenAIInstrumentation(), HTTPXInstrumentation()),
        id="all",
    ),
]


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "agents_nested_app.py").write_text(textwrap.dedent(APP))
    sys.path.insert(0, str(tmp_path))
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        sys.path.remove(str(Path(__file__).parent))
        sys.modules.pop("agents_nested_app", None)


def _run(directory: Path, task: str, settings: tuple[Any, ...]) -> tuple[Any, dict, list[str]]:
    (run,) = (
        Benchmark("nested")
        .dataset([{"id": "c1", "input": {"question": "What is 2 + 3?"}}])
        .variants([{"id": "v1"}])
        .task(f"agents_nested_app:{task}")
        .base_dir(directory)
        .instrument(*settings)
        .run()
        .runs
    )
    assert run.status.value == "passed", run.errors
    query = ObservationQuery(observations=run_observations(run))
    totals = {semantic: query.values(semantic) for semantic in SEMANTICS}
    problems = sorted(o.name for o in run.observations if o.name in PROBLEMS)
    return run.output, totals, problems


def _exact(requests: int) -> dict[str, list[int]]:
    """Every call of the fake API: 40 input (10 cached) and 9 output tokens."""
    return {
        "llm.request.count": [requests],
        "llm.tokens.input": [40 * requests],
        "llm.tokens.output": [9 * requests],
        "llm.tokens.cache_read": [10 * requests],
    }


@pytest.mark.parametrize("settings", LAYERS)
def test_an_input_guardrail_running_its_own_agent(app: Path, settings: tuple[Any, ...]) -> None:
    output, totals, problems = _run(app, "guarded", settings)
    assert output == {"answer": "Happy to help.", "sent": 2}
    assert totals == _exact(2)
    assert problems == []


@pytest.mark.parametrize("settings", LAYERS)
def test_an_agent_used_as_a_tool(app: Path, settings: tuple[Any, ...]) -> None:
    output, totals, problems = _run(app, "delegating", settings)
    assert output == {"answer": "5", "sent": 3}
    assert totals == _exact(3)
    assert problems == []
