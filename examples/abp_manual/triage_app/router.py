"""``TicketRouter``: picks a support queue and a priority for a ticket.

The "model" is a deterministic keyword classifier, so the example runs offline and gives
the same answer every time. Like an LLM client it reports what it used: a usage object
with token counts and the model that answered. ``triage-small`` knows the common
keywords; ``triage-large`` knows more and escalates outages on paid plans.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PROMPT_TOKENS = 48  # the fixed instructions sent with every ticket

_KEYWORDS: dict[str, dict[str, str]] = {
    "triage-small": {
        "invoice": "billing",
        "refund": "billing",
        "charged": "billing",
        "password": "account",
        "login": "account",
        "error": "technical",
        "crash": "technical",
    },
    "triage-large": {
        "invoice": "billing",
        "refund": "billing",
        "charged": "billing",
        "vat": "billing",
        "password": "account",
        "login": "account",
        "2fa": "account",
        "error": "technical",
        "crash": "technical",
        "outage": "technical",
        "503": "technical",
    },
}


@dataclass(frozen=True, slots=True)
class Ticket:
    subject: str
    body: str
    plan: str = "free"


@dataclass(frozen=True, slots=True)
class RouterUsage:
    input_tokens: int
    output_tokens: int
    model: str


@dataclass(frozen=True, slots=True)
class RoutingResult:
    queue: str
    priority: str
    matched: tuple[str, ...]
    usage: RouterUsage


class TicketRouter:
    """Routes tickets with one of the ``triage-*`` models."""

    def __init__(self, model: str = "triage-small") -> None:
        if model not in _KEYWORDS:
            raise ValueError(f"unknown model {model!r}; expected one of {sorted(_KEYWORDS)}")
        self.model = model

    def route(self, ticket: Ticket, *, default_queue: str = "general") -> RoutingResult:
        words = re.findall(r"[a-z0-9]+", f"{ticket.subject} {ticket.body}".lower())
        keywords = _KEYWORDS[self.model]
        matched = tuple(word for word in words if word in keywords)
        queue = keywords[matched[0]] if matched else default_queue
        outage = queue == "technical" and self.model == "triage-large"
        priority = "urgent" if outage and ticket.plan != "free" else "normal"
        usage = RouterUsage(
            input_tokens=_PROMPT_TOKENS + len(words),
            output_tokens=2 + len(matched),
            model=self.model,
        )
        return RoutingResult(queue=queue, priority=priority, matched=matched, usage=usage)
