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

from autobench.abp._provider import (
    PROVIDER,
    SERVER_ADDRESS,
    convention_name,
    host_of,
    is_azure_client,
    openai_provider,
)

USAGE_FIELDS: tuple[tuple[str, str], ...] = (
    ("input_tokens", "input_tokens"),
    ("output_tokens", "output_tokens"),
    ("cache_read_tokens", "cache_read_tokens"),
    ("cache_write_tokens", "cache_write_tokens"),
    ("output_reasoning_tokens", "reasoning_tokens"),
)
"""``(Pydantic AI usage field, ABP span usage key)``; the keys are those the records layer
reads (``autobench.records._native``)."""


def _openai_client(client: Any) -> bool:
    return any(
        cls.__module__.split(".", 1)[0] == "openai" and cls.__name__.endswith("OpenAI")
        for cls in type(client).__mro__
    )


def provider_attributes(model: Any) -> dict[str, str]:
    """``llm.provider`` and ``server.address`` of a request to ``model``.

    A model driving an OpenAI SDK client (``OpenAIChatModel``, ``OpenAIResponsesModel``,
    whatever its Pydantic AI provider) is named as the OpenAI layer names the client's
    calls (``openai``, or ``azure.ai.openai``; :mod:`autobench.abp._provider`), so both
    layers agree; any other model by its ``system`` in its GenAI convention spelling
    (``anthropic``, ``gcp.gemini``, ``aws.bedrock``, ...). The host is that of the
    model's ``base_url``.
    """
    attributes: dict[str, str] = {}
    try:
        host = host_of(getattr(model, "base_url", None))
        client = getattr(model, "client", None)
    except Exception:  # a model without a usable URL or client still names its system
        host, client = None, None
    if client is not None and _openai_client(client):
        attributes[PROVIDER] = openai_provider(host, azure_client=is_azure_client(client))
    else:
        system = getattr(model, "system", None)
        if isinstance(system, str) and system:
            attributes[PROVIDER] = convention_name(system)
    if host:
        attributes[SERVER_ADDRESS] = host
    return attributes


def identity_attributes(request_context: Any) -> dict[str, Any]:
    """The model request span's start attributes: requested model, provider, server
    address (:func:`provider_attributes`), streaming."""
    model = getattr(request_context, "model", None)
    attributes: dict[str, Any] = {}
    name = getattr(model, "model_name", None)
    if isinstance(name, str) and name:
        attributes["llm.model.requested"] = name
    attributes.update(provider_attributes(model))
    streaming = getattr(request_context, "streaming", None)
    if isinstance(streaming, bool):
        attributes["llm.stream"] = streaming
    return attributes


def response_attributes(response: Any) -> dict[str, Any]:
    """Attributes of a finished model request: the answering model, finish reason, response
    id, and the provider (``provider_name`` in its convention spelling), which the caller
    keeps only when the request did not name one (:func:`identity_attributes` decides)."""
    attributes: dict[str, Any] = {}
    for field, key in (
        ("model_name", "llm.model.response"),
        ("provider_name", PROVIDER),
        ("finish_reason", "llm.finish_reason"),
        ("provider_response_id", "llm.response.id"),
    ):
        value = getattr(response, field, None)
        if isinstance(value, str) and value:
            attributes[key] = convention_name(value) if key == PROVIDER else value
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
