"""Instrumentation for benchmark runs: ABP's instrumentation API wired to run evidence.

:mod:`autobench.abp` knows spans but not runs, so its instrumentation hands
metric, factor and diagnostic measurements to a :class:`MeasurementSink`.
Importing this module installs :class:`RunContextMeasurementSink`, which
records each measurement as an observation of the run active in the calling
task (``get_active_run_context()``), linked to the span of the instrumented
call. The sink is bound when a call starts, so a stream that ends later
still records into the run that made the call. Outside a run nothing is
recorded.

Every public instrumentation name is re-exported here, so ``from autobench
import instrument_method`` always comes with the sink installed.
"""

from __future__ import annotations

from autobench.abp import (
    AbstractionLayer,
    CaptureMechanism,
    Compatibility,
    InstrumentationError,
    InstrumentationHandle,
    InstrumentationManager,
    InstrumentationRuntime,
    InstrumentCall,
    InstrumentFactorSpec,
    InstrumentMeasurement,
    InstrumentMetricSpec,
    Instrumentor,
    InstrumentorInfo,
    instrument_method,
    measurement_sink,
    set_measurement_sink,
    suppress_instrumentation,
)
from autobench.core.plugins import instrumentor_statuses
from autobench.core.runtime._context import RunContext, get_active_run_context
from autobench.records import ObservationKind, ObservationRole

__all__ = [
    "AbstractionLayer",
    "CaptureMechanism",
    "Compatibility",
    "InstrumentCall",
    "InstrumentFactorSpec",
    "InstrumentMetricSpec",
    "InstrumentationError",
    "InstrumentationHandle",
    "InstrumentationManager",
    "InstrumentationRuntime",
    "Instrumentor",
    "InstrumentorInfo",
    "instrument_method",
    "instrumentor_statuses",
    "suppress_instrumentation",
]

_KINDS = {
    "metric": ObservationKind.METRIC,
    "factor": ObservationKind.FACTOR,
    "diagnostic": ObservationKind.DIAGNOSTIC,
}


class _RunRecorder:
    """Records measurements into one run's evidence buffer."""

    __slots__ = ("_context",)

    def __init__(self, context: RunContext) -> None:
        self._context = context

    def __call__(self, measurement: InstrumentMeasurement) -> None:
        kind = _KINDS[measurement.kind]
        metric = kind is ObservationKind.METRIC
        diagnostic = kind is ObservationKind.DIAGNOSTIC
        self._context._evidence.add_observation(
            measurement.name,
            measurement.value,
            kind=kind,
            span_id=measurement.span_id,
            semantic_type=measurement.semantic_type,
            unit=measurement.unit if metric or diagnostic else None,
            direction=measurement.direction if metric else None,
            role=ObservationRole.DIAGNOSTIC
            if diagnostic
            else (measurement.role if metric else None),
            tags={"instrumentor": measurement.source} if measurement.source else None,
        )


class RunContextMeasurementSink:
    """Turns instrumentation measurements into observations of the active run."""

    def bind(self) -> _RunRecorder | None:
        """A recorder for the run active in the calling task, or ``None`` outside a run."""
        context = get_active_run_context()
        return None if context is None else _RunRecorder(context)


if not isinstance(measurement_sink(), RunContextMeasurementSink):
    set_measurement_sink(RunContextMeasurementSink())
