"""Reading the SDK's span data into span facts: usage counts, model identity, plain values.

Span data is read by attribute with defaults and its usage mappings by key, never
by type, so data missing a field records less instead of failing. Usage keys
written to the span's usage mapping (the keys the records layer reads, see
``autobench.records._native``), with where each comes from:

==================== ====================================== =================================
span usage key       model call (generation, response)      roll-up (task, turn)
==================== ====================================== =================================
``requests``         1 (one model call)                     ``requests`` (task only)
``input_tokens``     ``input_tokens``                       ``input_tokens``
``output_tokens``    ``output_tokens``                      ``output_tokens``
``cache_read_tokens`` ``input_tokens_details.cached_tokens`` ``cached_input_tokens``
``cache_write_tokens`` ``input_tokens_details                ``cache_write_input_tokens``
                     .cache_write_tokens``
``reasoning_tokens`` ``output_tokens_details                (not reported)
                     .reasoning_tokens``
==================== ====================================== =================================

Input tokens are all input tokens, cached ones included, and output tokens all output
tokens, reasoning included, as the SDK (and OpenAI) report them; the cached, cache-write
and reasoning counts are subsets recorded under their own keys. The SDK fills absent
details with zeros, so a zero detail count is left out: it would otherwise add a count
the client layer (which reads the provider's payload) does not have. ``total_tokens`` is
not recorded (it is the sum of the two others).

Usage the provider never sent is *unmeasured*, never zero. The SDK records a model
call whose provider sent no usage block (a streamed chat completion without
``stream_options.include_usage``, the SDK's default for a non-OpenAI ``base_url``) as
``Usage(requests=1)``: every token count zero (``agents/usage.py``,
``_mark_request_completed_without_usage``). A call's usage whose counts are all zero
is taken for that fill (:func:`filled_zeros`): a model call reads and writes at least
one token. When the span kept what the provider sent (the response of a ``response``
span, the response dump a streamed ``generation`` span keeps as its output, both with
``trace_include_sensitive_data``), its ``usage`` field decides instead: absent is
unmeasured, present (even all zero) is measured. An unmeasured call records
``requests`` only. A roll-up (task, turn) whose input and output counts are both zero
sums only such calls (no model call reads zero tokens): it records no token counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autobench.abp._provider import OPENAI, host_of, identity, is_azure_client, openai_provider

PROVIDER = "llm.provider"
MODEL_REQUESTED = "llm.model.requested"
MODEL_RESPONSE = "llm.model.response"
RESPONSE_ID = "llm.response.id"

CALL_DETAILS: tuple[tuple[str, str, str], ...] = (
    ("cache_read_tokens", "input_tokens_details", "cached_tokens"),
    ("cache_write_tokens", "input_tokens_details", "cache_write_tokens"),
    ("reasoning_tokens", "output_tokens_details", "reasoning_tokens"),
)
"""``(span usage key, details field, count field)`` of a model call's usage mapping."""

ROLLUP_DETAILS: tuple[tuple[str, str], ...] = (
    ("cache_read_tokens", "cached_input_tokens"),
    ("cache_write_tokens", "cache_write_input_tokens"),
    ("requests", "requests"),
)
"""``(span usage key, field)`` of a task or turn span's usage roll-up (zero left out)."""


