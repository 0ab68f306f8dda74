"""Evidence models: cases, variants and factors, observations, scores, errors, artifacts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field, field_validator, model_serializer, model_validator

from autobench.records._base import RecordModel
from autobench.records._enums import Direction, ObservationKind, ObservationRole, ObservationSource
from autobench.records._semantics import SemanticType


class ArtifactRef(RecordModel):
    """A reference to an artifact payload stored outside the run record.

    ``path`` is relative to the experiment directory (``artifacts/<run>/<file>``)
    once recorded, and ``None`` before. ``size`` is in bytes, ``sha256`` the hex
    digest of the stored payload bytes.
    """

    id: str
    name: str
    media_type: str = Field(default="application/x-yaml", alias="media")
    path: str | None = None
    tags: dict[str, str] = Field(default_factory=dict)
    span_id: str | None = Field(default=None, alias="span")
    size: int | None = None
    sha256: str | None = None


class Case(RecordModel):
    """One benchmark input: a stable id, input and expected payloads, metadata and tags.

    ``input`` and ``expected`` may hold any JSON-like value. Tags keep their
    first-seen order and are de-duplicated.
    """

    id: str = Field(min_length=1)
    input: Any = None
    expected: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    tags: tuple[str, ...] = ()
    attachments: tuple[ArtifactRef, ...] = ()

    @field_validator("tags", mode="before")
    @classmethod
    def _dedupe_tags(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return tuple(dict.fromkeys(value)) if value else ()
        return value


_FACTOR_KEYS = frozenset({"value", "semantic", "semantic_type", "optimize", "description", "text"})


class FactorValue(RecordModel):
    """One named factor of a variant: its runtime value, meaning and optimisation hint.

    ``text`` is the value as it was written in the spec, kept when YAML reads that text
    as a number which does not give it back (``2.10`` read as 2.1, ``007`` as 7); ``None``
    otherwise. The task sees ``value``; the record keeps both.
    """

    name: str = Field(min_length=1)
    value: Any = None
    semantic_type: SemanticType | None = Field(default=None, alias="semantic")
    optimize: bool = False
    description: str | None = None
    text: str | None = None

    @property
    def is_bare(self) -> bool:
        """Whether the factor carries nothing but its value (written as ``name: value``)."""
        return (
            self.semantic_type is None
            and not self.optimize
            and self.description is None
            and self.text is None
        )


def _is_structured_factor(value: Any) -> bool:
    if isinstance(value, str | int | float | bool | None):  # the usual bare values, no ABC check
        return False
    return isinstance(value, Mapping) and "value" in value and set(value) <= _FACTOR_KEYS


def factors_from_mapping(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Turn the mapping form ``{name: value | {value, semantic, optimize}}`` into factor dicts.

    A mapping counts as the structured form only when it has a ``value`` key
    and no keys besides ``value``, ``semantic``, ``optimize`` and
    ``description``; any other value, mappings included, is a bare value.
    """
    factors: list[dict[str, Any]] = []
    for name, raw in data.items():
        if _is_structured_factor(raw):
            factors.append({"name": name, **raw})
        else:
            factors.append({"name": name, "value": raw})
    return factors


