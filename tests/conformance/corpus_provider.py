"""An offline OpenAI server for the conformance corpus, with a ledger.

:class:`LedgerProvider` answers ``POST /chat/completions`` behind an ``httpx2.MockTransport``
(the transport of the OpenAI SDK 3.x): plain JSON, or a ``text/event-stream`` when the request
says ``stream: true``, with a usage chunk only when it asked for one
(``stream_options.include_usage``), as OpenAI and compatible servers do. It answers
``POST /responses`` (the Responses API, the OpenAI Agents SDK's default) too: a ``Response``
object, or streamed as ``response.created`` then ``response.completed``, which always carries
the usage. What it answers is
decided by the application's ``responder`` from the request body (which agent asked, and how
far its conversation went), so concurrent requests (an Agents input guardrail beside the main
agent) get the right reply whatever their order.

Usage depends only on the order requests arrive in (request ``n`` of a run gets
:func:`usage_for` ``(n)``), so the totals of a run do not depend on that order. ``ledger``
holds one entry per request: the usage served, or ``None`` when the response carried none.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx2
import openai

MODEL_SUFFIX = "-2026-01-01"
"""Appended to the requested model in every answer: providers answer with a dated version."""


@dataclass(frozen=True)
class Text:
    """An assistant message with ``content``."""

    content: str


@dataclass(frozen=True)
class Tools:
    """Assistant tool calls: ``(name, arguments)`` pairs, called in one turn."""

    calls: tuple[tuple[str, dict[str, Any]], ...]


Turn = Text | Tools
Responder = Callable[[dict[str, Any]], Turn]


def usage_for(number: int) -> dict[str, Any]:
    """The chat-completions usage block of request ``number`` (1-based): distinct counts per
    request, a cached prefix on every second one, reasoning on every request."""
    prompt = 300 + 41 * number
    completion = 20 + 7 * number
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": 128 if number % 2 == 0 else 0},
        "completion_tokens_details": {"reasoning_tokens": 3 * number},
    }


def counted(block: dict[str, Any]) -> dict[str, int]:
    """A usage block in Autobench's convention: input and output include cache and reasoning."""
    return {
        "input": block["prompt_tokens"],
        "output": block["completion_tokens"],
        "cache_read": block["prompt_tokens_details"]["cached_tokens"],
        "reasoning": block["completion_tokens_details"]["reasoning_tokens"],
    }


def _message(turn: Turn, number: int) -> tuple[dict[str, Any], str]:
    if isinstance(turn, Text):
        return {"role": "assistant", "content": turn.content}, "stop"
    calls = [
        {
            "id": f"call_{number}_{index}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        for index, (name, arguments) in enumerate(turn.calls)
    ]
    return {"role": "assistant", "content": None, "tool_calls": calls}, "tool_calls"


def _output_items(turn: Turn, number: int) -> list[dict[str, Any]]:
    """The Responses API output items of ``turn``."""
    if isinstance(turn, Text):
        content = [{"type": "output_text", "text": turn.content, "annotations": []}]
        message = {"type": "message", "id": f"msg_{number}", "role": "assistant"}
        return [{**message, "status": "completed", "content": content}]
    return [
        {
            "type": "function_call",
            "id": f"fc_{number}_{index}",
            "call_id": f"call_{number}_{index}",
            "name": name,
            "arguments": json.dumps(arguments),
            "status": "completed",
        }
        for index, (name, arguments) in enumerate(turn.calls)
    ]


@dataclass
class LedgerProvider:
    """The server: ``responder`` picks each reply; ``ledger`` is what it served."""

    responder: Responder
    ledger: list[dict[str, int] | None] = field(default_factory=list)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        number = len(self.ledger) + 1
        turn = self.responder(body)
        if request.url.path.endswith("/responses"):
            return self._responses(body, number, turn)
        assert request.url.path.endswith("/chat/completions"), request.url.path
        message, finish = _message(turn, number)
        block = usage_for(number)
        head = {
            "id": f"chatcmpl-{number}",
            "created": 1,
            "model": body["model"] + MODEL_SUFFIX,
        }
        if body.get("stream") is not True:
            self.ledger.append(counted(block))
            reply = {
                **head,
                "object": "chat.completion",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": block,
            }
            return httpx2.Response(200, json=reply)
        wanted = (body.get("stream_options") or {}).get("include_usage") is True
        self.ledger.append(counted(block) if wanted else None)
        chunk = {**head, "object": "chat.completion.chunk"}
        delta: dict[str, Any] = {"role": "assistant"}
        if "tool_calls" in message:
            delta["tool_calls"] = [
                {**call, "index": index} for index, call in enumerate(message["tool_calls"])
            ]
        else:
            delta["content"] = message["content"]
        chunks = [
            {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
        ]
        if wanted:
            chunks.append({**chunk, "choices": [], "usage": block})
        frames = "".join(f"data: {json.dumps(item)}\n\n" for item in chunks)
        content = (frames + "data: [DONE]\n\n").encode()
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=content)

    def _responses(self, body: dict[str, Any], number: int, turn: Turn) -> httpx2.Response:
        block = usage_for(number)
        self.ledger.append(counted(block))
        done = {
            "id": f"resp_{number}",
            "object": "response",
            "created_at": 1,
            "model": body["model"] + MODEL_SUFFIX,
            "status": "completed",
            "output": _output_items(turn, number),
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": block["prompt_tokens"],
                "output_tokens": block["completion_tokens"],
                "total_tokens": block["total_tokens"],
                "input_tokens_details": {
                    "cached_tokens": block["prompt_tokens_details"]["cached_tokens"]
                },
                "output_tokens_details": {
                    "reasoning_tokens": block["completion_tokens_details"]["reasoning_tokens"]
                },
            },
        }
        if body.get("stream") is not True:
            return httpx2.Response(200, json=done)
        started = {**done, "status": "in_progress", "output": [], "usage": None}
        events = [
            {"type": "response.created", "sequence_number": 0, "response": started},
            {"type": "response.completed", "sequence_number": 1, "response": done},
        ]
        frames = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=frames)

    def async_client(self, base_url: str | None = None) -> openai.AsyncOpenAI:
        """A real ``AsyncOpenAI`` over this server (no key needed, no retries, no network)."""
        transport = httpx2.MockTransport(self.handle)
        return openai.AsyncOpenAI(
            api_key="sk-offline",
            base_url=base_url,
            max_retries=0,
            http_client=httpx2.AsyncClient(transport=transport),
        )

    def sync_client(self) -> openai.OpenAI:
        """A real ``OpenAI`` client over this server."""
        transport = httpx2.MockTransport(self.handle)
        return openai.OpenAI(
            api_key="sk-offline", max_retries=0, http_client=httpx2.Client(transport=transport)
        )


def conversation_step(body: dict[str, Any]) -> int:
    """How many assistant turns the request's conversation holds already (0 on the first)."""
    return sum(1 for item in body["messages"] if item.get("role") == "assistant")


def instructions(body: dict[str, Any]) -> str:
    """The system or developer messages of a request, joined."""
    parts = []
    for item in body["messages"]:
        if item.get("role") in ("system", "developer"):
            content = item["content"]
            parts.append(content if isinstance(content, str) else json.dumps(content))
    return "\n".join(parts)
