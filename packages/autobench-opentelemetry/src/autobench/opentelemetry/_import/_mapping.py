"""The GenAI semantic conventions of OpenTelemetry mapped to Autobench's span facts.

:func:`span_kind` reads the attributes a span starts with; :func:`map_attributes` reads
the attributes it ended with and returns the ABP attributes and usage, under the keys the
native instrumentors use (so ``autobench.records`` turns them into the same observations,
and ``token_cost`` prices them):

================================================  =========================================
OpenTelemetry attribute                           ABP span fact
================================================  =========================================
``gen_ai.request.model``                          attribute ``llm.model.requested``
``gen_ai.response.model``                         attribute ``llm.model.response``
``gen_ai.provider.name`` / ``gen_ai.system``      attribute ``llm.provider`` (convention
                                                  spelling, ``az.ai.openai`` ->
                                                  ``azure.ai.openai``)
``server.address``                                attribute ``server.address`` (as it is)
``gen_ai.operation.name``                         attribute ``llm.operation``; the span kind
``gen_ai.response.finish_reasons``                attribute ``llm.finish_reason``
``gen_ai.response.id``                            attribute ``llm.response.id``
``gen_ai.tool.name`` / ``gen_ai.tool.call.id``    attributes ``tool.name`` / ``tool.call_id``
``gen_ai.usage.input_tokens``                     usage ``input_tokens`` (cached included)
``gen_ai.usage.output_tokens``                    usage ``output_tokens`` (reasoning incl.)
``gen_ai.usage.cache_read.input_tokens``          usage ``cache_read_tokens``
``gen_ai.usage.cache_creation.input_tokens``      usage ``cache_write_tokens``
``gen_ai.usage.reasoning.output_tokens``          usage ``reasoning_tokens``
``error.type``                                    attribute ``error.type``; the span error
================================================  =========================================

Older and vendor spellings are read too (``gen_ai.usage.prompt_tokens``,
``gen_ai.usage.details.cache_read_tokens``, ...; see :data:`USAGE`), the first present
wins. A model call (kind ``llm``) with usage also counts ``requests: 1``. Usage under
``gen_ai.aggregated_usage.*``, and the usage of an agent or workflow span, is a roll-up:
it is marked ``aggregate`` (validation evidence, never added to the calls beneath).

Every other attribute is kept under its own name as a source fact (the capture policy
applies when the trace is materialized), except the content attributes of
:data:`CONTENT`, which are dropped unless ``capture_content`` is on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autobench.abp._provider import PROVIDER, convention_name

OPERATION_KINDS: dict[str, str] = {
    "chat": "llm",
    "text_completion": "llm",
    "generate_content": "llm",
    "embeddings": "llm",
    "execute_tool": "tool",
    "invoke_agent": "agent",
    "create_agent": "agent",
    "invoke_workflow": "workflow",
}
"""``gen_ai.operation.name`` -> ABP span kind."""

NAME_KINDS: tuple[tuple[str, str], ...] = (
    ("chat ", "llm"),
    ("execute_tool", "tool"),
    ("running tool", "tool"),
    ("invoke_agent", "agent"),
    ("agent run", "agent"),
)
"""Span-name prefixes -> kind, for spans that start without ``gen_ai.operation.name``."""

ROLLUP_KINDS = frozenset({"agent", "workflow"})

RENAMED: dict[str, str] = {
    "gen_ai.request.model": "llm.model.requested",
    "gen_ai.response.model": "llm.model.response",
    "gen_ai.provider.name": "llm.provider",
    "gen_ai.system": "llm.provider",
    "gen_ai.operation.name": "llm.operation",
    "gen_ai.response.id": "llm.response.id",
    "gen_ai.tool.name": "tool.name",
    "gen_ai.tool.call.id": "tool.call_id",
}
"""Attributes taken as they are under an Autobench name (``gen_ai.provider.name`` wins over
the older ``gen_ai.system``)."""

USAGE: dict[str, tuple[str, ...]] = {
    "input_tokens": ("input_tokens", "prompt_tokens"),
    "output_tokens": ("output_tokens", "completion_tokens"),
    "cache_read_tokens": (
        "cache_read.input_tokens",
        "cache_read_input_tokens",
        "details.cache_read_tokens",
    ),
    "cache_write_tokens": (
        "cache_creation.input_tokens",
        "cache_creation_input_tokens",
        "details.cache_write_tokens",
    ),
    "reasoning_tokens": (
        "reasoning.output_tokens",
        "reasoning_tokens",
        "details.reasoning_tokens",
    ),
}
"""ABP usage key -> suffixes after ``gen_ai.usage.`` (or ``gen_ai.aggregated_usage.``)."""

USAGE_PREFIX = "gen_ai.usage."
AGGREGATED_PREFIX = "gen_ai.aggregated_usage."
USAGE_KEYS: dict[str, tuple[str, int, bool]] = {
    prefix + suffix: (field, rank, prefix == AGGREGATED_PREFIX)
    for prefix in (USAGE_PREFIX, AGGREGATED_PREFIX)
    for field, suffixes in USAGE.items()
    for rank, suffix in enumerate(suffixes)
}
"""Usage attribute -> (ABP usage key, rank of its spelling, whether it is a roll-up); any
other ``gen_ai.usage.*`` attribute stays a source fact."""

CONTENT = frozenset(
    {
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "gen_ai.prompt",
        "gen_ai.completion",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gen_ai.tool.definitions",
        "all_messages_events",
        "final_result",
        "tool_arguments",
        "tool_response",
        "logfire.json_schema",
    }
)
"""Attributes holding prompts, answers or tool payloads (``capture_content`` keeps them)."""


_RENAME, _USAGE, _REASONS = "rename", "usage", "reasons"
_NOTHING: frozenset[str] = frozenset()
_ROUTES: dict[str, tuple[str, str, int, bool]] = {
    **{key: (_RENAME, target, 0, False) for key, target in RENAMED.items()},
    **{key: (_USAGE, field, rank, rollup) for key, (field, rank, rollup) in USAGE_KEYS.items()},
    "gen_ai.response.finish_reasons": (_REASONS, "llm.finish_reason", 0, False),
}
"""Attribute -> ``(action, ABP key, rank of the spelling, roll-up)``: one lookup per
attribute; an attribute without a route is kept as it is (or dropped, for content)."""


def span_kind(name: str, attributes: Mapping[str, Any] | None) -> str:
    """The ABP kind of a span starting with ``name`` and ``attributes`` (default ``custom``)."""
    if attributes:
        operation = attributes.get("gen_ai.operation.name")
        if operation is not None:
            kind = OPERATION_KINDS.get(str(operation))
            if kind is not None:
                return kind
    for prefix, kind in NAME_KINDS:
        if name.startswith(prefix):
            return kind
    return "custom"


def map_attributes(
    attributes: Mapping[str, Any], kind: str, *, capture_content: bool
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(attributes, usage)`` of the ABP span of an OpenTelemetry span of ``kind`` that
    ended with ``attributes`` (table above). Token counts that are not whole numbers
    are kept as source facts only."""
    mapped: dict[str, Any] = {}
    usage: dict[str, Any] = {}
    ranks: dict[str, int] = {}
    aggregate = kind in ROLLUP_KINDS
    dropped = _NOTHING if capture_content else CONTENT
    for key, value in attributes.items():
        route = _ROUTES.get(key)
        if route is None:
            if key not in dropped:
                mapped[key] = list(value) if value.__class__ is tuple else value
            continue
        action, target, rank, rollup = route
        if action is _RENAME:
            if key != "gen_ai.system" or target not in mapped:
                mapped[target] = value
        elif action is _USAGE:
            if (
                value.__class__ is int
                and value >= 0
                and (target not in ranks or rank < ranks[target])
            ):
                usage[target] = value
                ranks[target] = rank
                aggregate = aggregate or rollup
        else:  # finish reasons
            reasons = list(value) if isinstance(value, list | tuple) else [value]
            mapped[target] = reasons[0] if len(reasons) == 1 else reasons
    provider = mapped.get(PROVIDER)
    if isinstance(provider, str):
        mapped[PROVIDER] = convention_name(provider)
    if usage:
        if kind == "llm" and not aggregate:
            usage["requests"] = 1
        if aggregate:
            usage["aggregate"] = True
    return mapped, usage
