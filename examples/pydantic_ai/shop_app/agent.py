"""The shopping assistant: a Pydantic AI agent with a catalogue tool and structured output.

Nothing here knows about Autobench. The instructions are a tracked prompt
(``autobench.track``) so every run records which version of them it used.
"""

from __future__ import annotations

from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.models import Model

from autobench import track

INSTRUCTIONS = track.prompt(
    name="shop_instructions",
    text=(
        "You recommend one product from the catalogue. Search the catalogue with the "
        "customer's need, then answer with the product's SKU and a one-line reason."
    ),
)

CATALOGUE = {
    "lamp": ("SKU-LAMP-7", "Desk lamp, warm light, 7 W"),
    "chair": ("SKU-CHAIR-2", "Ergonomic chair with lumbar support"),
    "kettle": ("SKU-KETTLE-1", "1.7 l electric kettle"),
}


class Recommendation(BaseModel):
    """What the assistant answers: one SKU and why."""

    sku: str
    reason: str


def build_agent(model: Model) -> Agent[None, Recommendation]:
    """The assistant on ``model``: one tool, ``search_catalog``, and a structured answer."""
    agent: Agent[None, Recommendation] = Agent(
        model, name="shop", instructions=str(INSTRUCTIONS), output_type=Recommendation
    )

    @agent.tool_plain
    def search_catalog(query: str) -> str:
        """Find products matching ``query``: ``"SKU: description"`` lines, or ``none``."""
        found = [f"{sku}: {text}" for key, (sku, text) in CATALOGUE.items() if key in query]
        return "\n".join(found) or "none"

    return agent


async def recommend(
    agent: Agent[None, Recommendation], need: str, *, stream: bool
) -> Recommendation:
    """Ask ``agent`` for a product for ``need`` (streamed or not: the same answer)."""
    prompt = f"I need a {need}."
    if stream:
        async with agent.run_stream(prompt) as streamed:
            return await streamed.get_output()
    return (await agent.run(prompt)).output
