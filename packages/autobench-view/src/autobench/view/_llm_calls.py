"""The LLM calls and tool calls of a run, read from its trace as the instrumentors recorded
them (docs/native-instrumentation.md): nothing is recomputed. Token counts and cost per span
are the report's own (``autobench.report``'s per-span metrics, as the run diff shows them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autobench.abp import SpanKind, SpanRecord, Trace
from autobench.records import RunRecord
from autobench.report._run_diff import _linked_metrics, _span_metrics, tool_calls

MAX_CALLS = 500
"""Rows of each table on a run page; the page says how many more the run holds."""


@dataclass(frozen=True)
class LlmCall:
    """One ``llm`` span: ``layer`` is its operation (``openai.chat.completions``,
    ``pydantic_ai.model``, ...), ``tokens`` by name (``input_tokens``, ``output_tokens``,
    ``cache_read_tokens``, ``cache_write_tokens``, ``reasoning_tokens``: counts), ``cost`` in
    USD where the span or an observation linked to it recorded one, ``duration`` in seconds,
    ``prompt`` and ``reply`` the span's input and output when they were captured."""

    span_id: str
    layer: str
    provider: str | None
    requested: str | None
    responded: str | None
    tokens: dict[str, float | int]
    cost: float | int | None
    duration: float | None
    prompt: Any
    reply: Any
    error: str | None


@dataclass(frozen=True)
class ToolUse:
    """One ``tool`` span: its name, ``arguments`` (its input, else the arguments attribute
    the instrumentor wrote), ``result`` (its output), ``duration`` in seconds, ``error``."""

    span_id: str
    name: str
    arguments: Any
    result: Any
    duration: float | None
    error: str | None


TOKENS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _error(span: SpanRecord) -> str | None:
    return None if span.error is None else f"{span.error.type}: {span.error.message}"


def _spans(run: RunRecord) -> tuple[SpanRecord, ...]:
    return tuple(run.trace.spans) if isinstance(run.trace, Trace) else ()


def llm_calls(run: RunRecord, limit: int = MAX_CALLS) -> tuple[list[LlmCall], int]:
    """The run's ``llm`` spans in start order (the first ``limit``) and how many there are."""
    spans = [span for span in _spans(run) if span.kind == SpanKind.LLM]
    linked = _linked_metrics(run)
    calls = []
    for span in spans[:limit]:
        metrics = _span_metrics(span, linked)
        attributes = span.attributes
        calls.append(
            LlmCall(
                span_id=span.id,
                layer=span.operation,
                provider=_text(attributes.get("llm.provider")),
                requested=_text(attributes.get("llm.model.requested")),
                responded=_text(attributes.get("llm.model.response")),
                tokens={name: metrics[name] for name in TOKENS if name in metrics},
                cost=metrics.get("cost"),
                duration=span.duration,
                prompt=span.input,
                reply=span.output,
                error=_error(span),
            )
        )
    return calls, len(spans)


def tool_uses(run: RunRecord, limit: int = MAX_CALLS) -> tuple[list[ToolUse], int]:
    """The run's ``tool`` spans in start order (the first ``limit``) and how many there are;
    arguments as the report's run diff reads them."""
    calls = tool_calls(run)
    by_id = {span.id: span for span in _spans(run) if span.kind == SpanKind.TOOL}
    uses = []
    for call in calls[:limit]:
        span = by_id[call.span_id]
        name = span.attributes.get("tool.name") or call.name
        uses.append(
            ToolUse(
                span_id=span.id,
                name=str(name),
                arguments=call.arguments,
                result=span.output,
                duration=span.duration,
                error=_error(span),
            )
        )
    return uses, len(calls)
