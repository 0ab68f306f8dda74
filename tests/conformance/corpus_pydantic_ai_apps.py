"""Pydantic AI's published example agents (``pydantic-ai-examples``), run as they are.

Each task imports the example module unchanged and runs its agent the way the example's own
``main`` does, with one substitution Pydantic AI documents for tests: ``Agent.override(model=)``
puts an ``OpenAIChatModel`` for the example's model name on a real ``AsyncOpenAI`` client
whose transport is the :class:`~corpus_provider.LedgerProvider`. The examples that call
``logfire.configure()`` and ``logfire.instrument_pydantic_ai()`` at import do so here too
(Logfire sends nothing without a token). Every task returns its output and the ledger.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import httpx
from corpus_provider import LedgerProvider, Text, Tools, Turn, conversation_step
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider


def _model(name: str, provider: LedgerProvider) -> OpenAIChatModel:
    return OpenAIChatModel(name, provider=OpenAIProvider(openai_client=provider.async_client()))


def _bank(body: dict[str, Any]) -> Turn:
    if conversation_step(body) == 0:
        return Tools((("customer_balance", {}),))
    advice = {"support_advice": "Hello John, your balance is $123.45.", "block_card": False}
    return Tools((("final_result", {**advice, "risk": 1}),))


async def bank_support(ctx: Any, case: Any) -> dict[str, Any]:
    """``bank_support``: a tool reading SQLite, dynamic instructions, a structured output."""
    from pydantic_ai_examples import bank_support as app

    provider = LedgerProvider(_bank)
    with sqlite3.connect(":memory:") as con:
        # the example's __main__ block: the database, and the module-level cursor its
        # DatabaseConn methods read
        cur = con.cursor()
        cur.execute("CREATE TABLE customers(id, name, balance)")
        cur.execute("INSERT INTO customers VALUES (123, 'John', 123.45)")
        con.commit()
        app.cur = cur  # type: ignore[attr-defined]
        deps = app.SupportDependencies(customer_id=123, db=app.DatabaseConn(sqlite_conn=con))
        with app.support_agent.override(model=_model("gpt-5.2", provider)):
            result = await app.support_agent.run("What is my balance?", deps=deps)
    return {"output": result.output.model_dump(), "ledger": provider.ledger}


def _weather(body: dict[str, Any]) -> Turn:
    step = conversation_step(body)
    if step == 0:
        places = ("London", "Wiltshire")
        return Tools(tuple(("get_lat_lng", {"location_description": p}) for p in places))
    if step == 1:
        return Tools(
            (
                ("get_weather", {"lat": 51.5, "lng": -0.12}),
                ("get_weather", {"lat": 51.3, "lng": -2.0}),
            )
        )
    return Text("It is 21 °C and sunny in London and in Wiltshire.")


def _demo_endpoints(request: httpx.Request) -> httpx.Response:
    """The example's demo server (``demo-endpoints.pydantic.workers.dev``), offline."""
    if request.url.path == "/latlng":
        return httpx.Response(200, json={"lat": 51.5, "lng": -0.12})
    if request.url.path == "/number":
        return httpx.Response(200, text="21")
    return httpx.Response(200, text="Sunny")


async def weather_agent(ctx: Any, case: Any) -> dict[str, Any]:
    """``weather_agent``: parallel tool calls over three turns, tools that call HTTP APIs
    through an ``httpx.AsyncClient``, Logfire configured and Pydantic AI instrumented by it."""
    from pydantic_ai_examples import weather_agent as app

    provider = LedgerProvider(_weather)
    async with httpx.AsyncClient(transport=httpx.MockTransport(_demo_endpoints)) as client:
        deps = app.Deps(client=client)
        with app.weather_agent.override(model=_model("gpt-5-mini", provider)):
            result = await app.weather_agent.run(
                "What is the weather like in London and in Wiltshire?", deps=deps
            )
    return {"output": result.output, "ledger": provider.ledger}


WHALES = [
    {"name": "Blue whale", "length": 30.0, "weight": 150000.0, "ocean": "Pacific"},
    {"name": "Humpback whale", "length": 16.0, "ocean": "Atlantic"},
]


def _whales(body: dict[str, Any]) -> Turn:
    return Tools((("final_result", {"response": WHALES}),))


async def stream_whales(ctx: Any, case: Any) -> dict[str, Any]:
    """``stream_whales``: a structured output streamed (``run_stream``, ``stream_output``)."""
    from pydantic_ai_examples import stream_whales as app

    provider = LedgerProvider(_whales)
    seen = 0
    with app.agent.override(model=_model("gpt-5.2", provider)):
        async with app.agent.run_stream("Generate me details of 5 species of Whale.") as result:
            async for whales in result.stream_output(debounce_by=0.01):
                seen = len(whales)
    return {"output": json.loads(json.dumps(seen)), "ledger": provider.ledger}
