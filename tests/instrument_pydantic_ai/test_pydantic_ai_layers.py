"""Layered traces through Autobench's runtime: agent > model request > client request >
HTTP request, and token totals that no combination of instrumentors changes."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pai_support import (
    REQUEST_USAGE,
    ScriptedAPI,
    lookup_agent,
    recording,
    text_turn,
    tool_turn,
    tree,
)

from autobench import (
    Benchmark,
    HTTPXInstrumentation,
    OpenAIInstrumentation,
    PydanticAIInstrumentation,
    track,
)
from autobench.abp import InstrumentationManager
from autobench.instrument import httpx as instrument_httpx
from autobench.instrument import openai as instrument_openai
from autobench.instrument.pydantic_ai import PydanticAI, create
from autobench.records import ObservationQuery, run_observations

TASK = """
from pai_support import ScriptedAPI, lookup_agent, text_turn, tool_turn


async def run(ctx, case):
    api = ScriptedAPI(tool_turn("lookup", query=case.input["query"]), text_turn("done"))
    agent = lookup_agent(api)
    if case.input.get("stream"):
        async with agent.run_stream("find it") as streamed:
            return await streamed.get_output()
    return (await agent.run("find it")).output
"""

PRICING = (Path(__file__).parents[1] / "fixtures" / "accounting" / "pricing.yaml").read_text()
"""The accounting example's price table (USD per million tokens of ``gpt-test``)."""

SETTINGS = {
    "pydantic_ai": PydanticAIInstrumentation(),
    "openai": OpenAIInstrumentation(),
    "httpx": HTTPXInstrumentation(),
}


@pytest.fixture
def task_module(tmp_path: Path) -> Iterator[str]:
    name = "pai_layers_task"
    (tmp_path / f"{name}.py").write_text(TASK)
    (tmp_path / "pricing.yaml").write_text(PRICING)
    sys.path.insert(0, str(tmp_path))
    try:
        yield name
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)


def _benchmark(tmp_path: Path, task: str) -> Benchmark:
    return (
        Benchmark("shop")
        .dataset(
            [
                {"id": "plain", "input": {"query": "lamp"}},
                {"id": "streamed", "input": {"query": "lamp", "stream": True}},
            ]
        )
        .variants([{"id": "v1"}])
        .task(f"{task}:run")
        .derive([{"kind": "token_cost", "pricing": "pricing.yaml"}])
        .base_dir(tmp_path)
    )


async def test_a_streamed_and_a_plain_run_nest_every_layer() -> None:
    with InstrumentationManager() as manager:
        for factory in (create, instrument_openai.create, instrument_httpx.create):
            manager.install(factory(None))
        for stream in (False, True):
            api = ScriptedAPI(tool_turn("lookup", query="lamp"), text_turn("done"))
            with recording() as collector:
                agent = lookup_agent(api)
                if stream:
                    async with agent.run_stream("find it") as streamed:
                        await streamed.get_output()
                else:
                    await agent.run("find it")
            shape = [(depth, kind) for depth, kind, _ in tree(collector.materialize())]
            request = [(2, "llm"), (3, "llm"), (4, "http")]
            expected = [(0, "task"), (1, "agent"), *request, (2, "tool"), *request]
            assert shape[: len(expected)] == expected, stream


COMBINATIONS = [
    combination
    for size in range(1, 4)
    for combination in itertools.combinations(("pydantic_ai", "openai", "httpx"), size)
]


@pytest.mark.parametrize("layers", COMBINATIONS, ids="+".join)
def test_no_combination_of_layers_changes_the_totals(
    tmp_path: Path, task_module: str, layers: tuple[str, ...]
) -> None:
    builder = _benchmark(tmp_path, task_module).instrument(*(SETTINGS[n] for n in layers))
    result = builder.run()
    assert [run.status.value for run in result.runs] == ["passed", "passed"]
    for run in result.runs:
        query = ObservationQuery(observations=run_observations(run))
        if layers == ("httpx",):  # a transport span carries no tokens
            assert query.values("llm.tokens.input") == [], run.case_id
            continue
        assert query.values("llm.tokens.input") == [2 * REQUEST_USAGE["input_tokens"]]
        assert query.values("llm.tokens.output") == [2 * REQUEST_USAGE["output_tokens"]]
        assert query.values("llm.tokens.cache_read") == [2 * REQUEST_USAGE["cache_read_tokens"]]
        assert query.values("llm.tokens.reasoning") == [2 * REQUEST_USAGE["reasoning_tokens"]]
        assert query.values("llm.request.count") == [2]
        # 2 x (200 uncached at input, 800 cached at cache_read, 200 at output)
        cost = 2 * (200 * 2.0 + 800 * 0.5 + 200 * 8.0) / 1e6
        assert query.values("money.cost") == [pytest.approx(cost)], run.case_id
        # the agent's roll-up agrees with the requests it ran: no mismatch diagnostic
        problems = [o.name for o in run.observations if o.name.startswith("aggregate_")]
        assert problems == []


def test_instrument_all_with_an_explicit_pydantic_ai_installs_it_once(
    tmp_path: Path, task_module: str
) -> None:
    prompt = track.prompt(name="shop_prompt", text="Sell lamps.")
    explicit = PydanticAI(assets=[prompt])
    builder = _benchmark(tmp_path, task_module).instrument(explicit).instrument_all()
    result = builder.run()
    for run in result.runs:
        agents = [span for span in run.spans if span.kind == "agent"]
        assert len(agents) == 1  # the discovered pydantic_ai was not installed beside it
        assert [ref.id for ref in agents[0].references] == [prompt.asset_id]
        assert run.asset_versions[prompt.asset_id].version == prompt.version
        scopes = {span.scope for span in run.spans}
        assert {"pydantic_ai", "openai", "httpx"} <= scopes
        query = ObservationQuery(observations=run_observations(run))
        assert query.values("llm.tokens.input") == [2000]


CARRIED_TASK = """
from pydantic_ai.usage import RunUsage
from pai_support import ScriptedAPI, lookup_agent, text_turn


async def run(ctx, case):
    # usage carried over from an earlier conversation: the run's roll-up starts at 500
    agent = lookup_agent(ScriptedAPI(text_turn("done")))
    return (await agent.run("again", usage=RunUsage(input_tokens=500))).output
"""


def test_a_roll_up_that_disagrees_with_the_requests_is_a_diagnostic(tmp_path: Path) -> None:
    name = "pai_carried_task"
    (tmp_path / f"{name}.py").write_text(CARRIED_TASK)
    sys.path.insert(0, str(tmp_path))
    try:
        result = (
            Benchmark("carried")
            .dataset([{"id": "c1"}])
            .variants([{"id": "v1"}])
            .task(f"{name}:run")
            .instrument(PydanticAIInstrumentation(), OpenAIInstrumentation())
            .run()
        )
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)
    run = result.runs[0]
    query = ObservationQuery(observations=run_observations(run))
    assert query.values("llm.tokens.input") == [1000]  # the one request, counted once
    mismatches = [o for o in run.observations if o.name == "aggregate_measurement_mismatch"]
    assert [o.tags.get("metric") for o in mismatches] == ["llm.tokens.input"]