def count(value: Any) -> int | None:
    """``value`` when it is a non-negative integer (not a bool), else ``None``."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def _get(mapping: Any, key: str) -> Any:
    return mapping.get(key) if isinstance(mapping, Mapping) else None


def call_usage(usage: Any) -> dict[str, int]:
    """The counts of one model call's usage mapping (``requests`` is set by the caller).

    ``{}`` for anything that is not a mapping; input and output counts are kept when
    zero, detail counts only when positive.
    """
    counts: dict[str, int] = {}
    if not isinstance(usage, Mapping):
        return counts
    for key in ("input_tokens", "output_tokens"):
        value = count(usage.get(key))
        if value is not None:
            counts[key] = value
    for key, details, name in CALL_DETAILS:
        value = count(_get(usage.get(details), name))
        if value:
            counts[key] = value
    return counts


UNKNOWN: Any = object()
"""What the provider sent, when the span did not keep it (see :func:`filled_zeros`)."""


def filled_zeros(usage: Any, sent: Any = UNKNOWN) -> bool:
    """Whether a model call's usage mapping stands for usage the provider never sent.

    ``sent`` is the ``usage`` field of the provider's response when the span kept the
    response (``None``: no usage block), :data:`UNKNOWN` otherwise; unknown, every
    token count of ``usage`` being zero (or absent) decides (module docstring).
    """
    if sent is not UNKNOWN:
        return sent is None
    if not isinstance(usage, Mapping):
        return False
    values = [usage.get(key) for key in ("input_tokens", "output_tokens", "total_tokens")]
    values += [_get(usage.get(details), name) for _, details, name in CALL_DETAILS]
    return all(not count(value) for value in values)


def sent_usage(response: Any) -> Any:
    """The ``usage`` field of the provider's ``response`` (a model or its dump);
    :data:`UNKNOWN` when ``response`` is not a response the span kept."""
    if response is None:
        return UNKNOWN
    if isinstance(response, Mapping):
        if response.get("object") != "response" or "usage" not in response:
            return UNKNOWN
        return response["usage"]
    if not hasattr(response, "usage") or not hasattr(response, "output"):
        return UNKNOWN
    return response.usage


def rollup_usage(usage: Any) -> dict[str, int]:
    """The counts of a task or turn span's usage roll-up (``{}`` when there is none); input
    and output counts that are both zero are left out (module docstring)."""
    counts: dict[str, int] = {}
    if not isinstance(usage, Mapping):
        return counts
    for key in ("input_tokens", "output_tokens"):
        value = count(usage.get(key))
        if value is not None:
            counts[key] = value
    for key, name in ROLLUP_DETAILS:
        value = count(usage.get(name))
        if value:
            counts[key] = value
    if not counts.get("input_tokens") and not counts.get("output_tokens"):
        counts.pop("input_tokens", None)
        counts.pop("output_tokens", None)
    return counts


def client_of(model: Any) -> Any | None:
    """The OpenAI client an SDK model sends its requests with (its ``_client``, when that has
    a ``base_url``: a model of the application's own may hold something else), or ``None``."""
    client = getattr(model, "_client", None)
    return client if getattr(client, "base_url", None) is not None else None


def provider_of(base_url: Any, client: Any = None) -> dict[str, str]:
    """The ``llm.provider`` and ``server.address`` attributes of a model call (the OpenAI
    layer's rule, :mod:`autobench.abp._provider`): ``azure.ai.openai`` for an Azure client
    or an ``*.openai.azure.com`` host, else ``openai``. ``client`` is the model's OpenAI
    client when known (:mod:`._caller`) and decides over ``base_url`` (a generation span's
    ``model_config``); without either, just ``openai`` (the SDK's models all speak
    OpenAI's API)."""
    if client is not None:
        host = host_of(getattr(client, "base_url", None))
        return identity(openai_provider(host, azure_client=is_azure_client(client)), host)
    host = host_of(base_url)
    return identity(openai_provider(host), host) if host else identity(OPENAI, None)


def field(value: Any, name: str) -> Any:
    """``value[name]`` of a mapping, attribute ``name`` of an object; ``None`` when absent."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


def text(value: Any) -> str | None:
    """``value`` when it is a non-empty string."""
    return value if isinstance(value, str) and value else None


def names(value: Any) -> list[str] | None:
    """The strings of a list of names (an agent's tools, handoffs), or ``None``."""
    if not isinstance(value, list | tuple):
        return None
    return [item for item in value if isinstance(item, str)]


def plain(value: Any) -> Any:
    """``value`` as plain data for a span payload: pydantic models dumped to JSON data,
    containers converted item by item, anything else unknown as its ``repr``."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return dump(mode="json")
        except Exception:  # a model that cannot dump itself is still recorded
            return repr(value)
    return repr(value)
