"""Trace extraction: the :class:`TraceExtractor` interface, its result and composition.

An extractor turns a completed, immutable ABP trace (plus the run record it
belongs to, for context) into semantic observations, diagnostics and evidence
references. It works on recorded evidence only: it never imports a task, a
provider SDK or the core runtime, and never changes the trace or the run.

Every extractor has a stable ``name`` and ``version``. Each observation it
returns carries the tags ``extractor`` and ``extractor_version`` (added by
:func:`owned`), which is how extraction replay knows which observations a
newer version of the same extractor replaces.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic import ConfigDict, Field

from autobench.abp import Trace
from autobench.records._base import RecordModel
from autobench.records._enums import ObservationSource
from autobench.records._evidence import Observation
from autobench.records._records import RunRecord


class ExtractionDiagnostic(RecordModel):
    """Something an extractor noticed but could not turn into trustworthy evidence.

    ``code`` is stable (``ambiguous_direct_measurement``,
    ``aggregate_measurement_mismatch``, ``invalid_clock_evidence``,
    ``partial_trace``, ``missing_trace``); ``extractor`` names who reported it.
    """

    model_config = ConfigDict(defer_build=True)

    code: str
    message: str
    extractor: str | None = None
    span_id: str | None = Field(default=None, alias="span")
    semantic_type: str | None = Field(default=None, alias="semantic")
    details: dict[str, Any] = Field(default_factory=dict)


class EvidenceReference(RecordModel):
    """A pointer from extracted evidence back into the trace (a span, a measurement, ...)."""

    model_config = ConfigDict(defer_build=True)

    kind: str
    id: str
    span_id: str | None = Field(default=None, alias="span")
    extractor: str | None = None
    description: str | None = None


class ExtractionResult(RecordModel):
    """What one extractor produced for one trace."""

    model_config = ConfigDict(defer_build=True)

    observations: tuple[Observation, ...] = ()
    diagnostics: tuple[ExtractionDiagnostic, ...] = ()
    references: tuple[EvidenceReference, ...] = ()

    def __add__(self, other: ExtractionResult) -> ExtractionResult:
        return ExtractionResult(
            observations=self.observations + other.observations,
            diagnostics=self.diagnostics + other.diagnostics,
            references=self.references + other.references,
        )


@runtime_checkable
class TraceExtractor(Protocol):
    """The extractor interface: a stable ``name`` and ``version`` and a pure ``extract``."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    def extract(self, trace: Trace, run: RunRecord) -> ExtractionResult:
        """Evidence found in ``trace`` (of ``run``); must not mutate either."""
        ...


def components(extractor: TraceExtractor) -> tuple[TraceExtractor, ...]:
    """The leaf extractors of ``extractor``: itself, or a composite's parts flattened."""
    if isinstance(extractor, CompositeExtractor):
        return extractor.extractors
    return (extractor,)


class CompositeExtractor:
    """Runs several extractors as one versioned replay processor.

    The results are concatenated in the given order. ``version`` is derived
    from the parts (``name@version`` joined by ``+``), so a composite whose
    parts change is a new version. Nested composites are flattened. Raises
    ``ValueError`` when two parts share a name.
    """

    def __init__(self, *extractors: TraceExtractor, name: str = "composite") -> None:
        flat = tuple(part for extractor in extractors for part in components(extractor))
        names = [part.name for part in flat]
        if len(names) != len(set(names)):
            raise ValueError(f"a composite extractor repeats extractor names: {names}")
        self.extractors = flat
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    @property
    def version(self) -> str:
        return "+".join(f"{part.name}@{part.version}" for part in self.extractors)

    def extract(self, trace: Trace, run: RunRecord) -> ExtractionResult:
        """The concatenated results of every part (each part's observations tagged as owned
        by that part)."""
        result = ExtractionResult()
        for part in self.extractors:
            result += owned(part, part.extract(trace, run))
        return result

    def __repr__(self) -> str:
        return f"CompositeExtractor({self.version})"


