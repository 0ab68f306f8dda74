"""Recording a :class:`~autobench.core.measurement.Measurement` as run evidence.

``record_measurement`` (``ctx.record_measurement`` and ``span.record_measurement``)
writes one metric per statistic, named ``<name>.<statistic>``. With
``semantic_type=T`` and ``unit=U`` (a time unit):

=====================  ==============================  ======  ==============  =========
metric                 semantic type                   unit    role            direction
=====================  ==============================  ======  ==============  =========
``<name>.median``      ``T``                           ``U``   ``role`` arg    ``direction`` arg
``<name>.p95``         ``T.p95``                       ``U``   diagnostic      minimize
``<name>.mean``        ``T.mean``                      ``U``   diagnostic      minimize
``<name>.min``         ``T.min``                       ``U``   diagnostic      minimize
``<name>.max``         ``T.max``                       ``U``   diagnostic      minimize
``<name>.stddev``      ``T.stddev``                    ``U``   diagnostic      minimize
``<name>.repetitions`` ``measurement.repetitions``     none    diagnostic      none
``<name>.noise``       ``measurement.noise.range_pct`` ``%``   diagnostic      minimize
``<name>.timed_out``   ``measurement.timed_out``       none    diagnostic      none
=====================  ==============================  ======  ==============  =========

Only the median carries ``T`` itself, so it is the value reports, policies and
paired comparisons project for ``T``; the other statistics stay visible under
their own types without making ``T`` ambiguous. ``stddev`` is left out with
fewer than two samples and ``noise`` when it is undefined (see
:attr:`Measurement.range_noise_pct`). With ``semantic_type=None`` no metric
has a semantic type. The optional samples artifact ``<name>.samples``
(YAML) holds the samples in ``U``, the counts, the budget and the summary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autobench.core.measurement import Measurement
from autobench.core.runtime._evidence import EvidenceBuffer
from autobench.records import (
    ArtifactRef,
    Direction,
    Observation,
    ObservationKind,
    ObservationRole,
    convert_unit,
    unit_dimension,
)

NOISE_SEMANTIC = "measurement.noise.range_pct"
REPETITIONS_SEMANTIC = "measurement.repetitions"
TIMED_OUT_SEMANTIC = "measurement.timed_out"


@dataclass(frozen=True, slots=True)
class RecordedMeasurement:
    """What ``record_measurement`` stored: ``observations``, the metrics (the median first),
    and ``samples_artifact``, the reference of the ``<name>.samples`` artifact when
    ``include_samples_artifact=True`` (else ``None``)."""

    observations: tuple[Observation, ...]
    samples_artifact: ArtifactRef | None = None

    @property
    def artifact(self) -> ArtifactRef | None:
        """Another name of :attr:`samples_artifact`."""
        return self.samples_artifact

    @property
    def median(self) -> Observation:
        """The headline metric ``<name>.median``."""
        return self.observations[0]


def _statistics(measurement: Measurement, unit: str) -> dict[str, float | None]:
    def in_unit(seconds: float | None) -> float | None:
        return None if seconds is None else convert_unit(seconds, "s", unit)

    return {
        "median": in_unit(measurement.median_seconds),
        "p95": in_unit(measurement.p95_seconds),
        "mean": in_unit(measurement.mean_seconds),
        "min": in_unit(measurement.min_seconds),
        "max": in_unit(measurement.max_seconds),
        "stddev": in_unit(measurement.standard_deviation_seconds),
    }


def _samples_payload(name: str, measurement: Measurement, unit: str) -> dict[str, Any]:
    budget = measurement.budget
    return {
        "measurement": name,
        "unit": unit,
        "samples": [convert_unit(sample, "s", unit) for sample in measurement.samples_seconds],
        "repetitions": measurement.repetition_count,
        "warmup": measurement.warmup_count,
        "timed_out": measurement.timed_out,
        "elapsed_seconds": measurement.elapsed_seconds,
        "budget": {
            "warmup": budget.warmup,
            "repetitions": budget.repetitions,
            "min_repetitions": budget.min_repetitions,
            "max_seconds": budget.max_seconds,
        },
        "summary": {
            **_statistics(measurement, unit),
            "noise_pct": measurement.range_noise_pct,
        },
    }


def record_measurement(
    evidence: EvidenceBuffer,
    span_id: str | None,
    name: str,
    measurement: Measurement,
    *,
    semantic_type: str | None,
    unit: str,
    role: ObservationRole | str,
    direction: Direction | str,
    include_samples_artifact: bool,
) -> RecordedMeasurement:
    """Store ``measurement``'s metrics (and optionally its samples artifact) linked to ``span_id``.

    See the module docstring for the metrics. Raises ``ValueError`` when
    ``unit`` is not a time unit (``ns``, ``us``, ``ms``, ``s``, ``min``, ``h``).
    """
    if unit_dimension(unit) != "time":
        raise ValueError(f"measurement unit {unit!r} is not a time unit (ns, us, ms, s, min, h)")

    def add(
        statistic: str,
        value: Any,
        semantic: str | None,
        *,
        metric_unit: str | None = unit,
        metric_role: ObservationRole | str = ObservationRole.DIAGNOSTIC,
        metric_direction: Direction | str | None = Direction.MINIMIZE,
    ) -> Observation:
        return evidence.add_observation(
            f"{name}.{statistic}",
            value,
            kind=ObservationKind.METRIC,
            span_id=span_id,
            semantic_type=semantic,
            unit=metric_unit,
            direction=metric_direction,
            role=metric_role,
        )

    def derived(suffix: str) -> str | None:
        return None if semantic_type is None else f"{semantic_type}.{suffix}"

    def own(semantic: str) -> str | None:
        return None if semantic_type is None else semantic

    stats = _statistics(measurement, unit)
    observations = [
        add(
            "median",
            stats["median"],
            semantic_type,
            metric_role=role,
            metric_direction=direction,
        )
    ]
    for statistic in ("p95", "mean", "min", "max", "stddev"):
        if stats[statistic] is not None:
            observations.append(add(statistic, stats[statistic], derived(statistic)))
    observations.append(
        add(
            "repetitions",
            measurement.repetition_count,
            own(REPETITIONS_SEMANTIC),
            metric_unit=None,
            metric_direction=None,
        )
    )
    noise = measurement.range_noise_pct
    if noise is not None:
        observations.append(add("noise", noise, own(NOISE_SEMANTIC), metric_unit="%"))
    observations.append(
        add(
            "timed_out",
            measurement.timed_out,
            own(TIMED_OUT_SEMANTIC),
            metric_unit=None,
            metric_direction=None,
        )
    )
    artifact = None
    if include_samples_artifact:
        artifact = evidence.add_artifact(
            f"{name}.samples",
            _samples_payload(name, measurement, unit),
            media_type="application/x-yaml",
            tags=None,
            span_id=span_id,
        )
    return RecordedMeasurement(tuple(observations), artifact)
