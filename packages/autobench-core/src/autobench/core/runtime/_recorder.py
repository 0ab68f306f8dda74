"""The evidence methods shared by :class:`RunContext` and :class:`Span`.

Both expose the same vocabulary (``metric``, ``check``, ``artifact``, ...);
they differ only in which span the evidence is linked to. ``RunContext`` links
to the span active in the calling task (task-local, through the ABP context);
a ``Span`` handle links to itself. Semantics follow the spec's "Python Task
Runtime" section: ``outcome`` is the metric ``success`` of semantic type
``result.success`` with role objective, and ``check`` is a boolean metric with
role constraint, so a failed check fails the run's evaluation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from autobench.core.measurement import Measurement
from autobench.core.runtime._evidence import EvidenceBuffer, error_record
from autobench.core.runtime._measurement import RecordedMeasurement, record_measurement
from autobench.records import (
    ArtifactRef,
    Direction,
    ErrorRecord,
    Observation,
    ObservationKind,
    ObservationRole,
    Semantic,
)


class EvidenceRecorder:
    """Records observations, artifacts and errors into an :class:`EvidenceBuffer`.

    Subclasses provide :meth:`_link_span_id`. Every method returns what it stored.
    """

    __slots__ = ()

    _evidence: EvidenceBuffer

    def _link_span_id(self) -> str | None:
        raise NotImplementedError

    def metric(
        self,
        name: str,
        value: Any,
        *,
        semantic_type: str | None = None,
        unit: str | None = None,
        direction: Direction | str | None = None,
        role: ObservationRole | str | None = None,
        tags: Mapping[str, str] | None = None,
    ) -> Observation:
        """Record a metric observation. ``direction``/``role`` take the enum or its value;
        an unknown value raises ``ValueError``."""
        if not tags:
            return self._evidence.add_metric(
                name, value, self._link_span_id(), semantic_type, unit, direction, role
            )
        return self._evidence.add_observation(
            name,
            value,
            kind=ObservationKind.METRIC,
            span_id=self._link_span_id(),
            semantic_type=semantic_type,
            unit=unit,
            direction=direction,
            role=role,
            tags=dict(tags),
        )

    def metrics(
        self,
        values: Mapping[str, Any] | Iterable[tuple[str, Any]],
        *,
        unit: str | None = None,
        role: ObservationRole | str | None = None,
        tags: Mapping[str, str] | None = None,
    ) -> tuple[Observation, ...]:
        """Record several metrics from ``{name: value}`` or ``(name, value)`` pairs,
        sharing ``unit``, ``role`` and ``tags``; returns them in input order."""
        items = values.items() if isinstance(values, Mapping) else values
        if tags:
            return tuple(
                self.metric(name, value, unit=unit, role=role, tags=tags) for name, value in items
            )
        span_id, add = self._link_span_id(), self._evidence.add_metric
        return tuple(add(name, value, span_id, None, unit, None, role) for name, value in items)

    def factor_observation(
        self, name: str, value: Any, *, semantic_type: str | None = None
    ) -> Observation:
        """Record a factor discovered at run time (for example the model a provider answered with)."""
        return self._evidence.add_observation(
            name,
            value,
            kind=ObservationKind.FACTOR,
            span_id=self._link_span_id(),
            semantic_type=semantic_type,
        )

    def event(
        self,
        name: str,
        value: Any = None,
        *,
        semantic_type: str | None = None,
        tags: Mapping[str, str] | None = None,
    ) -> Observation:
        """Record a discrete event (a retry, a fallback); events carry no direction or role."""
        return self._evidence.add_observation(
            name,
            value,
            kind=ObservationKind.EVENT,
            span_id=self._link_span_id(),
            semantic_type=semantic_type,
            tags=dict(tags) if tags else None,
        )

    def diagnostic(
        self,
        name: str,
        value: Any,
        *,
        semantic_type: str | None = None,
        unit: str | None = None,
        tags: Mapping[str, str] | None = None,
    ) -> Observation:
        """Record explanatory evidence (kind and role ``diagnostic``); it never fails a run."""
        return self._evidence.add_observation(
            name,
            value,
            kind=ObservationKind.DIAGNOSTIC,
            span_id=self._link_span_id(),
            semantic_type=semantic_type,
            unit=unit,
            role=ObservationRole.DIAGNOSTIC,
            tags=dict(tags) if tags else None,
        )

    def outcome(self, success: bool) -> Observation:
        """Record whether the run achieved its goal: metric ``success``, semantic type
        ``result.success``, role objective, direction maximize."""
        return self._evidence.add_observation(
            "success",
            bool(success),
            kind=ObservationKind.METRIC,
            span_id=self._link_span_id(),
            semantic_type=Semantic.RESULT_SUCCESS,
            direction=Direction.MAXIMIZE,
            role=ObservationRole.OBJECTIVE,
        )

    def check(
        self,
        name: str,
        passed: bool,
        *,
        reason: str | None = None,
        semantic_type: str | None = Semantic.QUALITY_CORRECTNESS,
    ) -> Observation:
        """Record a boolean check as a metric with role constraint and the given reason;
        a false check fails the run's evaluation (see ``_status``)."""
        return self._evidence.add_observation(
            name,
            bool(passed),
            kind=ObservationKind.METRIC,
            span_id=self._link_span_id(),
            semantic_type=semantic_type,
            direction=Direction.MAXIMIZE,
            role=ObservationRole.CONSTRAINT,
            reason=reason,
        )

    def artifact(
        self,
        name: str,
        value: Any,
        *,
        media_type: str = "application/x-yaml",
        tags: Mapping[str, str] | None = None,
    ) -> ArtifactRef:
        """Attach a payload; the record keeps only the returned reference, and the sink
        (or ``ExperimentResult.artifact_payloads`` without one) keeps the payload."""
        return self._evidence.add_artifact(
            name,
            value,
            media_type=media_type,
            tags=dict(tags) if tags else None,
            span_id=self._link_span_id(),
        )

    def record_measurement(
        self,
        name: str,
        measurement: Measurement,
        *,
        semantic_type: str | None = Semantic.TIME_LATENCY,
        unit: str = "ms",
        role: ObservationRole | str = ObservationRole.OBJECTIVE,
        direction: Direction | str = Direction.MINIMIZE,
        include_samples_artifact: bool = False,
    ) -> RecordedMeasurement:
        """Record a :class:`Measurement` (from ``measure_callable``) as summary metrics.

        ``<name>.median`` carries ``semantic_type`` with ``role`` and ``direction``;
        ``p95``, ``mean``, ``min``, ``max``, ``stddev`` (types ``<semantic_type>.<stat>``),
        ``repetitions``, ``noise`` (percent) and ``timed_out`` are diagnostics. Values are
        in ``unit`` (a time unit, else ``ValueError``). ``include_samples_artifact`` also
        stores the samples as the artifact ``<name>.samples``. See
        :mod:`autobench.core.runtime._measurement` for the full table.
        """
        return record_measurement(
            self._evidence,
            self._link_span_id(),
            name,
            measurement,
            semantic_type=semantic_type,
            unit=unit,
            role=role,
            direction=direction,
            include_samples_artifact=include_samples_artifact,
        )

    def error(self, error: BaseException | str, *, source: str | None = None) -> ErrorRecord:
        """Report an error without raising: an :class:`ErrorRecord` with stage ``context``.

        Evidence recorded so far is kept; a run whose task calls ``error`` and then
        returns has task status ``failed``.
        """
        return self._evidence.add_error(
            error_record(error, stage="context", source=source, span_id=self._link_span_id())
        )
