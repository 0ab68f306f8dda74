"""Observations from native instrumentation: what SDK instrumentors put on their spans.

Native instrumentors (``autobench.instrument.*``) record facts on the spans they
open: token usage in the span's ``usage`` mapping and model identity in its
attributes. They never build observations on the call path; when the run ends
the runtime turns those facts into observations of the run with
:func:`native_observations`, linked to their spans, so run totals, pricing and
reports read them like any other evidence (and a replay can rebuild them from the
trace alone, see :class:`~autobench.records.UsageExtractor`).

Spans of the manual scope (``ctx.span``) and of attached traces are not read here:
their observations are recorded by the task and by ``attach_trace``.

=============================================  ==========================  =========
span field                                     semantic type               unit
=============================================  ==========================  =========
usage ``requests``                             ``llm.request.count``       requests
usage ``input_tokens`` / ``prompt_tokens``     ``llm.tokens.input``        tokens
usage ``output_tokens`` / ``completion_tokens``  ``llm.tokens.output``     tokens
usage ``total_tokens``                         ``llm.tokens.total``        tokens
usage ``cache_read_tokens``                    ``llm.tokens.cache_read``   tokens
usage ``cache_write_tokens``                   ``llm.tokens.cache_write``  tokens
usage ``reasoning_tokens``                     ``llm.tokens.reasoning``    tokens
attribute ``llm.model.requested``              ``llm.model.requested``     (factor)
attribute ``llm.model.response``               ``llm.model.response``      (factor)
attribute ``llm.model.name``                   ``llm.model.name``          (factor)
attribute ``llm.provider``                     ``llm.provider``            (factor)
attribute ``server.address``                   ``server.address``          (factor)
duration of an ``llm`` span                    ``time.latency``            s
attribute ``stream.first_item_seconds``         ``time.first_chunk``        s
  of an ``llm`` span
=============================================  ==========================  =========

Latencies are per call (not additive): a run with several calls projects the
first, and its other calls stay in the raw observations.

Usage of a span marked as a roll-up (usage ``aggregate: true`` or attribute
``accounting: aggregate``, as an agent run's usage is) becomes observations tagged
``accounting: aggregate``: run totals compare them with the calls beneath and never
add them.

Input tokens count every input token, cached ones included, and output tokens every
output token, reasoning included (as the providers report them); the cached and
reasoning counts are observations of their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from autobench.abp import FIRST_ITEM, MANUAL_SCOPE, SpanRecord, Trace
from autobench.records._enums import Direction, ObservationKind, ObservationRole
from autobench.records._semantics import Semantic

NATIVE_USAGE: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("requests",), Semantic.LLM_REQUEST_COUNT, "requests"),
    (("input_tokens", "prompt_tokens"), Semantic.LLM_TOKENS_INPUT, "tokens"),
    (("output_tokens", "completion_tokens"), Semantic.LLM_TOKENS_OUTPUT, "tokens"),
    (("total_tokens",), Semantic.LLM_TOKENS_TOTAL, "tokens"),
    (("cache_read_tokens",), Semantic.LLM_TOKENS_CACHE_READ, "tokens"),
    (("cache_write_tokens",), Semantic.LLM_TOKENS_CACHE_WRITE, "tokens"),
    (("reasoning_tokens",), Semantic.LLM_TOKENS_REASONING, "tokens"),
)
"""Usage keys (the first present wins) -> semantic type and unit."""

NATIVE_IDENTITY: tuple[str, ...] = (
    Semantic.LLM_MODEL_REQUESTED,
    Semantic.LLM_MODEL_RESPONSE,
    Semantic.LLM_MODEL_NAME,
    Semantic.LLM_PROVIDER,
    Semantic.SERVER_ADDRESS,
)
"""Span attributes, named by their semantic type, that become factor observations."""

_NOT_NATIVE = frozenset({MANUAL_SCOPE.name, "autobench.imported"})


@dataclass(frozen=True, slots=True)
class NativeObservation:
    """One observation to record for a native span (the runtime gives it its id)."""

    name: str
    value: Any
    kind: ObservationKind
    semantic_type: str
    span_id: str
    instrumentor: str
    unit: str | None = None
    role: ObservationRole | None = None
    direction: Direction | None = None
    aggregate: bool = False
    """A roll-up of the span's children (an agent run's usage): validation evidence that
    accounting compares with what it counts beneath, never adds to it."""

    @property
    def tags(self) -> dict[str, str]:
        """The observation's tags: its instrumentor, and ``accounting: aggregate`` for a
        roll-up (see :mod:`autobench.records._run_accounting`)."""
        tags = {"instrumentor": self.instrumentor}
        if self.aggregate:
            tags["accounting"] = "aggregate"
        return tags


def native_observations(trace: Trace) -> Iterator[NativeObservation]:
    """The observations of every native span's usage and model identity (table above), in
    span order."""
    for span in trace.spans:
        if span.scope is None or span.scope in _NOT_NATIVE:
            continue
        if (
            span.kind != "llm"
            and not span.usage
            and not any(key in span.attributes for key in NATIVE_IDENTITY)
        ):
            continue
        yield from _span_observations(span, span.scope)


def _span_observations(span: SpanRecord, instrumentor: str) -> Iterator[NativeObservation]:
    aggregate = (
        span.usage.get("aggregate") is True or span.attributes.get("accounting") == "aggregate"
    )
    for keys, semantic, unit in NATIVE_USAGE:
        for key in keys:
            value = span.usage.get(key)
            if value is not None:
                yield NativeObservation(
                    f"{span.operation}.{key}",
                    value,
                    ObservationKind.METRIC,
                    semantic,
                    span.id,
                    instrumentor,
                    unit=unit,
                    role=ObservationRole.DIAGNOSTIC,
                    direction=Direction.MINIMIZE,
                    aggregate=aggregate,
                )
                break
    if span.kind == "llm":
        for value, semantic, field in (
            (None if span.partial else span.duration, Semantic.TIME_LATENCY, "latency"),
            (span.attributes.get(FIRST_ITEM), Semantic.TIME_FIRST_CHUNK, "first_chunk"),
        ):
            if isinstance(value, int | float) and not isinstance(value, bool):
                yield NativeObservation(
                    f"{span.operation}.{field}",
                    value,
                    ObservationKind.METRIC,
                    semantic,
                    span.id,
                    instrumentor,
                    unit="s",
                    role=ObservationRole.DIAGNOSTIC,
                    direction=Direction.MINIMIZE,
                )
    for semantic in NATIVE_IDENTITY:
        value = span.attributes.get(semantic)
        if value is not None and not isinstance(value, dict | list):
            yield NativeObservation(
                f"{span.operation}.{semantic.rsplit('.', 1)[-1]}",
                value,
                ObservationKind.FACTOR,
                semantic,
                span.id,
                instrumentor,
            )
