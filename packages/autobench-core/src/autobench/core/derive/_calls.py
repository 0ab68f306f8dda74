"""Group a run's LLM usage observations into calls.

Which token observations count: for each token type, those the run's total of
that type counts (``autobench.records._run_accounting``, the direct pool: task
observations and imported evidence): one per operation, at the preferred layer;
roll-ups (a run-level usage above per-call usage) and other layers measuring the
same calls are left out, so the priced calls are exactly the counted tokens.
Observations the total leaves out as conflicting or not usable numbers stay in,
for the deriver to report.

Rule: the counted token observations (input, output, cache read or cache
write) of one logical operation are one LLM call: those sharing an
``operation_id``, else those of one span; token observations linked to no span
and no operation form one call together. A call's model, provider and server address are the
values observed in its span (that of its first token observation), else in the
nearest ancestor span that has one (through the trace's parent links), else
those observed outside any span, else the variant's factors declaring that
semantic type. Semantic types are matched exactly after alias normalisation
(``llm.tokens.cache_read`` is a child of ``llm.tokens.input`` but is never read
as input). Derived observations and diagnostics are not inputs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from autobench.abp import InstrumentationScope, SpanRecord
from autobench.records import (
    Observation,
    ObservationKind,
    SemanticRegistry,
    SpanIndex,
    Variant,
    is_summary,
    pool_of,
    pool_total,
)

TOKEN_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
IDENTITY_FIELDS = ("model", "model_response", "model_requested", "provider", "server_address")


@dataclass(slots=True)
class CallEvidence:
    """The observations of one call: token observations by field, and the model and
    provider values that apply to it (each may hold several conflicting values)."""

    span_id: str | None
    tokens: dict[str, list[Observation]] = field(default_factory=dict)
    identity: dict[str, list[object]] = field(default_factory=dict)


def _is_input(observation: Observation) -> bool:
    return (
        observation.semantic_type is not None
        and pool_of(observation) == "direct"
        and observation.kind not in (ObservationKind.DIAGNOSTIC, ObservationKind.ARTIFACT)
        and not is_summary(observation)
    )


def counted_tokens(
    observations: Sequence[Observation],
    semantic: str,
    registry: SemanticRegistry,
    index: SpanIndex,
) -> dict[str, str | None]:
    """The observations of token type ``semantic`` that pricing reads (module rule): their
    ids, each with the key of the call it belongs to."""
    found = [
        o
        for o in observations
        if _is_input(o)
        and o.kind is ObservationKind.METRIC
        and registry.normalize(o.semantic_type or "") == semantic
    ]
    if not found:
        return {}
    total = pool_total(semantic, "direct", found, registry, index)
    keys: dict[str, str | None] = {}
    for observation in (*total.counted, *total.conflicting, *total.skipped):
        operation = total.operation_of(observation)
        named = operation is not None and not operation.startswith(("span:", "observation:"))
        keys[observation.id] = operation if named else observation.span_id
    return keys


def group_calls(
    observations: Sequence[Observation],
    spans: Sequence[SpanRecord],
    variant: Variant,
    semantics: Mapping[str, str],
    registry: SemanticRegistry,
    scopes: Mapping[str, InstrumentationScope] | None = None,
) -> tuple[list[CallEvidence], bool]:
    """The calls of a run (in order of their first token observation) and whether any
    model or provider was observed at all. ``semantics`` maps each field of
    :data:`TOKEN_FIELDS` and :data:`IDENTITY_FIELDS` to its semantic type; ``scopes``
    (the trace's, by scope key) give the spans' layers."""
    by_type = {registry.normalize(semantic): name for name, semantic in semantics.items()}
    index = SpanIndex.of(spans=spans, scopes=scopes)
    counted: dict[str, str | None] = {}
    for semantic, field_name in by_type.items():
        if field_name in TOKEN_FIELDS:
            counted.update(counted_tokens(observations, semantic, registry, index))
    calls: dict[str | None, CallEvidence] = {}
    identity: dict[tuple[str, str | None], list[object]] = {}
    for observation in observations:
        if not _is_input(observation):
            continue
        assert observation.semantic_type is not None
        name = by_type.get(registry.normalize(observation.semantic_type))
        if name in TOKEN_FIELDS:
            if observation.id not in counted:
                continue
            key = counted[observation.id]
            call = calls.setdefault(key, CallEvidence(observation.span_id))
            call.tokens.setdefault(name, []).append(observation)
        elif name in IDENTITY_FIELDS:
            identity.setdefault((name, observation.span_id), []).append(observation.value)
    factors: dict[str, list[object]] = {}
    for factor in variant.factors:
        if factor.semantic_type is not None:
            name = by_type.get(registry.normalize(factor.semantic_type))
            if name in IDENTITY_FIELDS:
                factors.setdefault(name, []).append(factor.value)
    parents = {span.id: span.parent for span in spans}
    for call in calls.values():
        for name in IDENTITY_FIELDS:
            values = _inherited(name, call.span_id, identity, parents) or factors.get(name, [])
            call.identity[name] = _distinct(values)
    return list(calls.values()), bool(identity) or bool(factors)


def _inherited(
    name: str,
    span_id: str | None,
    identity: Mapping[tuple[str, str | None], list[object]],
    parents: Mapping[str, str | None],
) -> list[object]:
    seen: set[str] = set()
    current = span_id
    while current is not None and current not in seen:
        seen.add(current)
        if (values := identity.get((name, current))) is not None:
            return values
        current = parents.get(current)
    return identity.get((name, None), [])


def _distinct(values: Sequence[object]) -> list[object]:
    distinct: list[object] = []
    for value in values:
        if value not in distinct:
            distinct.append(value)
    return distinct
