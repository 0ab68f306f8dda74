"""A real OpenAI streaming chat completion, offline, recorded as an ABP trace.

    uv run python examples/abp_openai/run_openai_streaming.py

The official ``openai.OpenAI`` client parses a server-sent-event body that an
``httpx2.MockTransport`` serves: no API key, no network. The OpenAI instrumentor
(and the HTTPX one, when it is installed) is installed through an
``InstrumentationManager``; the call itself contains no Autobench code. The
script prints the answer and the span tree: the client span with its
first-chunk time, end reason and token usage, and the HTTP span under it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import openai

from autobench.abp import (
    InstrumentationManager,
    SpanRecord,
    Trace,
    TraceCollector,
    bind_collector,
    start_span,
)
from autobench.instrument.openai import create as openai_instrumentor

try:
    from autobench.instrument.httpx import create as httpx_instrumentor
except ImportError:  # the transport layer is optional
    httpx_instrumentor = None

MODEL = "gpt-demo"
WORDS = ("Streaming ", "works ", "offline.")
USAGE = {
    "prompt_tokens": 1000,
    "completion_tokens": 200,
    "total_tokens": 1200,
    "prompt_tokens_details": {"cached_tokens": 800},
    "completion_tokens_details": {"reasoning_tokens": 50},
}


def _frame(**fields: Any) -> bytes:
    chunk = {
        "id": "chatcmpl-demo",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": f"{MODEL}-2026-01-01",
        "choices": [],
        **fields,
    }
    return f"data: {json.dumps(chunk)}\n\n".encode()


def _events() -> Iterator[bytes]:
    """What the API streams: one chunk per word, the finish, the usage, ``[DONE]``."""
    for word in WORDS:
        yield _frame(choices=[{"index": 0, "delta": {"content": word}, "finish_reason": None}])
    yield _frame(choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}])
    yield _frame(usage=USAGE)
    yield b"data: [DONE]\n\n"


def _api(request: httpx2.Request) -> httpx2.Response:
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=_events())


def _print_tree(trace: Trace, span: SpanRecord, depth: int = 0) -> None:
    indent = "  " * depth
    took = "partial" if span.duration is None else f"{span.duration * 1000:.2f} ms"
    print(f"{indent}{span.operation} [{span.kind}, {span.scope}] {took}")
    first = span.attributes.get("stream.first_item_seconds")
    if first is not None:
        print(f"{indent}  first chunk after {first * 1000:.2f} ms")
    if "end_reason" in span.attributes:
        print(f"{indent}  end reason: {span.attributes['end_reason']}")
    if "llm.model.response" in span.attributes:
        print(f"{indent}  model: {span.attributes['llm.model.response']}")
    if span.usage:
        print(f"{indent}  usage: {span.usage}")
    for child in trace.children(span.id):
        _print_tree(trace, child, depth + 1)


def main() -> None:
    client = openai.OpenAI(
        api_key="offline", http_client=httpx2.Client(transport=httpx2.MockTransport(_api))
    )
    collector = TraceCollector(name="openai-streaming")
    with InstrumentationManager() as manager:
        manager.install(openai_instrumentor(None))
        if httpx_instrumentor is not None:
            manager.install(httpx_instrumentor(None))
        with bind_collector(collector), start_span("benchmark.run", kind="task"):
            stream = client.chat.completions.create(
                model=MODEL,
                messages=[{"role": "user", "content": "Does streaming work offline?"}],
                stream=True,
                stream_options={"include_usage": True},
            )
            answer = "".join(
                chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices
            )
    print(f"answer: {answer}\n")
    trace = collector.materialize()
    for root in trace.root_spans:
        _print_tree(trace, root)


if __name__ == "__main__":
    main()
