"""What each exported span says: ABP facts as OTLP attributes (no OpenTelemetry import).

An attribute value is a string, boolean, 64-bit integer, float, or a list of one of
them; anything else (a mapping, a mixed list, a larger integer, a date) is written as
canonical JSON text, and ``None`` is left out. The GenAI semantic conventions
(``gen_ai.*``) are filled where an ABP fact means the same thing
(:data:`GENAI_ATTRIBUTES`, :data:`GENAI_USAGE`); every ABP attribute is kept under its own
key as well.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from autobench.abp import InstrumentationScope, SpanRecord
from autobench.records import Observation, RunRecord

AttributeValue = str | bool | int | float | list[str] | list[bool] | list[int] | list[float]
Attributes = dict[str, AttributeValue]

GENAI_ATTRIBUTES: Mapping[str, str] = {
    "llm.model.requested": "gen_ai.request.model",
    "llm.model.response": "gen_ai.response.model",
    "llm.provider": "gen_ai.provider.name",
    "llm.response.id": "gen_ai.response.id",
    "llm.temperature": "gen_ai.request.temperature",
    "tool.name": "gen_ai.tool.name",
    "tool.call_id": "gen_ai.tool.call.id",
    "tool.arguments": "gen_ai.tool.call.arguments",
    "agent.name": "gen_ai.agent.name",
}
"""ABP span attribute, or semantic type of an observation on the span -> GenAI attribute.
A ``tool`` span without ``tool.name`` is named by its operation, and its captured input and
output are its ``gen_ai.tool.call.arguments`` and ``gen_ai.tool.call.result``."""

GENAI_USAGE: Mapping[str, str] = {
    "llm.tokens.input": "gen_ai.usage.input_tokens",
    "llm.tokens.output": "gen_ai.usage.output_tokens",
    "llm.tokens.cache_read": "gen_ai.usage.cache_read.input_tokens",
    "llm.tokens.cache_write": "gen_ai.usage.cache_creation.input_tokens",
    "llm.tokens.reasoning": "gen_ai.usage.reasoning.output_tokens",
}
"""Token semantic type -> GenAI usage attribute (set only on the spans whose counts are
in the run's total, so a back end summing them over a trace gets Autobench's total)."""

USAGE_SEMANTICS: Mapping[str, str] = {
    "input_tokens": "llm.tokens.input",
    "output_tokens": "llm.tokens.output",
    "cache_read_tokens": "llm.tokens.cache_read",
    "cache_write_tokens": "llm.tokens.cache_write",
    "reasoning_tokens": "llm.tokens.reasoning",
}
"""Key of an ABP span's ``usage`` -> the token semantic type it counts."""

OPERATION_NAMES: Mapping[str, str] = {
    "llm": "chat",
    "tool": "execute_tool",
    "agent": "invoke_agent",
}
"""ABP span kind -> ``gen_ai.operation.name`` (an ``llm`` span whose operation names
embeddings is ``embeddings``)."""

_INT64 = 2**63


def attribute_value(value: Any) -> AttributeValue | None:
    """``value`` as an OTLP attribute value (rules in the module docstring)."""
    if value is None:
        return None
    if isinstance(value, bool | str | float):
        return value
    if isinstance(value, int):
        return value if -_INT64 <= value < _INT64 else str(value)
    if isinstance(value, list | tuple) and value:
        kinds = {type(item) for item in value}
        plain = len(kinds) == 1 and kinds <= {str, bool, float, int}
        if plain and (kinds != {int} or all(-_INT64 <= item < _INT64 for item in value)):
            return list(value)
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def put(attributes: Attributes, key: str, value: Any) -> None:
    """Set ``key`` to ``value`` as an attribute value, unless ``value`` is ``None``."""
    converted = attribute_value(value)
    if converted is not None:
        attributes[key] = converted


def operation_name(span: SpanRecord) -> str | None:
    """The ``gen_ai.operation.name`` of ``span``, or ``None`` for a span of no GenAI kind."""
    if span.kind == "llm" and "embedding" in span.operation.lower():
        return "embeddings"
    return OPERATION_NAMES.get(span.kind)


