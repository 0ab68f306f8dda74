"""A Pydantic AI stream whose provider sent no usage: unmeasured, never zero, in every
combination of the Pydantic AI and OpenAI layers.

Pydantic AI marks such a request ``unmeasured_requests`` and leaves its token counts at
zero; the real agent streams from the real OpenAI client over a ``MockTransport`` that
ends the stream without a usage chunk.
"""

from __future__ import annotations

import pytest
from pai_support import ScriptedAPI, lookup_agent, recording, text_turn, tool_turn

from autobench.abp import USAGE_UNMEASURED, InstrumentationManager
from autobench.instrument import httpx as instrument_httpx
from autobench.instrument import openai as instrument_openai
from autobench.instrument.pydantic_ai import create
from autobench.records import native_observations

FACTORIES = {
    "pydantic_ai": create,
    "openai": instrument_openai.create,
    "httpx": instrument_httpx.create,
}
COMBINATIONS = [("pydantic_ai",), ("openai",), ("pydantic_ai", "openai", "httpx")]
LLM_OPERATIONS = {"pydantic_ai": "pydantic_ai", "openai": "openai"}


@pytest.mark.parametrize("layers", COMBINATIONS, ids="+".join)
async def test_a_stream_without_usage_is_unmeasured(layers: tuple[str, ...]) -> None:
    api = ScriptedAPI(tool_turn("lookup", query="lamp"), text_turn("done"), send_usage=False)
    with InstrumentationManager() as manager:
        for name in layers:
            manager.install(FACTORIES[name](None))
        with recording() as collector:
            async with lookup_agent(api).run_stream("find it") as streamed:
                assert await streamed.get_output() == "done"
                usage = streamed.usage
    assert usage.unmeasured_requests == 2 and usage.input_tokens == 0  # the SDK's zeros
    trace = collector.materialize()
    observed = {item.semantic_type: item.value for item in native_observations(trace)}
    assert not {key for key in observed if key.startswith("llm.tokens.")}
    llm = [span for span in trace.spans if span.kind == "llm"]
    assert llm and all(span.usage.get("requests") == 1 for span in llm)
    assert all("input_tokens" not in span.usage for span in trace.spans)
    flagged = sorted(
        next(span.scope for span in llm if span.id == diagnostic.span)
        for diagnostic in trace.diagnostics
        if diagnostic.code == USAGE_UNMEASURED
    )
    expected = sorted(LLM_OPERATIONS[name] for name in layers if name in LLM_OPERATIONS)
    assert flagged == sorted(expected * 2)  # each layer's span of each of the two requests
