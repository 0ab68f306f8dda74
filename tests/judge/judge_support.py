"""What the judge tests' local OpenAI-compatible servers answer: a chat completion whose one
tool call carries the judge's structured reply (Pydantic AI asks for structured output as a
tool call), with the usage the server reports."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any


def tool_call_reply(model: str, tool: str, arguments: dict[str, Any], prompt_tokens: int) -> bytes:
    """The JSON body of a ``/chat/completions`` reply calling ``tool`` with ``arguments``;
    15 completion tokens."""
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": tool, "arguments": json.dumps(arguments)},
    }
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    reply = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": 15,
            "total_tokens": prompt_tokens + 15,
        },
    }
    return json.dumps(reply).encode()


def send_json(handler: BaseHTTPRequestHandler, data: bytes) -> None:
    """Answer the handler's request with ``data`` as a 200 JSON response."""
    handler.send_response(200)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
