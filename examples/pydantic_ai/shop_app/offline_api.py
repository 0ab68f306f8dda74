"""An offline stand-in of an OpenAI-compatible chat completions API, for the real client.

``transport()`` returns an ``httpx2.MockTransport`` that plays the model's side of the
conversation deterministically: the first turn calls ``search_catalog`` with the
customer's need, the next answers through the structured-output tool with the SKU the
catalogue returned. For a need containing ``"quickly"`` the model's first answer
(when not streamed) misses a field, Pydantic AI asks it again (a validation retry), and the second answer
is complete. Streamed requests get a ``text/event-stream`` body. Usage: the long
instructions are served from the prompt cache; the large model spends tokens reasoning.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx2

MODELS = {
    # requested model: (answered as, reasoning tokens per turn)
    "acme-mini": ("acme-mini-2026-01-15", 0),
    "acme-large": ("acme-large-2026-02-01", 30),
}
CACHED_PROMPT = 256
"""Prompt tokens served from the cache on every turn: the instructions and tool schemas."""


def _turn(body: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The assistant message of this turn and its finish reason."""
    messages = body["messages"]
    need = next(m["content"] for m in messages if m["role"] == "user")
    tools = [tool["function"]["name"] for tool in body.get("tools", [])]
    output_tool = next(name for name in tools if name != "search_catalog")
    results = [m["content"] for m in messages if m["role"] == "tool"]
    if not results:
        query = re.sub(r"^I need an? |\.$", "", need)
        call = ("search_catalog", {"query": query.replace("quickly ", "")})
    else:
        sku = re.search(r"SKU-[A-Z]+-\d+", results[0])
        answer: dict[str, Any] = {"sku": sku.group(0) if sku else "none"}
        retried = any("validation" in str(m.get("content", "")).lower() for m in messages)
        # run_stream() cannot retry a failed validation: the incomplete answer is only
        # given to requests that do not stream
        if "quickly" not in need or retried or body.get("stream") or len(results) > 1:
            answer["reason"] = "It matches what you asked for."
        call = (output_tool, answer)
    name, arguments = call
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call-{len(messages)}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }
    return message, "tool_calls"


def _usage(body: dict[str, Any], reasoning: int) -> dict[str, Any]:
    prompt = CACHED_PROMPT + 12 * len(body["messages"])
    return {
        "prompt_tokens": prompt,
        "completion_tokens": 20 + reasoning,
        "total_tokens": prompt + 20 + reasoning,
        "prompt_tokens_details": {"cached_tokens": CACHED_PROMPT},
        "completion_tokens_details": {"reasoning_tokens": reasoning},
    }


def _handler(request: httpx2.Request) -> httpx2.Response:
    body = json.loads(request.content)
    answered, reasoning = MODELS[body["model"]]
    message, finish = _turn(body)
    usage = _usage(body, reasoning)
    base = {"id": "chatcmpl-shop", "created": 1_767_225_600, "model": answered}
    if not body.get("stream"):
        completion = {
            **base,
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage,
        }
        return httpx2.Response(200, json=completion)
    call = message["tool_calls"][0]
    delta = {"role": "assistant", "tool_calls": [{"index": 0, **call}]}
    chunks = [
        {
            **base,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
        },
        {
            **base,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
        },
        {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage},
    ]
    events = b"".join(b"data: " + json.dumps(chunk).encode() + b"\n\n" for chunk in chunks)
    return httpx2.Response(
        200, content=events + b"data: [DONE]\n\n", headers={"content-type": "text/event-stream"}
    )


def transport() -> httpx2.MockTransport:
    """The offline API as a transport for ``httpx2.AsyncClient``."""
    return httpx2.MockTransport(_handler)
