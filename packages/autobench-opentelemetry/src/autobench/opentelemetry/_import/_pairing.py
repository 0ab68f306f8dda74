"""Pairing an imported GenAI client span with the native span of the same request.

An application's OpenTelemetry instrumentation of a provider SDK (``openai-v2``, which
emits under the generic scope ``opentelemetry.util.genai.handler`` since 2.x, or any
tracer an application names itself) and Autobench's native instrumentor of that SDK
measure the same request twice. The scope name says nothing reliable about that, so the
pairing reads the call itself: an imported model-request span (kind ``llm``) of the
client layer is paired with a native span (a scope not imported from OpenTelemetry) of
kind ``llm`` that

* is its ABP parent and still open when it ends (the native wrapper is the outer one), or
  is its ABP child that started after it (the native wrapper is the inner one): one
  encloses the other in time;
* names the same operation: the native ``llm.operation`` when it has one, else the
  embeddings/other split read from its operation name;
* names the same model: ``llm.model.requested`` (else ``llm.model.response``) when both
  spans name one.

The native span then wins: the imported usage becomes validation evidence (see
``_processor``). Spans are read from the run's collector: the parent by id, the children
among the spans started after the imported one (newest first, so the search stops at it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from autobench.abp import ActiveSpan
from autobench.opentelemetry._import._scopes import SCOPE_PREFIX

MODEL_KEYS = ("llm.model.requested", "llm.model.response")
OPERATION = "llm.operation"


def paired_native(
    handle: ActiveSpan, parent: ActiveSpan | None, attributes: Mapping[str, Any]
) -> tuple[str, str] | None:
    """``(scope name, span id)`` of the native span of the request the imported span
    ``handle`` measured (it ended with the mapped ``attributes``; ``parent`` is the ABP span
    it was opened under), or ``None``.

    ``handle`` must be of kind ``llm``; the caller checks its layer is ``client``. The
    search reads only the spans started since ``handle`` (its children), and back to
    ``parent`` when that is a model request still open.
    """
    collector = handle.collector
    starts = collector._starts
    handle_id = handle.id
    parent_id: str | None = None
    if (
        parent is not None
        and parent.kind == "llm"
        and not parent._ended
        and parent.id == handle.parent_id
    ):
        parent_id = parent.id
    elif not starts or starts[-1][0] == handle_id:
        return None  # no child, and no parent that can be the same request
    ends = collector._ends
    origin = collector.origin_ns
    first = parent if parent_id is not None and parent is not None else handle
    until = (first.start_ns - origin) / 1e9
    for index in range(len(starts) - 1, -1, -1):
        start = starts[index]
        if start[6] < until:
            return None
        span_id = start[0]
        if span_id == handle_id:
            if parent_id is None:
                return None
        elif span_id == parent_id:
            return _native(start, None, attributes)
        elif start[1] == handle_id:
            found = _native(start, ends.get(span_id), attributes)
            if found is not None:
                return found
    return None


def _native(start: Any, end: Any, attributes: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(scope, id)`` of the stored span (``start`` and, if it ended, ``end`` raw tuples or
    signals) when it is a native model request matching ``attributes``."""
    span_id, _, operation, kind, scope = start[0], start[1], start[2], start[3], start[4]
    if kind != "llm" or not isinstance(scope, str) or scope.startswith(SCOPE_PREFIX):
        return None
    facts: dict[str, Any] = dict(start[8] or {})
    if end is not None and end[4]:
        facts.update(end[4])
    if not _same_operation(str(operation), facts.get(OPERATION), attributes.get(OPERATION)):
        return None
    if not _same_model(facts, attributes):
        return None
    return scope, span_id


def _same_operation(native_name: str, native: Any, imported: Any) -> bool:
    """Whether a native span named ``native_name`` (its ``llm.operation`` ``native``) and an
    imported span of operation ``imported`` can be the same request."""
    if imported is None:
        return True
    if native is not None:
        return str(native) == str(imported)
    return ("embed" in native_name.lower()) == (str(imported) == "embeddings")


def _same_model(native: Mapping[str, Any], imported: Mapping[str, Any]) -> bool:
    """Whether both spans name the same model (requested, else response), or one names none."""
    for key in MODEL_KEYS:
        first, second = native.get(key), imported.get(key)
        if first is not None and second is not None:
            return str(first) == str(second)
    return True
