"""The benchmark task: ask the shopping assistant for one product.

No ``ctx.span()`` and no ``ctx.metric()``: ``instrumentation: {all: {}}`` in
``autobench.yaml`` installs the Pydantic AI, OpenAI and HTTPX instrumentors, which record
the agent, its model requests, the tool call and the output validation, with the client
and HTTP spans beneath each request, model identity, token usage and latency. The task
only binds the version of the tracked instructions it ran with.
"""

from __future__ import annotations

import httpx2
import openai
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from shop_app.agent import CATALOGUE, INSTRUCTIONS, build_agent, recommend
from shop_app.offline_api import transport


def offline_model(name: str) -> OpenAIChatModel:
    """The OpenAI-compatible model ``name`` served by the offline API (no key, no network)."""
    client = openai.AsyncOpenAI(
        api_key="offline-demo-key",
        base_url="https://api.acme.example/v1",
        http_client=httpx2.AsyncClient(transport=transport()),
    )
    return OpenAIChatModel(name, provider=OpenAIProvider(openai_client=client))


async def run(ctx, case):
    ctx.attach_tracked_asset(INSTRUCTIONS)
    agent = build_agent(offline_model(ctx.factor("model")))
    answer = await recommend(agent, case.input["need"], stream=ctx.factor("stream"))
    expected_sku = CATALOGUE[case.expected["product"]][0]
    return {"sku": answer.sku, "reason": answer.reason, "correct": answer.sku == expected_sku}
