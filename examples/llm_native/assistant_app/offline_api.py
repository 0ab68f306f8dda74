"""An offline stand-in of the OpenAI chat completions API, served to the real client.

``transport()`` returns an ``httpx2.MockTransport`` that answers ``POST
/v1/chat/completions`` the way the API does: a JSON completion with the model that
answered (a dated name of the requested one) and its usage, where part of the prompt
was served from the prompt cache (the long system prompt is the same on every call)
and part of the completion was spent reasoning. Answers are looked up in a small
knowledge base, deterministically, so the benchmark needs no key and no network.
"""

from __future__ import annotations

import json

import httpx2

KNOWLEDGE = {
    # a word of the question: the answer
    "refund": "Refunds are paid within 14 days under the refund policy.",
    "ship": "Orders ship in 2 business days under the shipping policy.",
    "warranty": "Devices carry a 2-year warranty under the warranty policy.",
}
MODELS = {
    # requested model: (answered as, words of reasoning per answer)
    "acme-mini": ("acme-mini-2026-01-15", 0),
    "acme-large": ("acme-large-2026-02-01", 40),
}
CACHED_PROMPT = 512
"""Prompt tokens served from the cache: the shared system prompt."""


def _reply(model: str, question: str) -> dict[str, object]:
    answered, reasoning = MODELS[model]
    topic = next((key for key in KNOWLEDGE if key in question.lower()), None)
    text = KNOWLEDGE[topic] if topic else "I could not find a policy for that."
    if model == "acme-mini" and topic == "warranty":
        text = "Devices carry a warranty."  # the small model drops the policy name here
    prompt_tokens = CACHED_PROMPT + 4 * len(question.split())
    answer_tokens = 2 * len(text.split())
    return {
        "id": f"chatcmpl-{abs(hash((model, question))) % 10**8}",
        "object": "chat.completion",
        "created": 1_767_225_600,
        "model": answered,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": answer_tokens + reasoning,
            "total_tokens": prompt_tokens + answer_tokens + reasoning,
            "prompt_tokens_details": {"cached_tokens": CACHED_PROMPT},
            "completion_tokens_details": {"reasoning_tokens": reasoning},
        },
    }


def _handle(request: httpx2.Request) -> httpx2.Response:
    if request.method != "POST" or not request.url.path.endswith("/chat/completions"):
        return httpx2.Response(404, json={"error": {"message": "not found"}})
    body = json.loads(request.content)
    question = body["messages"][-1]["content"]
    return httpx2.Response(200, json=_reply(body["model"], question))


def transport() -> httpx2.MockTransport:
    """The offline API as an HTTP transport for ``httpx2.Client``."""
    return httpx2.MockTransport(_handle)
