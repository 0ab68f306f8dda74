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
A span with the attribute ``accounting.nested_run: true`` holds the roll-up of a
run nested in another, which the roll-ups around it may or may not include
(rule 5 of the accounting rules).

Totals follow the accounting rules of :mod:`autobench.records._accounting`
(aggregates never added to direct values, one layer, each operation once,
``ambiguous_direct_measurement`` and ``aggregate_measurement_mismatch``
diagnostics). Each total is an accounting summary: source ``derived``, tags
``accounting: summary``, ``basis`` (``direct``, or ``aggregate`` when the
trace has only roll-ups), ``layer`` and ``operations``.

Model identity stays apart: attributes ``request_model``/``requested_model``/
``llm.model.requested`` -> factor ``llm.model.requested``; ``response_model``/
``llm.model.response`` -> ``llm.model.response``; ``model``/``model_name``/
``llm.model.name`` -> ``llm.model.name``; ``provider``/``provider_name``/
``llm.provider`` -> ``llm.provider``; ``server.address``/``server_address`` ->
``server.address``. One factor per distinct value, in trace
order, linked to the first span that reported it.

Cost is never derived here (pricing derivation owns it).
"""

from __future__ import annotations

from typing import Any

from autobench.abp import NESTED_RUN, SpanRecord, Trace
from autobench.records._accounting import LAYER_PRIORITY, Candidate, account
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

__all__ = ["LAYER_PRIORITY", "UsageExtractor"]

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
    (Semantic.SERVER_ADDRESS, ("server.address", "server_address")),
)

_FACTOR_NAMES = {
    Semantic.LLM_MODEL_REQUESTED: "model_requested",
    Semantic.LLM_MODEL_RESPONSE: "model_response",
    Semantic.LLM_MODEL_NAME: "model_name",
    Semantic.LLM_PROVIDER: "provider",
    Semantic.SERVER_ADDRESS: "server_address",
}


class UsageExtractor:
    """LLM usage accounting without double counting (rules above); never cost."""

    name = "usage"
    version = "3"

    def extract(self, trace: Trace, run: RunRecord) -> ExtractionResult:
        """Token, request and model identity evidence of ``trace``."""
        candidates = _candidates(trace)
        observations: list[Observation] = []
        diagnostics: list[ExtractionDiagnostic] = []
        parents = {span.id: span.parent for span in trace.spans}
        for semantic, _keys, name, unit in _USAGE_KEYS:
            found = candidates.get(semantic)
            if not found:
                continue
            accounted = account(semantic, found, parents)
            diagnostics += [
                ExtractionDiagnostic(
                    code=problem.code,
                    message=problem.message,
                    semantic_type=semantic,
                    span_id=problem.span_id,
                    details=dict(problem.details),
                )
                for problem in accounted.problems
            ]
            if accounted.value is not None:
                observations.append(
                    derived_observation(
                        run,
                        f"usage.{semantic}",
                        name,
                        accounted.value,
                        semantic=semantic,
                        unit=unit,
                        role=ObservationRole.DIAGNOSTIC,
                        tags={
                            "accounting": "summary",
                            "basis": accounted.basis,
                            "layer": str(accounted.layer),
                            "operations": str(accounted.operations),
                        },
                    )
                )
        observations += _identity(trace, run)
        return ExtractionResult(observations=tuple(observations), diagnostics=tuple(diagnostics))


def _number(value: Any) -> float | int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def _candidates(trace: Trace) -> dict[str, list[Candidate]]:
    found: dict[str, list[Candidate]] = {}
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
        nested = span.attributes.get(NESTED_RUN) is True
        for semantic, keys, _name, _unit in _USAGE_KEYS:
            value = next(
                (v for key in keys if (v := _number(span.usage.get(key))) is not None), None
            )
            if value is None and semantic == Semantic.LLM_REQUEST_COUNT and span.kind == "llm":
                value = 1
            if value is not None:
                found.setdefault(semantic, []).append(
                    Candidate(value, span.id, layer, operation, aggregate, authority, nested=nested)
                )
        for semantic, candidate in _measurement_candidates(trace, span, layer, operation):
            found.setdefault(semantic, []).append(candidate)
    return found


def _measurement_candidates(
    trace: Trace, span: SpanRecord, layer: str, operation: str
) -> list[tuple[str, Candidate]]:
    semantics = {semantic for semantic, *_ in _USAGE_KEYS}
    found: list[tuple[str, Candidate]] = []
    for item in signal_items(span, "measurements"):
        semantic = item_field(item, "semantic", "semantic_type")
        value = _number(item_field(item, "value"))
        if semantic not in semantics or value is None:
            continue
        scope = item_field(item, "scope")
        candidate = Candidate(
            value=value,
            span_id=span.id,
            layer=str(
                item_field(item, "layer")
                or (span_layer(trace, scope) if isinstance(scope, str) else layer)
            ),
            operation=str(item_field(item, "operation_id", "logical_operation_id") or operation),
            aggregate=item_field(item, "accounting") == "aggregate"
            or item_field(item, "aggregate") is True,
            authority=item_field(item, "authority") is True,
        )
        found.append((str(semantic), candidate))
    return found


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
