"""Reading OpenAI payloads into span facts: usage counts, model identity, content.

Every reader accepts both shapes a payload arrives in: an SDK model (a
pydantic object read by attribute) and the decoded JSON mapping of a raw
response (``with_raw_response``). A field that is missing, ``None`` or of an
unexpected type is absent; readers never raise for a payload of another shape.

Usage keys written to the span's usage mapping, with the field of the payload's
``usage`` object each comes from (chat completions and embeddings / responses);
absent values are left out, and ``requests`` is set by the caller:

- ``input_tokens``: ``prompt_tokens`` / ``input_tokens``
- ``output_tokens``: ``completion_tokens`` / ``output_tokens``
- ``cache_read_tokens``: ``prompt_tokens_details.cached_tokens`` /
  ``input_tokens_details.cached_tokens``
- ``cache_write_tokens``: ``prompt_tokens_details.cache_write_tokens`` /
  ``input_tokens_details.cache_write_tokens``
- ``reasoning_tokens``: ``completion_tokens_details.reasoning_tokens`` /
  ``output_tokens_details.reasoning_tokens``

Input tokens are all input tokens, cached ones included, and output tokens all
output tokens, reasoning included, as OpenAI reports them; the cached and
reasoning counts are subsets, recorded under their own keys. A subset count of
zero is left out, as the framework layers leave it out (their SDKs fill details
the provider did not send with zeros): so a call's counts are the same whichever
layers record it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autobench.abp import USAGE_UNMEASURED, ActiveSpan

PROVIDER = "llm.provider"
MODEL_REQUESTED = "llm.model.requested"
MODEL_RESPONSE = "llm.model.response"
RESPONSE_ID = "llm.response.id"
RESPONSE_STATUS = "llm.response.status"
STREAM = "llm.stream"

UsageTable = tuple[tuple[str, tuple[str, ...]], ...]
"""``(span usage key, path of fields under the payload's usage object)`` pairs."""

CHAT_USAGE: UsageTable = (
    ("input_tokens", ("prompt_tokens",)),
    ("output_tokens", ("completion_tokens",)),
    ("cache_read_tokens", ("prompt_tokens_details", "cached_tokens")),
    ("cache_write_tokens", ("prompt_tokens_details", "cache_write_tokens")),
    ("reasoning_tokens", ("completion_tokens_details", "reasoning_tokens")),
)
RESPONSES_USAGE: UsageTable = (
    ("input_tokens", ("input_tokens",)),
    ("output_tokens", ("output_tokens",)),
    ("cache_read_tokens", ("input_tokens_details", "cached_tokens")),
    ("cache_write_tokens", ("input_tokens_details", "cache_write_tokens")),
    ("reasoning_tokens", ("output_tokens_details", "reasoning_tokens")),
)
EMBEDDINGS_USAGE: UsageTable = (("input_tokens", ("prompt_tokens",)),)


def field(payload: Any, name: str) -> Any:
    """``payload[name]`` of a mapping, the field ``name`` of a model; ``None`` when absent.

    A pydantic model is read from its ``__dict__`` (declared fields) and
    ``__pydantic_extra__`` (fields the SDK does not declare): asking the model for
    a missing attribute would raise inside pydantic, which costs microseconds per
    miss. Objects without a ``__dict__`` are read with ``getattr``. Properties are
    not fields: read them with ``getattr`` directly.
    """
    if payload is None:
        return None
    if type(payload) is dict:
        return payload.get(name)
    values = getattr(payload, "__dict__", None)
    if values is None:
        if isinstance(payload, Mapping):
            return payload.get(name)
        return getattr(payload, name, None)
    if name in values:
        return values[name]
    if isinstance(payload, Mapping):
        return payload.get(name)
    extra = getattr(payload, "__pydantic_extra__", None)
    return extra.get(name) if extra else None


_SUBSETS = frozenset({"cache_read_tokens", "cache_write_tokens", "reasoning_tokens"})


def usage_counts(usage: Any, table: UsageTable) -> dict[str, int]:
    """The token counts of ``usage`` under their span usage keys (integers only; a subset
    count of zero left out, see the module docstring)."""
    counts: dict[str, int] = {}
    for key, path in table:
        value = usage
        for name in path:
            value = field(value, name)
        if type(value) is int and (value or key not in _SUBSETS):
            counts[key] = value
    return counts


def record_identity(span: ActiveSpan, payload: Any) -> None:
    """Set ``llm.model.response`` and ``llm.response.id`` from ``payload.model`` / ``.id``."""
    model = field(payload, "model")
    if isinstance(model, str):
        span.set_attribute(MODEL_RESPONSE, model)
    response_id = field(payload, "id")
    if isinstance(response_id, str):
        span.set_attribute(RESPONSE_ID, response_id)


def record_usage(span: ActiveSpan, payload: Any, table: UsageTable) -> None:
    """Merge the counts of ``payload.usage`` into the span's usage (nothing when absent)."""
    usage = field(payload, "usage")
    if usage is not None:
        counts = usage_counts(usage, table)
        if counts:
            span.set_usage(counts)


def note_unmeasured(span: ActiveSpan, why: str) -> None:
    """Add the ``instrumentation.usage_unmeasured`` warning to ``span`` when its usage has
    no input or output token count (the provider sent no usage block); ``why`` says how
    that was seen."""
    usage = span.usage
    if "input_tokens" in usage or "output_tokens" in usage:
        return
    span.add_diagnostic(
        USAGE_UNMEASURED,
        f"{span.operation}: {why}; the request is counted, its tokens are unmeasured",
    )


def response_text(response: Any) -> str:
    """The concatenated ``output_text`` parts of a Responses API ``Response`` (``""`` if none).

    Uses the SDK's ``Response.output_text`` property when there is one, and walks
    ``output[].content[]`` of a raw JSON mapping otherwise.
    """
    text = None if isinstance(response, Mapping) else getattr(response, "output_text", None)
    if isinstance(text, str):
        return text
    parts: list[str] = []
    for item in field(response, "output") or ():
        if field(item, "type") != "message":
            continue
        for part in field(item, "content") or ():
            value = field(part, "text")
            if field(part, "type") == "output_text" and isinstance(value, str):
                parts.append(value)
    return "".join(parts)