def owned(extractor: TraceExtractor, result: ExtractionResult) -> ExtractionResult:
    """``result`` with every observation tagged ``extractor``/``extractor_version`` (unless
    already tagged) and every diagnostic and reference naming the extractor."""
    observations = tuple(
        observation
        if "extractor" in observation.tags
        else observation.model_copy(
            update={
                "tags": {
                    **observation.tags,
                    "extractor": extractor.name,
                    "extractor_version": extractor.version,
                }
            }
        )
        for observation in result.observations
    )
    diagnostics = tuple(
        item if item.extractor else item.model_copy(update={"extractor": extractor.name})
        for item in result.diagnostics
    )
    references = tuple(
        item if item.extractor else item.model_copy(update={"extractor": extractor.name})
        for item in result.references
    )
    return ExtractionResult(
        observations=observations, diagnostics=diagnostics, references=references
    )


def derived_observation(
    run: RunRecord, observation_id: str, name: str, value: Any, **fields: Any
) -> Observation:
    """An observation with source ``derived`` for ``run`` (its case and variant set).

    ``fields`` are further :class:`Observation` fields by their YAML names
    (``semantic``, ``unit``, ``kind``, ``span``, ``role``, ``tags``, ...).
    """
    return Observation.model_validate(
        {
            "id": observation_id,
            "name": name,
            "value": value,
            "source": ObservationSource.DERIVED,
            "case": run.case_id,
            "variant": run.variant_id,
            **fields,
        }
    )


def item_field(item: Any, *names: str) -> Any:
    """The first non-``None`` field of ``names`` on a signal item (a model or a mapping).

    Signal items (measurements, events, ...) are read defensively by name, so
    extractors keep working when the protocol adds fields to them.
    """
    for name in names:
        value = item.get(name) if isinstance(item, Mapping) else getattr(item, name, None)
        if value is not None:
            return value
    extra = getattr(item, "model_extra", None)
    if isinstance(extra, Mapping):
        for name in names:
            if extra.get(name) is not None:
                return extra[name]
    return None


def signal_items(owner: Any, field: str) -> Sequence[Any]:
    """The items of the signal field ``field`` (``measurements``, ``events``, ...) of a
    span or trace: a declared field or an unknown field kept by the model; ``()`` if none."""
    value = item_field(owner, field)
    if isinstance(value, Iterable) and not isinstance(value, str | bytes | Mapping):
        return tuple(value)
    return ()


def span_layer(trace: Trace, scope_key: str | None) -> str:
    """The abstraction layer (``client``, ``framework``, ``application``, ``transport``) of
    the scope ``scope_key`` in ``trace``; ``application`` when the scope is unknown."""
    scope = trace.scopes.get(scope_key) if scope_key is not None else None
    return scope.layer if scope is not None else "application"


def semantic_tag(value: str) -> str:
    """``value`` as a segment of an observation id (dots kept, other separators ``_``)."""
    return "".join(char if char.isalnum() or char in "._-" else "_" for char in value)


def measurement_tags(trace: Trace, item: Any, span_scope: str | None) -> dict[str, str]:
    """The provenance tags of a stored measurement or event: ``scope`` and ``instrumentor``
    (the item's scope, else its span's), ``layer`` (the item's, else its scope's),
    ``operation_id`` and ``accounting`` (``aggregate`` when the item says ``aggregate: true``);
    absent values are left out."""
    scope = item_field(item, "scope", "instrumentor") or span_scope
    if isinstance(scope, dict):
        scope = scope.get("name") or scope.get("instrumentor_name")
    aggregate = item_field(item, "aggregate")
    tags = {
        "scope": scope,
        "layer": item_field(item, "layer") or span_layer(trace, scope),
        "operation_id": item_field(item, "operation_id", "logical_operation_id"),
        "accounting": item_field(item, "accounting") or ("aggregate" if aggregate else None),
        "instrumentor": scope,
    }
    return {key: str(value) for key, value in tags.items() if value is not None}
