"""One provider identity per call, whichever instrumentors are on, and pricing by either name.

Three applications talk to an OpenAI-compatible server at ``http://llm.test/v1`` (the
real ``openai.AsyncOpenAI`` over ``httpx2.MockTransport``): the bare client (one plain
and one streamed chat completion), a Pydantic AI agent on ``OpenAIChatModel`` and an
OpenAI Agents SDK agent on ``OpenAIChatCompletionsModel``. Each runs through Autobench
under every combination of the layers that can see it; every combination must record
the provider ``openai`` at ``server.address`` ``llm.test``, the same model identity, the
same tokens, and the same cost from a pricing file naming ``openai`` and from one naming
the host, while a file naming another provider prices nothing.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from autobench import (
    Benchmark,
    OpenAIAgentsInstrumentation,
    OpenAIInstrumentation,
    PydanticAIInstrumentation,
)
from autobench.records import ObservationKind, ObservationQuery, run_observations

TASK = """
import json

import httpx2
import openai

USAGE = {
    "prompt_tokens": 1000,
    "completion_tokens": 200,
    "total_tokens": 1200,
    "prompt_tokens_details": {"cached_tokens": 800},
    "completion_tokens_details": {"reasoning_tokens": 50},
}
MESSAGES = [{"role": "user", "content": "Say hello"}]


def _handler(request):
    body = json.loads(request.content)
    base = {"id": "chatcmpl-1", "created": 1, "model": "gpt-test-2026-01-01"}
    if body.get("stream"):
        chunks = [
            {**base, "object": "chat.completion.chunk",
             "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hi"},
                          "finish_reason": None}]},
            {**base, "object": "chat.completion.chunk",
             "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
            {**base, "object": "chat.completion.chunk", "choices": [], "usage": USAGE},
        ]
        events = b"".join(b"data: " + json.dumps(c).encode() + b"\\n\\n" for c in chunks)
        return httpx2.Response(
            200, content=events + b"data: [DONE]\\n\\n",
            headers={"content-type": "text/event-stream"},
        )
    return httpx2.Response(200, json={
        **base, "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"},
                     "finish_reason": "stop"}],
        "usage": USAGE,
    })


def client():
    return openai.AsyncOpenAI(
        api_key="sk-offline-0123456789", base_url="http://llm.test/v1", max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(_handler)),
    )


async def run(ctx, case):
    app = case.input["app"]
    if app == "client":
        api = client()
        await api.chat.completions.create(model="gpt-test", messages=MESSAGES)
        stream = await api.chat.completions.create(
            model="gpt-test", messages=MESSAGES, stream=True,
            stream_options={"include_usage": True},
        )
        async for _ in stream:
            pass
        return "Hi"
    if app == "pydantic_ai":
        from pydantic_ai import Agent
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        model = OpenAIChatModel("gpt-test", provider=OpenAIProvider(openai_client=client()))
        return (await Agent(model, name="greeter").run("Say hello")).output
    from agents import Agent, OpenAIChatCompletionsModel, Runner

    model = OpenAIChatCompletionsModel(model="gpt-test", openai_client=client())
    agent = Agent(name="greeter", instructions="Greet.", model=model)
    return (await Runner.run(agent, "Say hello")).final_output
"""

PRICES = """\
  models:
    gpt-test:
      aliases: ["gpt-test-2026-01-01"]
      input: {unit: mtok, price: 2.0}
      cache_read: {unit: mtok, price: 0.5}
      output: {unit: mtok, price: 8.0}
"""
PRICING_FILES = {
    "cost_by_name": "pricing:\n  provider: openai\n" + PRICES,
    "cost_by_host": "pricing:\n  provider: llm.test\n" + PRICES,
    "cost_elsewhere": "pricing:\n  provider: anthropic\n" + PRICES,
}
"""A file naming the provider system, one naming the host, one naming another provider."""

REQUEST_COST = (200 * 2.0 + 800 * 0.5 + 200 * 8.0) / 1e6
"""One request: 200 uncached input tokens, 800 cached, 200 output."""

SETTINGS = {
    "openai": OpenAIInstrumentation,
    "pydantic_ai": PydanticAIInstrumentation,
    "openai_agents": OpenAIAgentsInstrumentation,
}
SEES = {
    "client": {"openai"},
    "pydantic_ai": {"openai", "pydantic_ai"},
    "agents": {"openai", "openai_agents"},
}
"""The layers that measure each application's calls."""
REQUESTS = {"client": 2, "pydantic_ai": 1, "agents": 1}


