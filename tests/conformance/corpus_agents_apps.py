"""Two applications in the style of the OpenAI Agents SDK's examples, on the SDK's own
``OpenAIChatCompletionsModel`` over a real ``AsyncOpenAI`` client whose transport is the
:class:`~corpus_provider.LedgerProvider`.

* ``triage``: an input guardrail that runs its own agent (the SDK's ``input_guardrails``
  example: ``Runner.run(guardrail_agent, input, context=ctx.context)``), a handoff from a
  triage agent to a language agent (``handoffs`` example) and a function tool there.
* ``streamed``: ``Runner.run_streamed`` of an agent with a function tool, its events read to
  the end; ``case.input["endpoint"]`` chooses OpenAI's ``base_url`` (the SDK asks for the
  stream's usage), another OpenAI-compatible server (it does not: the calls are unmeasured),
  or that server with ``ModelSettings(include_usage=True)``.
* ``responses``: the SDK's default model, ``OpenAIResponsesModel`` (the Responses API), with
  a function tool, run plainly or streamed (``case.input["streamed"]``): the SDK streams it
  through ``with_streaming_response`` and ``parse()``.
"""

from __future__ import annotations

import json
from typing import Any

from agents import (
    Agent,
    GuardrailFunctionOutput,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunContextWrapper,
    Runner,
    TResponseInputItem,
    function_tool,
    input_guardrail,
)
from corpus_provider import LedgerProvider, Text, Tools, Turn, instructions
from pydantic import BaseModel

COMPATIBLE_URL = "https://llm.internal/v1"


class HomeworkOutput(BaseModel):
    is_math_homework: bool
    reasoning: str


@function_tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"The weather in {city} is sunny."


def _answered(body: dict[str, Any]) -> bool:
    return any(item.get("role") == "tool" for item in body["messages"])


def _triage(body: dict[str, Any]) -> Turn:
    said = instructions(body)
    if "math homework" in said:
        verdict = {"is_math_homework": False, "reasoning": "A question about the weather."}
        return Text(json.dumps(verdict))
    if "Handoff to the appropriate agent" in said:
        return Tools((("transfer_to_spanish_agent", {}),))
    if "only speak Spanish" in said:
        if any("sunny" in str(item.get("content")) for item in body["messages"]):
            return Text("Hace sol en Madrid.")
        return Tools((("get_weather", {"city": "Madrid"}),))
    raise AssertionError(f"no agent of the app says {said!r}")


async def triage(ctx: Any, case: Any) -> dict[str, Any]:
    """Guardrail agent beside the triage agent, handoff, function tool: four requests."""
    provider = LedgerProvider(_triage)
    model = OpenAIChatCompletionsModel(model="gpt-5.2", openai_client=provider.async_client())
    guardrail_agent = Agent(
        name="Guardrail check",
        instructions="Check if the user is asking you to do their math homework.",
        output_type=HomeworkOutput,
        model=model,
    )

    @input_guardrail
    async def math_guardrail(
        context: RunContextWrapper[None], agent: Agent, input: str | list[TResponseInputItem]
    ) -> GuardrailFunctionOutput:
        result = await Runner.run(guardrail_agent, input, context=context.context)
        verdict = result.final_output_as(HomeworkOutput)
        return GuardrailFunctionOutput(
            output_info=verdict, tripwire_triggered=verdict.is_math_homework
        )

    spanish_agent = Agent(
        name="Spanish agent",
        instructions="You only speak Spanish.",
        tools=[get_weather],
        model=model,
    )
    english_agent = Agent(name="English agent", instructions="You only speak English.", model=model)
    triage_agent = Agent(
        name="Triage agent",
        instructions="Handoff to the appropriate agent based on the language of the request.",
        handoffs=[spanish_agent, english_agent],
        input_guardrails=[math_guardrail],
        model=model,
    )
    result = await Runner.run(triage_agent, "Hola, ¿qué tiempo hace en Madrid?")
    return {"output": result.final_output, "ledger": provider.ledger}


def _streamed(body: dict[str, Any]) -> Turn:
    if _answered(body):
        return Text("It is sunny in Paris.")
    return Tools((("get_weather", {"city": "Paris"}),))


async def streamed(ctx: Any, case: Any) -> dict[str, Any]:
    """A streamed run with a function tool: two requests, each a chat-completions stream."""
    provider = LedgerProvider(_streamed)
    endpoint = case.input["endpoint"]
    base_url = None if endpoint == "openai" else COMPATIBLE_URL
    model = OpenAIChatCompletionsModel(
        model="gpt-test", openai_client=provider.async_client(base_url)
    )
    settings = ModelSettings(include_usage=True if endpoint == "compatible_usage" else None)
    agent = Agent(
        name="Weather agent",
        instructions="Answer with the weather.",
        tools=[get_weather],
        model=model,
        model_settings=settings,
    )
    result = Runner.run_streamed(agent, "What is the weather in Paris?")
    async for _ in result.stream_events():
        pass
    return {"output": result.final_output, "ledger": provider.ledger}


def _responses(body: dict[str, Any]) -> Turn:
    items = body["input"] if isinstance(body["input"], list) else []
    if any(item.get("type") == "function_call_output" for item in items):
        return Text("It is sunny in Paris.")
    return Tools((("get_weather", {"city": "Paris"}),))


async def responses(ctx: Any, case: Any) -> dict[str, Any]:
    """The Responses API model with a function tool, two requests, plain or streamed."""
    provider = LedgerProvider(_responses)
    model = OpenAIResponsesModel(model="gpt-test", openai_client=provider.async_client())
    agent = Agent(
        name="Weather agent",
        instructions="Answer with the weather.",
        tools=[get_weather],
        model=model,
    )
    question = "What is the weather in Paris?"
    if case.input["streamed"]:
        streamed = Runner.run_streamed(agent, question)
        async for _ in streamed.stream_events():
            pass
        output = streamed.final_output
    else:
        output = (await Runner.run(agent, question)).final_output
    return {"output": output, "ledger": provider.ledger}