def span_attributes(
    span: SpanRecord, scope: InstrumentationScope | None, observations: list[Observation]
) -> Attributes:
    """The attributes of ``span``: its ABP attributes, its kind, layer and raw usage
    (``autobench.usage.<key>``), its captured input and output (JSON text), and the GenAI
    attributes its attributes and the factor ``observations`` linked to it give."""
    attributes: Attributes = {}
    for key, value in span.attributes.items():
        put(attributes, key, value)
    put(attributes, "autobench.span.kind", span.kind)
    if scope is not None:
        put(attributes, "autobench.layer", scope.layer)
    for key, value in span.usage.items():
        put(attributes, f"autobench.usage.{key}", value)
    for key, value in span.tags.items():
        put(attributes, f"autobench.tag.{key}", value)
    if span.input is not None:
        put(attributes, "autobench.input", _text(span.input))
    if span.output is not None:
        put(attributes, "autobench.output", _text(span.output))
    if span.partial:
        attributes["autobench.span.partial"] = True
    if span.error is not None:
        put(attributes, "error.type", span.error.type)
    genai = operation_name(span)
    if genai is not None:
        attributes["gen_ai.operation.name"] = genai
    facts = dict(span.attributes)
    for observation in observations:
        if observation.semantic_type is not None:
            facts.setdefault(observation.semantic_type, observation.value)
    for source, target in GENAI_ATTRIBUTES.items():
        value = facts.get(source)
        if value is not None:
            put(
                attributes,
                target,
                value if target != "gen_ai.tool.call.arguments" else _text(value),
            )
    if span.kind == "tool":  # a tool span's operation is the tool; its input the arguments
        attributes.setdefault("gen_ai.tool.name", span.operation)
        if span.input is not None:
            attributes.setdefault("gen_ai.tool.call.arguments", _text(span.input))
        if span.output is not None:
            attributes.setdefault("gen_ai.tool.call.result", _text(span.output))
    if "gen_ai.provider.name" in attributes:
        attributes.setdefault("gen_ai.system", attributes["gen_ai.provider.name"])
    reason = span.attributes.get("llm.finish_reason")
    if reason is not None:
        put(
            attributes,
            "gen_ai.response.finish_reasons",
            reason if isinstance(reason, list) else [str(reason)],
        )
    return attributes


def run_attributes(run: RunRecord, metrics: Mapping[str, Any]) -> Attributes:
    """The facts of ``run`` for its root span: ids, case, variant and factors, status and
    outcome, scores (``autobench.score.<name>``), projected metrics
    (``autobench.metric.<semantic type>``, one value per type as reports show it) and the
    first error."""
    attributes: Attributes = {}
    info = run.run
    put(attributes, "autobench.run.id", info.id)
    put(attributes, "autobench.run.index", info.index)
    put(attributes, "autobench.run.repeat", info.repeat)
    put(attributes, "autobench.run.status", info.status.value)
    put(attributes, "autobench.run.outcome.task", info.outcome.task.value)
    put(attributes, "autobench.run.outcome.evaluation", info.outcome.evaluation.value)
    put(attributes, "autobench.run.duration", info.duration)
    put(attributes, "autobench.case.id", run.case_id)
    put(attributes, "autobench.variant.id", run.variant_id)
    for factor in run.variant.factors:
        put(attributes, f"autobench.variant.factor.{factor.name}", factor.value)
    for score in run.scores:
        put(attributes, f"autobench.score.{score.name}", score.value)
    for semantic, value in metrics.items():
        put(attributes, f"autobench.metric.{semantic}", value)
    if run.errors:
        error = run.errors[0]
        put(attributes, "autobench.run.error.stage", error.stage)
        put(attributes, "autobench.run.error.type", error.type)
        put(attributes, "autobench.run.error.message", error.message)
    return attributes


def observation_attributes(observation: Observation) -> Attributes:
    """The attributes of the ``autobench.observation`` event of ``observation``."""
    attributes: Attributes = {}
    put(attributes, "autobench.observation.id", observation.id)
    put(attributes, "autobench.observation.name", observation.name)
    put(attributes, "autobench.observation.kind", observation.kind.value)
    put(attributes, "autobench.observation.value", observation.value)
    put(attributes, "autobench.observation.unit", observation.unit)
    put(attributes, "autobench.observation.semantic", observation.semantic_type)
    put(attributes, "autobench.observation.source", observation.source.value)
    if observation.role is not None:
        put(attributes, "autobench.observation.role", observation.role.value)
    for key, value in observation.tags.items():
        put(attributes, f"autobench.observation.tag.{key}", value)
    return attributes


def _text(value: Any) -> str:
    return (
        value
        if isinstance(value, str)
        else json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    )
