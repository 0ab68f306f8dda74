"""Pydantic AI's own OpenTelemetry instrumentation (its ``Instrumentation`` capability) imported through the
``opentelemetry`` instrumentor gives the token totals of the native Pydantic AI
instrumentor, and with both on (or with every integration discovered) nothing is counted
twice: the native spans win, the OpenTelemetry usage stays as validation evidence."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from autobench import (
    Benchmark,
    HTTPXInstrumentation,
    OpenAIInstrumentation,
    OpenTelemetryInstrumentation,
    PydanticAIInstrumentation,
)
from autobench.records import ObservationQuery, run_observations

SUPPORT = Path(__file__).parents[1] / "instrument_pydantic_ai"

TASK = """
from pai_support import ScriptedAPI, lookup_agent, text_turn, tool_turn
from pydantic_ai.capabilities import Instrumentation


async def run(ctx, case):
    api = ScriptedAPI(tool_turn("lookup", query="lamp"), text_turn("done"))
    agent = lookup_agent(api, capabilities=[Instrumentation()])
    if case.input.get("stream"):
        async with agent.run_stream("find it") as streamed:
            return await streamed.get_output()
    return (await agent.run("find it")).output
"""

PRICING = (Path(__file__).parents[1] / "fixtures" / "accounting" / "pricing.yaml").read_text()
"""The accounting example's price table (USD per million tokens of ``gpt-test``)."""

# two requests of 1,000 input (800 cached) and 200 output (50 reasoning) tokens each
TOTALS = {
    "llm.tokens.input": 2000,
    "llm.tokens.output": 400,
    "llm.tokens.cache_read": 1600,
    "llm.tokens.reasoning": 100,
    "llm.request.count": 2,
}
COST = 2 * (200 * 2.0 + 800 * 0.5 + 200 * 8.0) / 1e6


@pytest.fixture
def task_module(tmp_path: Path) -> Iterator[str]:
    name = "otel_pai_task"
    (tmp_path / f"{name}.py").write_text(TASK)
    (tmp_path / "pricing.yaml").write_text(PRICING)
    sys.path[:0] = [str(tmp_path), str(SUPPORT)]
    try:
        yield name
    finally:
        sys.path.remove(str(tmp_path))
        sys.path.remove(str(SUPPORT))
        sys.modules.pop(name, None)


def _benchmark(tmp_path: Path, task: str) -> Benchmark:
    return (
        Benchmark("shop")
        .dataset(
            [
                {"id": "plain", "input": {}},
                {"id": "streamed", "input": {"stream": True}},
            ]
        )
        .variants([{"id": "v1"}])
        .task(f"{task}:run")
        .derive([{"kind": "token_cost", "pricing": "pricing.yaml"}])
        .base_dir(tmp_path)
    )


def _totals(builder: Benchmark, *, covered: bool | None = None) -> list[dict[str, object]]:
    """The run totals of both runs. ``covered``: whether the OpenTelemetry model-request
    spans are there and marked as covered by the native instrumentor (``None``: not
    checked)."""
    result = builder.run()
    assert [run.status.value for run in result.runs] == ["passed", "passed"]
    found = []
    for run in result.runs:
        query = ObservationQuery(observations=run_observations(run), trace=run.trace)
        totals: dict[str, object] = {
            semantic: query.values(semantic)[0] if query.values(semantic) else None
            for semantic in TOTALS
        }
        [cost] = query.values("money.cost")
        totals["money.cost"] = pytest.approx(cost)
        problems = [o.name for o in run.observations if o.name.startswith(("aggregate_", "ambig"))]
        assert problems == [], run.case_id
        found.append(totals)
        if covered is not None:
            otel = [
                span
                for span in run.spans
                if span.scope == "opentelemetry:pydantic-ai" and span.kind == "llm"
            ]
            assert len(otel) == 2, run.case_id
            for span in otel:
                assert span.usage["input_tokens"] == 1000
                assert span.attributes["llm.model.requested"] == "gpt-test"
                assert (span.usage.get("aggregate") is True) is covered
                assert (span.attributes.get("accounting.covered_by") == "pydantic_ai") is covered
    return found


EXPECTED = {**TOTALS, "money.cost": pytest.approx(COST)}


def test_otel_alone_gives_the_native_totals(tmp_path: Path, task_module: str) -> None:
    native = _totals(_benchmark(tmp_path, task_module).instrument(PydanticAIInstrumentation()))
    imported = _totals(
        _benchmark(tmp_path, task_module).instrument(OpenTelemetryInstrumentation()),
        covered=False,
    )
    assert native == [EXPECTED, EXPECTED]
    assert imported == native


def test_otel_and_native_pydantic_ai_count_once(tmp_path: Path, task_module: str) -> None:
    builder = _benchmark(tmp_path, task_module).instrument(
        OpenTelemetryInstrumentation(), PydanticAIInstrumentation()
    )
    assert _totals(builder, covered=True) == [EXPECTED, EXPECTED]


def test_every_integration_discovered_counts_once(tmp_path: Path, task_module: str) -> None:
    builder = _benchmark(tmp_path, task_module).instrument_all()
    result_totals = _totals(builder, covered=True)
    assert result_totals == [EXPECTED, EXPECTED]


def test_a_native_client_span_nests_under_the_imported_request(
    tmp_path: Path, task_module: str
) -> None:
    """Pydantic AI's OpenTelemetry spans (framework layer) with the native OpenAI client
    instrumentor but not the native Pydantic AI one: the client span opens under the
    imported model-request span, so accounting counts the client layer once."""
    builder = _benchmark(tmp_path, task_module).instrument(
        OpenTelemetryInstrumentation(), OpenAIInstrumentation(), HTTPXInstrumentation()
    )
    assert _totals(builder) == [EXPECTED, EXPECTED]
    for run in builder.run().runs:
        by_id = {span.id: span for span in run.spans}
        clients = [span for span in run.spans if span.scope == "openai"]
        assert len(clients) == 2, run.case_id
        for client in clients:
            parent = by_id[client.parent or ""]
            assert parent.scope == "opentelemetry:pydantic-ai", run.case_id
            assert parent.kind == "llm"