class Variant(RecordModel):
    """A named set of factors: one experimental condition.

    ``factors`` accepts a list of :class:`FactorValue` (or dicts) or the
    mapping form used in YAML; it is written back in the mapping form. Raises
    ``ValueError`` when two factors share a name.
    """

    id: str = Field(min_length=1)
    label: str | None = None
    description: str | None = None
    factors: tuple[FactorValue, ...] = ()

    @field_validator("factors", mode="before")
    @classmethod
    def _factor_forms(cls, value: Any) -> Any:
        if isinstance(value, dict | Mapping):  # dict first: no ABC check for JSON and YAML
            return factors_from_mapping(value)
        return value

    @model_validator(mode="after")
    def _unique_factor_names(self) -> Variant:
        if len(self.factors) < 2:
            return self
        names = [factor.name for factor in self.factors]
        if len(names) != len(set(names)):
            duplicates = sorted({name for name in names if names.count(name) > 1})
            raise ValueError(f"variant {self.id!r} repeats factor names: {', '.join(duplicates)}")
        return self

    @model_serializer(mode="wrap")
    def _serialize(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and "factors" in data:
            factors: dict[str, Any] = {}
            for factor, dumped in zip(self.factors, data["factors"], strict=True):
                dumped = dict(dumped)
                dumped.pop("name", None)
                if factor.is_bare and not _is_structured_factor(factor.value):
                    factors[factor.name] = dumped.get("value")
                else:
                    dumped.setdefault("value", None)
                    factors[factor.name] = dumped
            data["factors"] = factors
        return data

    def factor(self, name: str) -> Any:
        """The value of factor ``name``; raises ``KeyError`` when the variant has none."""
        for factor in self.factors:
            if factor.name == name:
                return factor.value
        raise KeyError(f"variant {self.id!r} has no factor {name!r}")

    @property
    def factor_values(self) -> dict[str, Any]:
        """``{name: value}`` for every factor, in declaration order."""
        return {factor.name: factor.value for factor in self.factors}


class Observation(RecordModel):
    """The atomic unit of evidence: one named, typed value seen during a run.

    ``kind`` is metric, factor, event, diagnostic or artifact; ``role`` and
    ``direction`` only apply to metrics (a factor, event or artifact declaring a
    direction raises ``ValueError``). ``unit`` is free text such as ``s``,
    ``ms``, ``tokens`` or ``usd``. ``span_id`` links the observation to the
    span it was recorded in.
    """

    id: str
    name: str
    kind: ObservationKind = ObservationKind.METRIC
    value: Any = None
    unit: str | None = None
    semantic_type: SemanticType | None = Field(default=None, alias="semantic")
    direction: Direction | None = None
    role: ObservationRole | None = None
    source: ObservationSource = ObservationSource.TASK_OBSERVATION
    span_id: str | None = Field(default=None, alias="span")
    reason: str | None = None
    tags: dict[str, str] = Field(default_factory=dict)
    case_id: str | None = Field(default=None, alias="case")
    variant_id: str | None = Field(default=None, alias="variant")

    @model_validator(mode="after")
    def _direction_only_for_outcomes(self) -> Observation:
        if self.direction is not None and self.kind in (
            ObservationKind.FACTOR,
            ObservationKind.EVENT,
            ObservationKind.ARTIFACT,
        ):
            raise ValueError(
                f"a {self.kind.value} observation cannot declare an optimisation direction"
            )
        return self


_OBSERVATION_FIELDS = set(Observation.model_fields)
"""Every field: shared by the observations built here. A mutable set as validation makes
(``model_copy(update=...)`` copies it before adding to it); the models are frozen, so nothing
adds to the shared one."""
_new = object.__new__
_set = object.__setattr__


def trusted_observation(fields: dict[str, Any]) -> Observation:
    """An :class:`Observation` of ``fields`` (every field, by field name, already of its
    type: enums as members, ``tags`` a ``dict``), built without validation.

    For the runtime's per-metric path, which checks its arguments itself: validation costs
    about ten times the rest of recording a metric. ``fields`` becomes the instance's
    ``__dict__`` (the caller hands it over). Nothing is checked: a wrong value makes a
    wrong record, so anything not known to be well-typed goes through ``Observation(...)``.
    """
    observation = _new(Observation)
    _set(observation, "__dict__", fields)
    _set(observation, "__pydantic_fields_set__", _OBSERVATION_FIELDS)
    _set(observation, "__pydantic_extra__", None)
    _set(observation, "__pydantic_private__", None)
    return observation


class ScoreRecord(RecordModel):
    """The result of one scorer on one run.

    ``value`` is the score (bool, number or any JSON-like value); ``actual``
    and ``expected`` keep what was compared. ``error`` is set, and ``value`` is
    ``None``, when the scorer could not produce a score (for example a missing
    dotted path). Role and direction left ``None`` are filled from the scorer's
    spec by the scoring stage.
    """

    name: str
    value: Any = None
    semantic_type: SemanticType | None = Field(default=None, alias="semantic")
    unit: str | None = None
    direction: Direction | None = None
    role: ObservationRole | None = None
    actual_value: Any = Field(default=None, alias="actual")
    expected_value: Any = Field(default=None, alias="expected")
    reason: str | None = None
    error: str | None = None
    optional: bool = False
    span_id: str | None = Field(default=None, alias="span")


class ErrorLocation(RecordModel):
    """The innermost frame of the user's own code an exception passed through (neither
    Autobench's code, nor an installed distribution's, nor the standard library's).

    ``file`` is named as records name files (relative to the spec's directory when under
    it, see ``autobench.core.runtime._portable``); ``line`` is 1-based; ``function`` is the
    frame's code name (``<module>`` at module level).
    """

    file: str
    line: int
    function: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line} in {self.function}"


class ErrorRecord(RecordModel):
    """A structured error: where it happened (``stage``), what it was, and its traceback.

    ``stage`` is ``task``, ``scorer``, ``context`` (reported through
    ``ctx.error``), ``span`` or ``recording``; ``source`` names the scorer or
    component, ``span_id`` the span active when it happened. ``location`` is the
    innermost frame of the user's code in ``traceback`` (``None`` for a plain message,
    an exception that never passed through the user's code, and records written
    before the field existed).
    """

    stage: str
    type: str
    message: str = ""
    location: ErrorLocation | None = None
    traceback: str | None = None
    source: str | None = None
    span_id: str | None = Field(default=None, alias="span")
