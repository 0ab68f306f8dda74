"""Pydantic AI instrumentation budget: extra time per agent run, all native instrumentors on.

    uv run python tools/bench_pydantic_ai.py [--runs 200] [--repeat 7] [--block 20]

One agent run is a real Pydantic AI agent on the real ``OpenAIChatModel`` and
``openai.AsyncOpenAI`` client over ``httpx2.MockTransport``: two model requests
(the first calls the agent's one tool, the second answers) and one tool call, inside
one benchmark run (a bound ABP collector with its root span). Configurations: plain
(nothing installed) and every installed native instrumentor (Pydantic AI, OpenAI,
HTTPX and OpenAI Agents, which records nothing here but is installed as
``instrument_all`` would). They take turns in blocks of ``--block`` runs, installing
and uninstalling between blocks outside the timed runs, so a slow spell of the shared
machine hits both alike. Every run is timed (``time.perf_counter_ns``); a sample's
figure is its median run, ``extra`` the instrumented median minus the plain one of
the same sample, and the script prints min/median/max over ``--repeat`` samples.

Budget (issue: native instrumentation II): under 400 us extra per run. Figures are
printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import json
import statistics
import time
from contextlib import ExitStack
from typing import Any

import httpx2
import openai
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from autobench.abp import InstrumentationManager, TraceCollector, bind_collector, start_span

BUDGET_US = 400.0
INSTRUMENTORS = ("pydantic_ai", "openai", "httpx", "openai_agents")
USAGE = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}


def _completion(body: dict[str, Any]) -> dict[str, Any]:
    if not any(message["role"] == "tool" for message in body["messages"]):
        call = {"id": "c1", "type": "function"}
        call["function"] = {"name": "lookup", "arguments": json.dumps({"query": "lamp"})}
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish = "tool_calls"
    else:
        message, finish = {"role": "assistant", "content": "A desk lamp."}, "stop"
    return {
        "id": "r",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-bench-1",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": USAGE,
    }


def _handler(request: httpx2.Request) -> httpx2.Response:
    return httpx2.Response(200, json=_completion(json.loads(request.content)))


def _agent() -> Agent[None, str]:
    client = openai.AsyncOpenAI(
        api_key="k", http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(_handler))
    )
    model = OpenAIChatModel("gpt-bench", provider=OpenAIProvider(openai_client=client))
    agent: Agent[None, str] = Agent(model, name="bench")

    @agent.tool_plain
    def lookup(query: str) -> str:
        return f"found {query}"

    return agent


def _factories() -> list[Any]:
    found = []
    for name in INSTRUMENTORS:
        try:
            found.append(importlib.import_module(f"autobench.instrument.{name}").create)
        except (ImportError, AttributeError):
            print(f"  ({name} is not installed: left out)")
    return found


async def _block(agent: Agent[None, str], collector: TraceCollector, runs: int) -> list[int]:
    times = []
    with bind_collector(collector), start_span("bench.run", kind="task"):
        for _ in range(runs):
            started = time.perf_counter_ns()
            await agent.run("I need a lamp")
            times.append(time.perf_counter_ns() - started)
    return times


async def _sample(runs: int, block: int, factories: list[Any]) -> tuple[float, float]:
    """``(plain, instrumented)`` median microseconds per run of one sample."""
    agent = _agent()
    await agent.run("warm up")  # outside a run: imports, schemas and first-call work
    plain: list[int] = []
    instrumented: list[int] = []
    plain_trace, instrumented_trace = TraceCollector(), TraceCollector()
    gc.collect()
    while len(plain) < runs:
        plain += await _block(agent, plain_trace, block)
        with ExitStack() as stack:
            manager = stack.enter_context(InstrumentationManager())
            for create in factories:
                manager.install(create(None))
            instrumented += await _block(agent, instrumented_trace, block)
    assert any(span.scope == "pydantic_ai" for span in instrumented_trace.materialize().spans)
    return statistics.median(plain) / 1e3, statistics.median(instrumented) / 1e3


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=200, help="agent runs per configuration")
    parser.add_argument("--repeat", type=int, default=7, help="samples")
    parser.add_argument("--block", type=int, default=20, help="runs per turn")
    args = parser.parse_args()
    print("Pydantic AI agent run (2 model requests, 1 tool call) over MockTransport")
    factories = _factories()
    samples = [asyncio.run(_sample(args.runs, args.block, factories)) for _ in range(args.repeat)]
    plain = [p for p, _ in samples]
    instrumented = [i for _, i in samples]
    extra = [i - p for p, i in samples]
    print(f"  {args.repeat} samples of {args.runs} runs each; us per run (median run of a sample)")
    print(f"    {'':<28} {'min':>9} {'median':>9} {'max':>9}")
    for label, values in (
        ("plain", plain),
        (f"{len(factories)} instrumentors", instrumented),
        ("extra (paired)", extra),
    ):
        print(
            f"    {label:<28} {min(values):9.1f} {statistics.median(values):9.1f} "
            f"{max(values):9.1f}"
        )
    middle = statistics.median(extra)
    print(
        f"  extra {middle:.1f} us per run ({middle / statistics.median(plain):.1%} of the plain "
        f"run); budget {BUDGET_US:.0f} us: {middle / BUDGET_US:.0%} of it"
    )


if __name__ == "__main__":
    main()
