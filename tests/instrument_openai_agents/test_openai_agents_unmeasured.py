"""Usage a provider never sent is unmeasured, never zero, whichever layers are on.

The Agents SDK streams a chat completion from a provider that is not OpenAI without
asking for usage (no ``stream_options.include_usage``), and then traces the call with
zero token counts. The SDK runs for real (``Runner.run_streamed`` with its own
``OpenAIChatCompletionsModel``) over the real OpenAI client and a ``MockTransport``
provider that keeps a ledger of the usage it sent.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, ModelSettings, OpenAIChatCompletionsModel, Runner
from agents_support import API_MODEL, CHAT_USAGE, StreamingProvider, recording

from autobench import (
    Benchmark,
    HTTPXInstrumentation,
    OpenAIAgentsInstrumentation,
    OpenAIInstrumentation,
)
from autobench.abp import USAGE_UNMEASURED, InstrumentationManager, Trace
from autobench.instrument.openai import create as openai_instrumentor
from autobench.instrument.openai_agents import create
from autobench.records import ObservationQuery, RunRecord, run_observations

TASK = """
from agents import Agent, ModelSettings, OpenAIChatCompletionsModel, Runner
from agents_support import API_MODEL, StreamingProvider

LEDGERS = []


async def run(ctx, case):
    provider = StreamingProvider()
    LEDGERS.append(provider.served)
    model = OpenAIChatCompletionsModel(model=API_MODEL, openai_client=provider.client())
    settings = ModelSettings(include_usage=case.input.get("include_usage"))
    agent = Agent(name="calc", instructions="Add.", model=model, model_settings=settings)
    result = Runner.run_streamed(agent, case.input["question"])
    async for _ in result.stream_events():
        pass
    return {"answer": result.final_output}
"""

PRICING = """\
pricing:
  provider: llm.example.test
  models:
    gpt-test:
      aliases: ["gpt-test-2026-01-01"]
      input: {unit: mtok, price: 2.0}
      cache_read: {unit: mtok, price: 0.5}
      output: {unit: mtok, price: 8.0}
