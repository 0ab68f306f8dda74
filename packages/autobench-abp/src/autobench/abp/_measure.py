"""Measurements produced by instrumentation, and the hook that records them.

ABP does not know about benchmark runs, so it cannot store observations
itself. Instrumentation hands :class:`InstrumentMeasurement` values to the
registered :class:`MeasurementSink`; the Autobench core registers one that
turns them into observations of the active run, linked to the span. The sink
is *bound* when an instrumented call starts, so a stream that ends later (or
in another thread) still records into the run it started in.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

MeasurementKind = Literal["metric", "factor", "diagnostic"]

MeasurementRecorder = Callable[["InstrumentMeasurement"], None]
"""Records one measurement into the run that was active when it was bound."""


@dataclass(frozen=True, slots=True)
class InstrumentMeasurement:
    """One value instrumentation observed: a metric, a factor or a diagnostic.

    ``span_id`` links it to the span of the call it came from; ``source`` is
    the id of the instrumentor that produced it.
    """

    kind: MeasurementKind
    name: str
    value: Any
    span_id: str | None = None
    semantic_type: str | None = None
    unit: str | None = None
    role: str | None = None
    direction: str | None = None
    source: str | None = None


class MeasurementSink(Protocol):
    """Where instrumentation measurements go."""

    def bind(self) -> MeasurementRecorder | None:
        """A recorder for the run active in the calling task, or ``None`` outside a run."""
        ...


_lock = threading.Lock()
_sink: MeasurementSink | None = None


def set_measurement_sink(sink: MeasurementSink | None) -> MeasurementSink | None:
    """Install the process-wide measurement sink and return the previous one.

    Without a sink, measurements are dropped (spans are still recorded).
    """
    global _sink
    with _lock:
        previous, _sink = _sink, sink
    return previous


def measurement_sink() -> MeasurementSink | None:
    """The installed measurement sink, if any."""
    return _sink


def bind_measurements() -> MeasurementRecorder | None:
    """Bind the installed sink to the calling task (``None`` without a sink or a run)."""
    sink = _sink
    return None if sink is None else sink.bind()
