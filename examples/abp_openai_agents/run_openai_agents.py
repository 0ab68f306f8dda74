"""A real OpenAI Agents workflow, offline, recorded as an ABP trace by the native processor.

    uv run python examples/abp_openai_agents/run_openai_agents.py

The SDK's ``Runner`` runs an agent with a function tool; the tool opens a custom span
of its own (``agents.custom_span``). The model is an offline ``Model`` of this script
that answers from a script and traces like the SDK's models do (a ``generation`` span
with the model name and usage): no API key, no network. The OpenAI Agents
instrumentor is installed through an ``InstrumentationManager``; the workflow itself
contains no Autobench code. The script prints the answer and the span tree.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agents import (
    Agent,
    ModelResponse,
    Runner,
    Usage,
    custom_span,
    function_tool,
    set_trace_processors,
)
from agents.models.interface import Model
from agents.tracing import generation_span
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from autobench.abp import (
    InstrumentationManager,
    SpanRecord,
    Trace,
    TraceCollector,
    bind_collector,
    start_span,
)
from autobench.instrument.openai_agents import create as openai_agents_instrumentor

PRICES = {"apple": 3, "pear": 4}


@function_tool
def price_of(fruit: str, count: int) -> int:
    """The price of ``count`` pieces of ``fruit``, in cents."""
    with custom_span("price_lookup", {"fruit": fruit}):
        return PRICES[fruit] * count


class OfflineModel(Model):
    """Asks for the tool on the first call, answers with its result on the second."""

    def __init__(self) -> None:
        self.calls = 0

    async def get_response(self, *args: Any, tracing: Any, **kwargs: Any) -> ModelResponse:
        self.calls += 1
        with generation_span(model="offline-mini", disabled=tracing.is_disabled()) as span:
            if self.calls == 1:
                arguments = json.dumps({"fruit": "apple", "count": 5})
                output: list[Any] = [
                    ResponseFunctionToolCall(
                        id="fc_1",
                        call_id="call_1",
                        type="function_call",
                        name="price_of",
                        arguments=arguments,
                    )
                ]
            else:
                text = ResponseOutputText(type="output_text", text="15 cents.", annotations=[])
                output = [
                    ResponseOutputMessage(
                        id="msg_1",
                        type="message",
                        role="assistant",
                        status="completed",
                        content=[text],
                    )
                ]
            span.span_data.usage = {"input_tokens": 120, "output_tokens": 8}
            usage = Usage(requests=1, input_tokens=120, output_tokens=8, total_tokens=128)
            return ModelResponse(output=output, usage=usage, response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("this offline model does not stream")


def _print_tree(trace: Trace, span: SpanRecord, depth: int = 0) -> None:
    indent = "  " * depth
    took = "partial" if span.duration is None else f"{span.duration * 1000:.2f} ms"
    print(f"{indent}{span.operation} [{span.kind}, {span.scope}] {took}")
    for key in ("agent.name", "tool.name", "llm.model.requested", "openai_agents.data"):
        if key in span.attributes:
            print(f"{indent}  {key}: {span.attributes[key]}")
    if span.usage:
        print(f"{indent}  usage: {span.usage}")
    for child in trace.children(span.id):
        _print_tree(trace, child, depth + 1)


async def main() -> None:
    # Offline: no exporter uploading traces to OpenAI (it would, with a key in the env).
    set_trace_processors([])
    agent = Agent(
        name="grocer", instructions="Price fruit.", tools=[price_of], model=OfflineModel()
    )
    collector = TraceCollector(name="openai-agents")
    with InstrumentationManager() as manager:
        manager.install(openai_agents_instrumentor(None))
        with bind_collector(collector), start_span("benchmark.run", kind="task"):
            result = await Runner.run(agent, "What do five apples cost?")
    print(f"answer: {result.final_output}\n")
    trace = collector.materialize()
    for root in trace.root_spans:
        _print_tree(trace, root)


if __name__ == "__main__":
    asyncio.run(main())
