"""Rule-based ticket routing with two rule sets.

``v1`` is the routing in production: keyword rules per queue. ``v2`` adds an
incident rule: an outage reported by an enterprise customer goes to the
``incident`` queue with ``urgent`` priority instead of the general technical
queue, where it used to wait behind ordinary bug reports.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

QUEUE_KEYWORDS: dict[str, tuple[str, ...]] = {
    "billing": ("refund", "invoice", "charged", "charge", "billed", "payment", "receipt", "vat"),
    "account": (
        "password",
        "login",
        "log in",
        "2fa",
        "two-factor",
        "locked out",
        "email address",
        "sso",
    ),
    "security": ("phishing", "suspicious", "breach", "compromised", "unauthorized"),
    "sales": ("quote", "pricing", "upgrade", "seats", "procurement", "demo"),
    "technical": (
        "error",
        "bug",
        "crash",
        "api",
        "timeout",
        "down",
        "outage",
        "slow",
        "500",
        "sync",
    ),
}
OUTAGE_WORDS = ("outage", "down", "unreachable", "not loading", "503", "500 errors")
URGENT_WORDS = ("asap", "urgent", "immediately", "critical", "production")


@dataclass(frozen=True)
class Features:
    text: str
    plan: str
    matched: dict[str, int]
    outage: bool
    urgent: bool


@dataclass(frozen=True)
class Decision:
    queue: str
    priority: str
    confidence: float
    rule: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def extract_features(ticket: dict[str, str]) -> Features:
    """Lower-cased text, customer plan and keyword hits per queue."""
    text = f"{ticket.get('subject', '')} {ticket.get('body', '')}".lower()
    matched = {
        queue: sum(word in text for word in words) for queue, words in QUEUE_KEYWORDS.items()
    }
    return Features(
        text=text,
        plan=ticket.get("plan", "free"),
        matched={queue: hits for queue, hits in matched.items() if hits},
        outage=any(word in text for word in OUTAGE_WORDS),
        urgent=any(word in text for word in URGENT_WORDS),
    )


def route(features: Features, *, rules: str) -> Decision:
    """Choose a queue and priority for a ticket under rule set ``rules`` (``v1`` or ``v2``)."""
    if rules not in ("v1", "v2"):
        raise ValueError(f"unknown rule set {rules!r}")
    if rules == "v2" and features.outage and features.plan == "enterprise":
        return Decision(
            queue="incident", priority="urgent", confidence=0.97, rule="enterprise-outage"
        )
    if features.matched.get("security"):
        return Decision(
            queue="security", priority="high", confidence=0.93, rule="security-keywords"
        )
    if not features.matched:
        return Decision(queue="general", priority="normal", confidence=0.55, rule="fallback")
    queue = max(features.matched, key=lambda name: (features.matched[name], name))
    total = sum(features.matched.values())
    confidence = round(0.6 + 0.35 * features.matched[queue] / total, 3)
    if features.urgent or (features.outage and features.plan == "enterprise"):
        priority = "high"
    elif features.plan == "free":
        priority = "low"
    else:
        priority = "normal"
    return Decision(queue=queue, priority=priority, confidence=confidence, rule=f"{queue}-keywords")
