"""``UsageExtractor``: accounting-safe LLM request, token, model and provider evidence.

Candidates. Each span's ``usage`` mapping gives one candidate per semantic
(keys: ``input_tokens``/``prompt_tokens``/``request_tokens`` ->
``llm.tokens.input``; ``output_tokens``/``completion_tokens``/
``response_tokens`` -> ``llm.tokens.output``; ``total_tokens``;
``cache_read_tokens``; ``cache_write_tokens``; ``requests`` ->
``llm.request.count``). A span of kind ``llm`` without ``requests`` counts as
one request. Stored measurements whose semantic type is one of these are
candidates too. A candidate has a *layer* (its own, else its scope's:
``client``, ``framework``, ``application`` or ``transport``), a *logical
operation id* (``operation_id``/``logical_operation_id`` attribute or field,
else the span id), an *authority* flag (``authority`` true) and is *direct*
unless marked ``accounting: aggregate`` (or ``aggregate: true``) or its span
has a descendant carrying a direct candidate of the same semantic and layer.

Rules, per semantic type:

1. Aggregate values are never added to direct ones.
2. One layer is used: the first of client, framework, application,
   transport (then any other, alphabetically) that has direct candidates.
3. Direct candidates sharing a logical operation id count once: equal values
   are one value; differing values are settled by the one candidate marked as
   authority; otherwise the operation is left out of the total and an
   ``ambiguous_direct_measurement`` diagnostic names it.
4. The total is the sum over operations (source ``derived``, tags
   ``accounting: direct`` and ``layer``). Without any direct candidate, the
   outermost aggregate values are summed instead (``accounting: aggregate``).
5. Each aggregate value is checked against the direct total of the chosen
   layer within its span's subtree; a difference gives an
   ``aggregate_measurement_mismatch`` diagnostic (the aggregate stays in the
   trace as validation evidence).
6. Model identity stays apart: attributes ``request_model``/
   ``requested_model``/``llm.model.requested`` -> factor
   ``llm.model.requested``; ``response_model``/``llm.model.response`` ->
   ``llm.model.response``; ``model``/``model_name``/``llm.model.name`` ->
   ``llm.model.name``; ``provider``/``provider_name``/``llm.provider`` ->
   ``llm.provider``. One factor per distinct value, in trace order, linked to
   the first span that reported it.

Cost is never derived here (pricing derivation owns it).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from autobench.abp import SpanRecord, Trace
from autobench.records._enums import ObservationKind, ObservationRole
from autobench.records._evidence import Observation
from autobench.records._extraction import (
    ExtractionDiagnostic,
    ExtractionResult,
    derived_observation,
    item_field,
    signal_items,
    span_layer,
)
from autobench.records._records import RunRecord
from autobench.records._semantics import Semantic

LAYER_PRIORITY = ("client", "framework", "application", "transport")
"""Preferred abstraction layers for usage totals, most trusted first."""

_USAGE_KEYS: tuple[tuple[str, tuple[str, ...], str, str], ...] = (
    (Semantic.LLM_REQUEST_COUNT, ("requests",), "requests", "requests"),
    (
        Semantic.LLM_TOKENS_INPUT,
        ("input_tokens", "prompt_tokens", "request_tokens"),
        "input_tokens",
        "tokens",
    ),
    (
        Semantic.LLM_TOKENS_OUTPUT,
        ("output_tokens", "completion_tokens", "response_tokens"),
        "output_tokens",
        "tokens",
    ),
    (Semantic.LLM_TOKENS_TOTAL, ("total_tokens",), "total_tokens", "tokens"),
    (Semantic.LLM_TOKENS_CACHE_READ, ("cache_read_tokens",), "cache_read_tokens", "tokens"),
    (Semantic.LLM_TOKENS_CACHE_WRITE, ("cache_write_tokens",), "cache_write_tokens", "tokens"),
)
_IDENTITY: tuple[tuple[str, tuple[str, ...]], ...] = (
    (Semantic.LLM_MODEL_REQUESTED, ("request_model", "requested_model", "llm.model.requested")),
    (Semantic.LLM_MODEL_RESPONSE, ("response_model", "llm.model.response")),
    (Semantic.LLM_MODEL_NAME, ("model", "model_name", "llm.model.name")),
    (Semantic.LLM_PROVIDER, ("provider", "provider_name", "llm.provider")),
)

_FACTOR_NAMES = {
    Semantic.LLM_MODEL_REQUESTED: "model_requested",
    Semantic.LLM_MODEL_RESPONSE: "model_response",
    Semantic.LLM_MODEL_NAME: "model_name",
    Semantic.LLM_PROVIDER: "provider",
}


@dataclass(frozen=True, slots=True)
class _Candidate:
    semantic: str
    value: float | int
    span_id: str | None
    layer: str
    operation: str
    aggregate: bool
    authority: bool


class UsageExtractor:
    """LLM usage accounting without double counting (rules above); never cost."""

    name = "usage"
    version = "1"

    def extract(self, trace: Trace, run: RunRecord) -> ExtractionResult:
        """Token, request and model identity evidence of ``trace``."""
        candidates = _candidates(trace)
        observations: list[Observation] = []
        diagnostics: list[ExtractionDiagnostic] = []
        parents = {span.id: span.parent for span in trace.spans}
        for semantic, _keys, name, unit in _USAGE_KEYS:
            found = [c for c in candidates if c.semantic == semantic]
            if not found:
                continue
            found = _mark_nested_aggregates(found, parents)
            total, tags, problems = _account(semantic, found, parents)
            diagnostics += problems
            if total is not None:
                observations.append(
                    derived_observation(
                        run,
                        f"usage.{semantic}",
                        name,
                        total,
                        semantic=semantic,
                        unit=unit,
                        role=ObservationRole.DIAGNOSTIC,
                        tags=tags,
                    )
                )
        observations += _identity(trace, run)
        return ExtractionResult(observations=tuple(observations), diagnostics=tuple(diagnostics))


def _number(value: Any) -> float | int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def _candidates(trace: Trace) -> list[_Candidate]:
    found: list[_Candidate] = []
    for span in trace.spans:
        layer = span_layer(trace, span.scope)
        operation = str(
            span.attributes.get("operation_id")
            or span.attributes.get("logical_operation_id")
            or span.tags.get("operation_id")
            or span.id
        )
        aggregate = (
            span.attributes.get("accounting") == "aggregate" or span.usage.get("aggregate") is True
        )
        authority = span.attributes.get("authority") is True
        for semantic, keys, _name, _unit in _USAGE_KEYS:
            value = next(
                (v for key in keys if (v := _number(span.usage.get(key))) is not None), None
            )
            if value is None and semantic == Semantic.LLM_REQUEST_COUNT and span.kind == "llm":
                value = 1
            if value is not None:
                found.append(
                    _Candidate(semantic, value, span.id, layer, operation, aggregate, authority)
                )
        found += _measurement_candidates(trace, span, layer, operation)
    return found


def _measurement_candidates(
    trace: Trace, span: SpanRecord, layer: str, operation: str
) -> list[_Candidate]:
    semantics = {semantic for semantic, *_ in _USAGE_KEYS}
    found: list[_Candidate] = []
    for item in signal_items(span, "measurements"):
        semantic = item_field(item, "semantic", "semantic_type")
        value = _number(item_field(item, "value"))
        if semantic not in semantics or value is None:
            continue
        scope = item_field(item, "scope")
        found.append(
            _Candidate(
                semantic=str(semantic),
                value=value,
                span_id=span.id,
                layer=str(
                    item_field(item, "layer")
                    or (span_layer(trace, scope) if isinstance(scope, str) else layer)
                ),
                operation=str(
                    item_field(item, "operation_id", "logical_operation_id") or operation
                ),
                aggregate=item_field(item, "accounting") == "aggregate"
                or item_field(item, "aggregate") is True,
                authority=item_field(item, "authority") is True,
            )
        )
    return found


def _ancestors(span_id: str | None, parents: dict[str, str | None]) -> list[str]:
    chain: list[str] = []
    current = parents.get(span_id) if span_id is not None else None
    while current is not None and current not in chain:
        chain.append(current)
        current = parents.get(current)
    return chain


def _mark_nested_aggregates(
    found: list[_Candidate], parents: dict[str, str | None]
) -> list[_Candidate]:
    """Candidates whose span has a descendant with a direct candidate of the same layer
    become aggregates (a different layer measuring the same call is not a roll-up)."""
    holders = {
        (ancestor, candidate.layer)
        for candidate in found
        if not candidate.aggregate
        for ancestor in _ancestors(candidate.span_id, parents)
    }
    return [
        _Candidate(c.semantic, c.value, c.span_id, c.layer, c.operation, True, c.authority)
        if not c.aggregate and (c.span_id, c.layer) in holders
        else c
        for c in found
    ]


def _layer_rank(layer: str) -> tuple[int, str]:
    return (
        (LAYER_PRIORITY.index(layer), "")
        if layer in LAYER_PRIORITY
        else (len(LAYER_PRIORITY), layer)
    )


def _account(
    semantic: str, found: list[_Candidate], parents: dict[str, str | None]
) -> tuple[float | int | None, dict[str, str], list[ExtractionDiagnostic]]:
    direct = [c for c in found if not c.aggregate]
    aggregates = [c for c in found if c.aggregate]
    problems: list[ExtractionDiagnostic] = []
    if not direct:
        outer = [
            c
            for c in aggregates
            if not any(a in {o.span_id for o in aggregates} for a in _ancestors(c.span_id, parents))
        ]
        return sum(c.value for c in outer), {"accounting": "aggregate"}, problems
    layer = min((c.layer for c in direct), key=_layer_rank)
    by_operation: dict[str, list[_Candidate]] = defaultdict(list)
    for candidate in direct:
        if candidate.layer == layer:
            by_operation[candidate.operation].append(candidate)
    settled: dict[str, _Candidate] = {}
    for operation, group in by_operation.items():
        values = {c.value for c in group}
        authorities = {c.value for c in group if c.authority}
        if len(values) == 1:
            settled[operation] = group[0]
        elif len(authorities) == 1:
            settled[operation] = next(c for c in group if c.authority)
        else:
            problems.append(
                ExtractionDiagnostic(
                    code="ambiguous_direct_measurement",
                    message=f"operation {operation!r} reports conflicting {semantic} values "
                    f"{sorted(values)} with no single authority; left out of the total",
                    semantic_type=semantic,
                    span_id=group[0].span_id,
                    details={"operation": operation, "values": sorted(values), "layer": layer},
                )
            )
    total = sum(c.value for c in settled.values())
    for aggregate in aggregates:
        inside = [
            c.value
            for c in settled.values()
            if aggregate.span_id is not None
            and (
                c.span_id == aggregate.span_id
                or aggregate.span_id in _ancestors(c.span_id, parents)
            )
        ]
        if inside and sum(inside) != aggregate.value:
            problems.append(
                ExtractionDiagnostic(
                    code="aggregate_measurement_mismatch",
                    message=f"aggregate {semantic} {aggregate.value} differs from the direct "
                    f"total {sum(inside)} beneath it",
                    semantic_type=semantic,
                    span_id=aggregate.span_id,
                    details={"aggregate": aggregate.value, "direct": sum(inside), "layer": layer},
                )
            )
    return total, {"accounting": "direct", "layer": layer}, problems


def _identity(trace: Trace, run: RunRecord) -> list[Observation]:
    observations: list[Observation] = []
    for semantic, keys in _IDENTITY:
        seen: dict[Any, str] = {}
        for span in trace.spans:
            for key in keys:
                value = span.attributes.get(key)
                if value is not None and not isinstance(value, dict | list):
                    seen.setdefault(value, span.id)
                    break
        for index, (value, span_id) in enumerate(seen.items(), start=1):
            observations.append(
                derived_observation(
                    run,
                    f"usage.{semantic}.{index}",
                    _FACTOR_NAMES[semantic],
                    value,
                    kind=ObservationKind.FACTOR,
                    semantic=semantic,
                    span=span_id,
                )
            )
    return observations
