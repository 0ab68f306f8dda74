"""What the spans record of Pydantic AI's own objects: model identity, usage, messages.

Read by attribute with defaults, never by type, so an object missing a field
records less instead of failing. Usage follows Pydantic AI's convention, which is
also Autobench's (``RequestUsage`` in ``pydantic_ai/usage.py``): ``input_tokens``
counts every input token with the cached ones (``cache_read_tokens``,
``cache_write_tokens``) inside it, and ``output_tokens`` counts the reasoning tokens
(``output_reasoning_tokens``) inside it; each inner count is recorded on its own and
never added to its total. A response whose usage says it was not measured
(``unmeasured_requests``) records no token counts: its zeros carry no information
(its span gets the ``instrumentation.usage_unmeasured`` warning).
"""

from __future__ import annotations

from typing import Any

USAGE_FIELDS: tuple[tuple[str, str], ...] = (
    ("input_tokens", "input_tokens"),
    ("output_tokens", "output_tokens"),
    ("cache_read_tokens", "cache_read_tokens"),
    ("cache_write_tokens", "cache_write_tokens"),
    ("output_reasoning_tokens", "reasoning_tokens"),
)
"""``(Pydantic AI usage field, ABP span usage key)``; the keys are those the records layer
reads (``autobench.records._native``)."""


def identity_attributes(request_context: Any) -> dict[str, Any]:
    """The model request span's start attributes: requested model, provider, streaming."""
    model = getattr(request_context, "model", None)
    attributes: dict[str, Any] = {}
    name = getattr(model, "model_name", None)
    if isinstance(name, str) and name:
        attributes["llm.model.requested"] = name
    system = getattr(model, "system", None)
    if isinstance(system, str) and system:
        attributes["llm.provider"] = system
    streaming = getattr(request_context, "streaming", None)
    if isinstance(streaming, bool):
        attributes["llm.stream"] = streaming
    return attributes


def response_attributes(response: Any) -> dict[str, Any]:
    """Attributes of a finished model request: the answering model, provider, finish reason."""
    attributes: dict[str, Any] = {}
    for field, key in (
        ("model_name", "llm.model.response"),
        ("provider_name", "llm.provider"),
        ("finish_reason", "llm.finish_reason"),
        ("provider_response_id", "llm.response.id"),
    ):
        value = getattr(response, field, None)
        if isinstance(value, str) and value:
            attributes[key] = value
    return attributes


def unmeasured(usage: Any) -> bool:
    """Whether one request's ``RequestUsage`` says the provider reported no usage (its
    ``unmeasured_requests``; no usage object at all counts too)."""
    return usage is None or bool(_int(getattr(usage, "unmeasured_requests", 0)))


def usage_counts(usage: Any) -> dict[str, int]:
    """The token counts of one request's ``RequestUsage`` (zero counts left out, except the
    input and output totals of a measured request)."""
    if unmeasured(usage):
        return {}
    counts: dict[str, int] = {}
    for field, key in USAGE_FIELDS:
        value = _int(getattr(usage, field, None))
        if value or (value == 0 and key in ("input_tokens", "output_tokens")):
            counts[key] = value
    return counts


def run_usage(usage: Any) -> dict[str, int]:
    """The roll-up of a run's ``RunUsage``: its token counts and its ``requests`` (the agent
    span marks them aggregate)."""
    if usage is None:
        return {}
    counts = {
        key: value for field, key in USAGE_FIELDS if (value := _int(getattr(usage, field, None)))
    }
    requests = _int(getattr(usage, "requests", None))
    if requests:
        counts["requests"] = requests
    return counts


def request_parts(request_context: Any) -> Any:
    """The messages of a model request as plain data (``capture_input``)."""
    return _plain(getattr(request_context, "messages", None))


def response_parts(response: Any) -> Any:
    """The parts of a model response as plain data (``capture_output``)."""
    return _plain(getattr(response, "parts", None))


def _plain(value: Any) -> Any:
    if value is None:
        return None
    from pydantic_core import to_jsonable_python

    return to_jsonable_python(value, fallback=repr, bytes_mode="base64")


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
