"""The one value of a semantic type in a run, as policies and post-derivers read it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from autobench.records import (
    Observation,
    SemanticRegistry,
    convert_unit,
    project_observations,
)


def projected_metric(
    observations: Iterable[Observation], semantic_type: str, registry: SemanticRegistry
) -> Observation | None:
    """The projected metric observation of ``semantic_type`` (aliases normalised).

    Projection picks one observation per semantic type by source (score, then
    derived, then task observation, then imported; the first recorded within a
    source). When the run has no value of exactly ``semantic_type``, the
    projected value of its first descendant type (in recording order) is used,
    so ``quality.score`` finds a ``quality.correctness`` score. ``None`` when
    there is neither.
    """
    projected = project_observations(observations, registry)
    wanted = registry.normalize(semantic_type)
    exact = projected.get(wanted)
    if exact is not None:
        return exact.observation
    for semantic, metric in projected.items():
        if registry.is_a(semantic, wanted):
            return metric.observation
    return None


def value_in_unit(
    observation: Observation, target_unit: str | None, registry: SemanticRegistry
) -> Any:
    """The observation's value expressed in ``target_unit``.

    ``target_unit`` ``None`` returns the value as recorded. A value recorded
    without a unit is taken to be in its semantic type's canonical unit (or
    already in ``target_unit`` when the type has none). Only numbers (not
    booleans) are converted. Raises :class:`~autobench.records.UnitConversionError` when the
    units do not convert.
    """
    value = observation.value
    if target_unit is None or isinstance(value, bool) or not isinstance(value, int | float):
        return value
    source_unit = observation.unit
    if source_unit is None and observation.semantic_type is not None:
        source_unit = registry.unit_of(observation.semantic_type)
    if source_unit is None:
        return value
    return convert_unit(value, source_unit, target_unit)
