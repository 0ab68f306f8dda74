"""Semantic observations from an external trace: the field mapping of ``attach_trace``.

:func:`trace_to_observations` reads each span of a completed
:class:`~autobench.abp.Trace` and returns observations with source
``imported``, each linked to the span it came from:

==========================================  ====================  ==========================
span field                                  semantic type         observation
==========================================  ====================  ==========================
usage ``input_tokens`` / ``prompt_tokens``  ``llm.tokens.input``  metric, tokens
usage ``output_tokens`` /                   ``llm.tokens.output`` metric, tokens
``completion_tokens``
usage ``total_tokens``                      ``llm.tokens.total``  metric, tokens
attribute ``model`` / ``model_name``        ``llm.model.name``    factor
attribute ``provider`` / ``provider_name``  ``llm.provider``      factor
attribute ``server.address`` /              ``server.address``    factor
``server_address``
``duration`` (completed spans)              ``time.latency``      metric, s
status ``error`` (with ``error``)           (none)                event ``<operation>.error``
``measurements`` with a semantic type       its own               metric, its unit
==========================================  ====================  ==========================

A measurement keeps its provenance in the tags (``layer``, ``operation_id``,
``accounting``, ``scope``), so run totals count it by the same rules as live
evidence.

The first key present wins (``input_tokens`` before ``prompt_tokens``).
Metrics have role ``diagnostic`` and direction ``minimize``; names are
``<operation>.<field>`` (``llm_call.input_tokens``, ``llm_call.latency``).
Finally one ``result.success`` metric (role ``diagnostic``) says whether the
imported trace ended well: true when no span ended in ``error`` or
``cancelled`` and none is partial. It links to the trace's only root span,
or to no span when the trace has several roots. Cost is never computed here;
pricing derivation owns it.
"""

from __future__ import annotations

from typing import Any

from autobench.abp import SpanRecord, SpanStatus, Trace
from autobench.records._enums import Direction, ObservationKind, ObservationRole, ObservationSource
from autobench.records._evidence import Observation
from autobench.records._extraction import item_field, measurement_tags, signal_items
from autobench.records._semantics import Semantic

USAGE_FIELDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("input_tokens", "prompt_tokens"), Semantic.LLM_TOKENS_INPUT),
    (("output_tokens", "completion_tokens"), Semantic.LLM_TOKENS_OUTPUT),
    (("total_tokens",), Semantic.LLM_TOKENS_TOTAL),
)
"""Usage keys (first present wins) -> token semantic type."""

IDENTITY_FIELDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("model", "model_name"), Semantic.LLM_MODEL_NAME),
    (("provider", "provider_name"), Semantic.LLM_PROVIDER),
    (("server.address", "server_address"), Semantic.SERVER_ADDRESS),
)
"""Attribute keys (first present wins) -> model identity factor."""


def first_present(values: Any, keys: tuple[str, ...]) -> tuple[str, Any] | None:
    """``(key, value)`` of the first of ``keys`` with a non-``None`` value in the mapping."""
    if not isinstance(values, dict):
        return None
    for key in keys:
        value = values.get(key)
        if value is not None:
            return key, value
    return None


def trace_to_observations(
    trace: Trace, *, case_id: str | None = None, variant_id: str | None = None
) -> tuple[Observation, ...]:
    """Observations (source ``imported``) for ``trace`` by the mapping of the module docstring.

    Ids are ``imported.<n>`` in order; ``case_id``/``variant_id`` are set on every one.
    """
    items: list[dict[str, Any]] = []
    for span in trace.spans:
        items.extend(_span_items(trace, span))
    roots = trace.root_spans
    items.append(
        {
            "name": "success",
            "value": _succeeded(trace),
            "semantic": Semantic.RESULT_SUCCESS,
            "unit": "boolean",
            "role": ObservationRole.DIAGNOSTIC,
            "span": roots[0].id if len(roots) == 1 else None,
        }
    )
    return tuple(
        Observation.model_validate(
            {
                "id": f"imported.{index}",
                "source": ObservationSource.IMPORTED,
                "case": case_id,
                "variant": variant_id,
                **item,
            }
        )
        for index, item in enumerate(items, start=1)
    )


def _span_items(trace: Trace, span: SpanRecord) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for keys, semantic in USAGE_FIELDS:
        found = first_present(span.usage, keys)
        if found is not None:
            items.append(_metric(span, found[0], found[1], semantic, "tokens"))
    for keys, semantic in IDENTITY_FIELDS:
        found = first_present(span.attributes, keys)
        if found is not None:
            items.append(
                {
                    "name": f"{span.operation}.{found[0]}",
                    "kind": ObservationKind.FACTOR,
                    "value": found[1],
                    "semantic": semantic,
                    "span": span.id,
                }
            )
    for item in signal_items(span, "measurements"):
        semantic = item_field(item, "semantic", "semantic_type")
        if semantic is None:
            continue
        items.append(
            {
                "name": f"{span.operation}.{item_field(item, 'name') or semantic}",
                "value": item_field(item, "value"),
                "unit": item_field(item, "unit"),
                "semantic": semantic,
                "role": ObservationRole.DIAGNOSTIC,
                "span": span.id,
                "tags": measurement_tags(trace, item, span.scope),
            }
        )
    if span.duration is not None and not span.partial:
        items.append(_metric(span, "latency", span.duration, Semantic.TIME_LATENCY, "s"))
    if span.status == SpanStatus.ERROR:
        items.append(
            {
                "name": f"{span.operation}.error",
                "kind": ObservationKind.EVENT,
                "value": span.error.type if span.error is not None else "error",
                "reason": span.error.message if span.error is not None else None,
                "span": span.id,
            }
        )
    return items


def _metric(span: SpanRecord, field: str, value: Any, semantic: str, unit: str) -> dict[str, Any]:
    return {
        "name": f"{span.operation}.{field}",
        "value": value,
        "unit": unit,
        "semantic": semantic,
        "role": ObservationRole.DIAGNOSTIC,
        "direction": Direction.MINIMIZE,
        "span": span.id,
    }


def _succeeded(trace: Trace) -> bool:
    return not any(span.partial or span.status != SpanStatus.OK for span in trace.spans)
