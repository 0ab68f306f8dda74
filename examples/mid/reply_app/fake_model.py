"""An offline stand-in for a chat model: deterministic replies, token usage and latency.

No network and no randomness. Each model profile differs the way real model tiers
do: how many knowledge snippets it manages to use in one reply (``fact_capacity``),
how much courtesy text it adds (``verbosity``) and how fast it produces tokens.
The reply is built from the ticket's retrieved knowledge snippets, in their
retrieval order, so a smaller model drops the later ones.

Tokens are counted as words and punctuation marks (``\\w+|[^\\w\\s]``); the
latency is simulated: ``base_ms + ms_per_input_token * input + ms_per_output_token *
output`` milliseconds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

PROVIDER = "demo"

SYSTEM_PROMPT = (
    "You are a support assistant for an online store. Answer the customer in plain English, "
    "use only the knowledge snippets provided, and never invent policies or numbers."
)

_TOKEN = re.compile(r"\w+|[^\w\s]")

_COURTESY = (
    "Thank you for taking the time to write to us, and I am sorry for the trouble.",
    "I have reviewed your account history to make sure nothing else is affected.",
    "If anything is still unclear, reply to this message and the same agent will follow up.",
    "We appreciate your patience and your business.",
)


@dataclass(frozen=True, slots=True)
class ModelProfile:
    """How one demo model behaves."""

    name: str
    fact_capacity: int
    verbosity: int
    base_ms: float
    ms_per_input_token: float
    ms_per_output_token: float


PROFILES: dict[str, ModelProfile] = {
    profile.name: profile
    for profile in (
        ModelProfile("demo/mini", 1, 0, 120.0, 0.05, 4.0),
        ModelProfile("demo/standard", 2, 1, 250.0, 0.1, 9.0),
        ModelProfile("demo/large", 3, 4, 600.0, 0.2, 22.0),
    )
}


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage of one request."""

    input_tokens: int
    output_tokens: int
    requests: int = 1

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class Reply:
    """A generated reply, the usage it cost and its simulated latency (milliseconds)."""

    text: str
    model: str
    provider: str
    usage: Usage
    latency_ms: float


def count_tokens(text: str) -> int:
    """Words and punctuation marks in ``text``: the demo tokenizer."""
    return len(_TOKEN.findall(text))


class FakeReplyModel:
    """``FakeReplyModel("demo/standard").generate(message, snippets)`` -> :class:`Reply`."""

    def __init__(self, model: str) -> None:
        try:
            self.profile = PROFILES[model]
        except KeyError:
            known = ", ".join(PROFILES)
            raise KeyError(f"unknown demo model {model!r} (known: {known})") from None

    def generate(self, message: str, snippets: Sequence[str]) -> Reply:
        """Answer ``message`` using at most ``fact_capacity`` of ``snippets``, in order."""
        profile = self.profile
        prompt = "\n".join((SYSTEM_PROMPT, "Knowledge:", *snippets, "Customer:", message))
        sentences = ["Hello, thanks for contacting us."]
        sentences += _COURTESY[: profile.verbosity]
        sentences += snippets[: profile.fact_capacity]
        sentences.append("Best regards, the support team.")
        text = " ".join(sentences)
        usage = Usage(input_tokens=count_tokens(prompt), output_tokens=count_tokens(text))
        latency = (
            profile.base_ms
            + profile.ms_per_input_token * usage.input_tokens
            + profile.ms_per_output_token * usage.output_tokens
        )
        return Reply(text, profile.name, PROVIDER, usage, round(latency, 3))