"""

LAYERS: dict[str, Any] = {
    "agents": OpenAIAgentsInstrumentation,
    "openai": OpenAIInstrumentation,
    "httpx": HTTPXInstrumentation,
}
COMBINATIONS = [("agents",), ("openai",), ("agents", "openai"), ("agents", "openai", "httpx")]
TOKENS = ("llm.tokens.input", "llm.tokens.output", "llm.tokens.cache_read")


@pytest.fixture
def task_module(tmp_path: Path) -> Iterator[Any]:
    name = "agents_unmeasured_task"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(TASK))
    (tmp_path / "pricing.yaml").write_text(PRICING)
    sys.path.insert(0, str(tmp_path))
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        yield name
    finally:
        sys.path.remove(str(tmp_path))
        sys.path.remove(str(Path(__file__).parent))
        sys.modules.pop(name, None)


def _runs(tmp_path: Path, module: str, layers: tuple[str, ...]) -> dict[str, RunRecord]:
    result = (
        Benchmark("unmeasured")
        .dataset(
            [
                {"id": "default", "input": {"question": "2 + 3?"}},
                {"id": "with_usage", "input": {"question": "2 + 3?", "include_usage": True}},
            ]
        )
        .variants([{"id": "v1"}])
        .task(f"{module}:run")
        .derive([{"kind": "token_cost", "pricing": "pricing.yaml"}])
        .base_dir(tmp_path)
        .instrument(*(LAYERS[name]() for name in layers))
        .run()
    )
    assert [run.status.value for run in result.runs] == ["passed", "passed"]
    assert [run.output for run in result.runs] == [{"answer": "5"}] * 2
    ledgers = sys.modules[module].LEDGERS
    assert ledgers[-2:] == [[None], [CHAT_USAGE]]  # what the provider sent, per run
    return {run.case_id: run for run in result.runs}


def _unmeasured(trace: Trace) -> list[str]:
    """The operations of the spans carrying the ``usage_unmeasured`` diagnostic."""
    names = {span.id: span.operation for span in trace.spans}
    return sorted(
        names[diagnostic.span]
        for diagnostic in trace.diagnostics
        if diagnostic.code == USAGE_UNMEASURED and diagnostic.span is not None
    )


EXPECTED_SPANS = {
    "agents": ["openai_agents.generation"],
    "openai": ["openai.chat.completions"],
}


@pytest.mark.parametrize("layers", COMBINATIONS, ids="+".join)
def test_a_stream_without_usage_is_unmeasured_in_every_combination(
    tmp_path: Path, task_module: str, layers: tuple[str, ...]
) -> None:
    runs = _runs(tmp_path, task_module, layers)
    silent, measured = runs["default"], runs["with_usage"]

    query = ObservationQuery(observations=run_observations(silent))
    for semantic in TOKENS:
        assert query.values(semantic) in ([], [None]), semantic  # unmeasured, not 0
    assert query.values("llm.request.count") == [1]
    assert query.values("money.cost") in ([], [None])  # no cost, never $0.00
    names = {observation.name for observation in silent.observations}
    assert "token_cost_missing_inputs" in names
    assert isinstance(silent.trace, Trace)
    expected = sorted(op for layer in layers for op in EXPECTED_SPANS.get(layer, []))
    assert _unmeasured(silent.trace) == expected

    query = ObservationQuery(observations=run_observations(measured))
    assert query.values("llm.tokens.input") == [CHAT_USAGE["prompt_tokens"]]
    assert query.values("llm.tokens.output") == [CHAT_USAGE["completion_tokens"]]
    assert query.values("llm.tokens.cache_read") == [5]
    assert query.values("llm.request.count") == [1]
    assert isinstance(measured.trace, Trace)
    assert _unmeasured(measured.trace) == []


async def test_the_sdk_zero_usage_is_not_recorded_on_the_generation_span(
    manager: InstrumentationManager,
) -> None:
    manager.install(create(None))
    manager.install(openai_instrumentor(None))
    provider = StreamingProvider()
    model = OpenAIChatCompletionsModel(model=API_MODEL, openai_client=provider.client())
    agent = Agent(name="calc", instructions="Add.", model=model)
    with recording() as collector:
        result = Runner.run_streamed(agent, "2 + 3?")
        async for _ in result.stream_events():
            pass
    assert provider.served == [None]
    # the SDK's own accounting says zero tokens for the call ...
    assert result.context_wrapper.usage.input_tokens == 0
    trace = collector.materialize()
    (generation,) = [s for s in trace.spans if s.operation == "openai_agents.generation"]
    (client,) = trace.children(generation.id)
    # ... which neither layer records: the request only
    assert generation.usage == {"requests": 1} and client.usage == {"requests": 1}
    (task,) = [s for s in trace.spans if s.operation == "openai_agents.task"]
    assert "input_tokens" not in task.usage and "output_tokens" not in task.usage


async def test_zeros_the_provider_did_send_are_measured(manager: InstrumentationManager) -> None:
    manager.install(create(None))
    zero = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    provider = StreamingProvider(usage=zero)
    model = OpenAIChatCompletionsModel(model=API_MODEL, openai_client=provider.client())
    settings = ModelSettings(include_usage=True)
    agent = Agent(name="calc", instructions="Add.", model=model, model_settings=settings)
    with recording() as collector:
        result = Runner.run_streamed(agent, "2 + 3?")
        async for _ in result.stream_events():
            pass
    assert provider.served == [zero]
    trace = collector.materialize()
    (generation,) = [s for s in trace.spans if s.operation == "openai_agents.generation"]
    # the span kept the provider's response, whose usage block is there: zeros measured
    assert generation.usage == {"requests": 1, "input_tokens": 0, "output_tokens": 0}
    assert _unmeasured(trace) == []