def _combinations(app: str) -> list[tuple[str, ...]]:
    names = sorted(SEES[app])
    return [c for size in range(1, 4) for c in itertools.combinations(names, size)]


@pytest.fixture
def task_module(tmp_path: Path) -> Iterator[str]:
    name = "provider_identity_task"
    (tmp_path / f"{name}.py").write_text(TASK)
    for output, text in PRICING_FILES.items():
        (tmp_path / f"{output}.yaml").write_text(text)
    sys.path.insert(0, str(tmp_path))
    try:
        yield name
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)


@pytest.fixture(autouse=True)
def offline_agents_tracing() -> Iterator[None]:
    """The Agents SDK's exporter off the global trace provider during the test."""
    from agents import set_trace_processors
    from agents.tracing import get_trace_provider

    before = tuple(get_trace_provider()._multi_processor._processors)  # type: ignore[attr-defined]
    set_trace_processors([])
    try:
        yield
    finally:
        set_trace_processors(list(before))


def _report(tmp_path: Path, task: str, app: str, layers: tuple[str, ...]) -> dict[str, Any]:
    derive = [
        {
            "kind": "token_cost",
            "pricing": f"{output}.yaml",
            "output": {"name": output, "semantic_type": "money.cost", "unit": "usd"},
        }
        for output in PRICING_FILES
    ]
    result = (
        Benchmark("identity")
        .dataset([{"id": app, "input": {"app": app}}])
        .variants([{"id": "v1"}])
        .task(f"{task}:run")
        .derive(derive)
        .instrument(*(SETTINGS[name]() for name in layers))
        .base_dir(tmp_path)
        .run()
    )
    (run,) = result.runs
    assert run.status.value == "passed", (layers, run.error)
    observations = run_observations(run)
    query = ObservationQuery(observations=observations)
    factors: dict[str, set[Any]] = {}
    for o in observations:
        if o.kind is ObservationKind.FACTOR and o.semantic_type is not None:
            factors.setdefault(o.semantic_type, set()).add(o.value)
    costs = {
        o.name: o.value
        for o in observations
        if o.kind is ObservationKind.METRIC and o.name in PRICING_FILES
    }
    unpriced = sorted(
        {o.tags.get("deriver") for o in observations if o.name == "token_cost_unknown_pricing"}
    )
    return {
        "factors": factors,
        "tokens": {
            s: query.values(s)
            for s in ("llm.tokens.input", "llm.tokens.output", "llm.tokens.cache_read")
        },
        "requests": query.values("llm.request.count"),
        "costs": costs,
        "unpriced": unpriced,
    }


@pytest.mark.parametrize("app", ["client", "pydantic_ai", "agents"])
def test_every_combination_records_one_identity_and_the_same_cost(
    tmp_path: Path, task_module: str, app: str
) -> None:
    calls = REQUESTS[app]
    reports = {layers: _report(tmp_path, task_module, app, layers) for layers in _combinations(app)}
    for layers, report in reports.items():
        assert report["factors"]["llm.provider"] == {"openai"}, layers
        assert report["factors"]["server.address"] == {"llm.test"}, layers
        assert report["tokens"] == {
            "llm.tokens.input": [1000 * calls],
            "llm.tokens.output": [200 * calls],
            "llm.tokens.cache_read": [800 * calls],
        }, layers
        assert report["requests"] == [calls], layers
        assert report["costs"] == {
            "cost_by_name": pytest.approx(calls * REQUEST_COST),
            "cost_by_host": pytest.approx(calls * REQUEST_COST),
        }, layers
        assert report["unpriced"] == ["cost_elsewhere"], layers
        assert all(len(values) == 1 for values in report["factors"].values()), layers
    reference = reports[tuple(sorted(SEES[app]))]
    for layers, report in reports.items():
        if layers == ("openai_agents",):
            # the Agents SDK keeps no answering model for a chat completion (its span
            # holds the model asked for): the only fact this layer alone cannot give
            assert "llm.model.response" not in report["factors"]
            report["factors"]["llm.model.response"] = {"gpt-test-2026-01-01"}
        assert report == reference, layers
