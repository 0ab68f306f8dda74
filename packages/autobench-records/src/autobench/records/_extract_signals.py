"""``SignalExtractor``: observations rebuilt from the measurements and events stored in a trace.

Rules (items are read by field name, from spans and from the trace itself):

* every item of ``measurements`` becomes a ``metric`` observation with role
  ``diagnostic``: ``name`` (else its semantic type), ``value``, ``unit`` and
  ``semantic``/``semantic_type``, linked to its span;
* every item of ``events`` becomes an ``event`` observation (``name``, its
  ``value`` or else its ``attributes``, ``semantic``), linked to its span;
* provenance is kept in the tags: ``scope`` (the item's, else its span's),
  ``layer`` (the item's, else its scope's), ``operation_id``
  (``operation_id``/``logical_operation_id``), ``accounting``
  (``accounting``, or ``aggregate`` when the item says ``aggregate: true``)
  and ``instrumentor`` (the scope's instrumentor name).

A trace without measurements or events yields nothing. Ids are
``signal.<n>`` in trace order. Sums and de-duplication are left to
:class:`~autobench.records.UsageExtractor`: this extractor reproduces each
fact once, as recorded.
"""

from __future__ import annotations

from typing import Any

from autobench.abp import Trace
from autobench.records._enums import ObservationKind, ObservationRole
from autobench.records._evidence import Observation
from autobench.records._extraction import (
    EvidenceReference,
    ExtractionResult,
    derived_observation,
    item_field,
    measurement_tags,
    signal_items,
)
from autobench.records._records import RunRecord


class SignalExtractor:
    """Reconstructs measurement and event observations with their provenance (rules above)."""

    name = "signal"
    version = "1"

    def extract(self, trace: Trace, run: RunRecord) -> ExtractionResult:
        """Observations for every stored measurement and event of ``trace``."""
        owners: list[tuple[Any, str | None, str | None]] = [(trace, None, None)]
        owners += [(span, span.id, span.scope) for span in trace.spans]
        observations: list[Observation] = []
        references: list[EvidenceReference] = []
        for owner, span_id, scope in owners:
            for field, kind in (("measurements", ObservationKind.METRIC), ("events", "event")):
                for item in signal_items(owner, field):
                    index = len(observations) + 1
                    observations.append(_observation(run, trace, item, kind, index, span_id, scope))
                    item_id = item_field(item, "id")
                    if item_id is not None:
                        references.append(
                            EvidenceReference(kind=field[:-1], id=str(item_id), span_id=span_id)
                        )
        return ExtractionResult(observations=tuple(observations), references=tuple(references))


def _observation(
    run: RunRecord,
    trace: Trace,
    item: Any,
    kind: str,
    index: int,
    span_id: str | None,
    span_scope: str | None,
) -> Observation:
    semantic = item_field(item, "semantic", "semantic_type")
    name = item_field(item, "name", "operation") or semantic or f"signal_{index}"
    fields: dict[str, Any] = {
        "kind": kind,
        "semantic": semantic,
        "span": span_id,
        "tags": measurement_tags(trace, item, span_scope),
    }
    if kind == ObservationKind.METRIC:
        fields.update(unit=item_field(item, "unit"), role=ObservationRole.DIAGNOSTIC)
        value = item_field(item, "value")
    else:
        value = item_field(item, "value", "attributes")
    return derived_observation(run, f"signal.{index}", str(name), value, **fields)
