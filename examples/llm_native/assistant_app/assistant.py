"""The application under test: an assistant that answers a question with one chat completion.

It knows nothing about benchmarks. ``client`` is an ``openai.OpenAI`` client; in the
benchmark it talks to an offline stand-in of the API (``offline_api``).
"""

from __future__ import annotations

import openai

SYSTEM = (
    "You are a support assistant for the Acme shop. Answer in one or two sentences and "
    "name the policy you rely on."
)


def answer(client: openai.OpenAI, question: str, *, model: str) -> str:
    """The assistant's answer to ``question``."""
    completion = client.chat.completions.create(
        model=model,
        messages=[
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": question},
        ],
    )
    return completion.choices[0].message.content or ""
