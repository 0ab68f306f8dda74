"""An offline support assistant: two ways of answering a customer's question.

``canned`` answers from a short template per topic and sometimes leaves a condition out
or promises more than the policy says; ``grounded`` quotes the policy's facts. No model,
no network: the answers are fixed strings, so the judge has something stable to grade.
"""

from __future__ import annotations

from typing import Any

CANNED = {
    "refund": "Sure, you can get your money back. Just send us the item.",
    "exchange": "You can exchange within 30 days, and we guarantee a free return label.",
    "shipping": "Your order always arrives in 3 to 5 business days.",
    "warranty": "Your device has a warranty, guaranteed for life.",
    "cancel": "You can cancel your order before it ships.",
    "password": "Click 'Forgot password' on the sign-in page.",
    "invoice": "Invoices are in your account.",
    "outage": "Our service is always available; please try again.",
}


def answer(ctx: Any, case: Any) -> dict[str, str]:
    """The answer of the variant's ``style`` (``canned`` or ``grounded``) to the case's
    question: ``{"answer": text}``."""
    topic = case.input["topic"]
    if ctx.factor("style") == "canned":
        return {"answer": CANNED[topic]}
    facts = "; ".join(case.expected["facts"])
    return {"answer": f"Per our {topic} policy: {facts}."}
