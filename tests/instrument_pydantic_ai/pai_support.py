"""A scripted OpenAI-compatible API behind ``httpx2.MockTransport``, and trace helpers.

The tests drive real Pydantic AI agents on the real ``OpenAIChatModel`` and the real
``openai.AsyncOpenAI`` client; only the transport is replaced. :class:`ScriptedAPI`
answers ``/chat/completions`` with the next scripted turn (a tool call or a final
answer), as JSON or as a ``text/event-stream`` body when the request streams, with
the accounting usage of the native instrumentation issue on every turn.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx2
import openai
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from autobench.abp import SpanRecord, Trace, TraceCollector, bind_collector, start_span

MODEL = "gpt-test"
MODEL_VERSION = "gpt-test-2026-01-01"

USAGE = {
    "prompt_tokens": 1000,
    "completion_tokens": 200,
    "total_tokens": 1200,
    "prompt_tokens_details": {"cached_tokens": 800},
    "completion_tokens_details": {"reasoning_tokens": 50},
}
"""Every turn's usage: 1,000 prompt tokens (800 cached), 200 completion (50 reasoning)."""

REQUEST_USAGE = {
    "requests": 1,
    "input_tokens": 1000,
    "output_tokens": 200,
    "cache_read_tokens": 800,
    "reasoning_tokens": 50,
}
"""What a span of one such request carries."""


@dataclass
class Turn:
    """One scripted model answer: tool calls ``(name, arguments)`` or a text ``content``."""

    content: str | None = None
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def tool_turn(name: str, **arguments: Any) -> Turn:
    return Turn(tool_calls=[(name, arguments)])


def text_turn(content: str) -> Turn:
    return Turn(content=content)


class ScriptedAPI:
    """Answers each chat completion request with the next :class:`Turn` (cycling)."""

    def __init__(self, *turns: Turn, send_usage: bool = True) -> None:
        self.turns = list(turns)
        self.send_usage = send_usage
        """``False``: streams end without a usage chunk, as a provider that sends none."""
        self.requests: list[dict[str, Any]] = []

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        turn = self.turns[len(self.requests) % len(self.turns)]
        self.requests.append(body)
        if body.get("stream"):
            return httpx2.Response(
                200,
                content=_sse(_chunks(turn)[: None if self.send_usage else -1]),
                headers={"content-type": "text/event-stream"},
            )
        return httpx2.Response(200, json=_completion(turn))

    def client(self) -> openai.AsyncOpenAI:
        transport = httpx2.MockTransport(self.handler)
        return openai.AsyncOpenAI(
            api_key="sk-test-key-0123456789abcdef",
            http_client=httpx2.AsyncClient(transport=transport),
        )

    def model(self) -> OpenAIChatModel:
        return OpenAIChatModel(MODEL, provider=OpenAIProvider(openai_client=self.client()))


def lookup_agent(api: ScriptedAPI, **kwargs: Any) -> Agent[None, str]:
    """An agent with one tool, ``lookup(query)``, on ``api``'s model."""
    agent: Agent[None, str] = Agent(api.model(), name="shop", **kwargs)

    @agent.tool_plain
    def lookup(query: str) -> str:
        """Find a product."""
        return f"found {query}"

    return agent


def _message(turn: Turn) -> dict[str, Any]:
    if turn.tool_calls:
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call-{index}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
                for index, (name, arguments) in enumerate(turn.tool_calls)
            ],
        }
    return {"role": "assistant", "content": turn.content}


def _completion(turn: Turn) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": MODEL_VERSION,
        "choices": [
            {
                "index": 0,
                "message": _message(turn),
                "finish_reason": "tool_calls" if turn.tool_calls else "stop",
            }
        ],
        "usage": USAGE,
    }


def _chunks(turn: Turn) -> list[dict[str, Any]]:
    base = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1}
    base["model"] = MODEL_VERSION
    if turn.tool_calls:
        name, arguments = turn.tool_calls[0]
        delta: dict[str, Any] = {
            "role": "assistant",
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call-0",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
            ],
        }
        pieces = [delta]
        finish = "tool_calls"
    else:
        text = turn.content or ""
        half = len(text) // 2
        pieces = [{"role": "assistant", "content": text[:half]}, {"content": text[half:]}]
        finish = "stop"
    chunks = [
        {**base, "choices": [{"index": 0, "delta": piece, "finish_reason": None}]}
        for piece in pieces
    ]
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    chunks.append({**base, "choices": [], "usage": USAGE})
    return chunks


def _sse(chunks: list[dict[str, Any]]) -> bytes:
    events = [b"data: " + json.dumps(chunk).encode() + b"\n\n" for chunk in chunks]
    return b"".join(events) + b"data: [DONE]\n\n"


@contextmanager
def recording() -> Iterator[TraceCollector]:
    """A real ABP run: a bound collector with a ``task`` root span open."""
    collector = TraceCollector()
    with bind_collector(collector), start_span("task", kind="task"):
        yield collector


def tree(trace: Trace) -> list[tuple[int, str, str]]:
    """``(depth, kind, operation)`` of every span, in start order."""
    by_id = {span.id: span for span in trace.spans}

    def depth(span: SpanRecord) -> int:
        level, parent = 0, span.parent
        while parent is not None:
            level, parent = level + 1, by_id[parent].parent
        return level

    return [(depth(span), span.kind, span.operation) for span in trace.spans]


def spans_of(trace: Trace, kind: str) -> list[SpanRecord]:
    return [span for span in trace.spans if span.kind == kind]


def parent_of(trace: Trace, span: SpanRecord) -> SpanRecord:
    return next(candidate for candidate in trace.spans if candidate.id == span.parent)
