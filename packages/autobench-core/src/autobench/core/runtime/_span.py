"""Manual spans: the :class:`Span` handle and the optional duration metric of a span.

A span is recorded only through ABP (:func:`autobench.abp.start_span` with the
manual scope), so there is one span model. Its duration belongs to the
runtime: it is measured on the monotonic clock between entering and leaving
the ``with`` block, and with a :class:`DurationMetricSpec` it is also written
as a metric observation linked to the span when the span ends (also when the
body raises; the exception then propagates unchanged).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from autobench.abp import MANUAL_SCOPE, ActiveSpan, SpanScope, TraceCollector
from autobench.core.runtime._evidence import EvidenceBuffer
from autobench.core.runtime._recorder import EvidenceRecorder
from autobench.records import Direction, Observation, ObservationKind, ObservationRole, Semantic

_UNIT_FACTORS: dict[str, float] = {"s": 1.0, "ms": 1e3, "us": 1e6, "µs": 1e6, "ns": 1e9}
_NO_VALUE: Any = object()


@dataclass(frozen=True, slots=True)
class DurationMetricSpec:
    """Ask a span to record its duration as a metric when it ends.

    ``unit`` is one of ``s``, ``ms``, ``us`` (or ``µs``) and ``ns``; the
    duration is converted from seconds. Defaults: semantic type
    ``time.latency``, role diagnostic, direction minimize. Raises
    ``ValueError`` for another unit.
    """

    name: str
    semantic_type: str = Semantic.TIME_LATENCY
    unit: str = "s"
    role: ObservationRole = ObservationRole.DIAGNOSTIC
    direction: Direction = Direction.MINIMIZE

    def __post_init__(self) -> None:
        if self.unit not in _UNIT_FACTORS:
            raise ValueError(
                f"duration unit {self.unit!r} is not one of {', '.join(_UNIT_FACTORS)}"
            )

    def convert(self, seconds: float) -> float:
        """``seconds`` expressed in :attr:`unit`."""
        return seconds * _UNIT_FACTORS[self.unit]

    @classmethod
    def of(cls, value: DurationMetricSpec | Mapping[str, Any] | None) -> DurationMetricSpec | None:
        """``value`` as a spec: a spec, ``None``, or a mapping of its fields
        (``{"name": "latency", "unit": "ms"}``). Raises ``TypeError`` for an unknown field
        or a missing ``name``, ``ValueError`` for a bad value."""
        if value is None or isinstance(value, DurationMetricSpec):
            return value
        if not isinstance(value, Mapping):
            raise TypeError(
                f"duration_metric takes a DurationMetricSpec or a mapping of its fields "
                f"(name, semantic_type, unit, role, direction), not {type(value).__name__}"
            )
        fields = dict(value)
        for name, kind in (("role", ObservationRole), ("direction", Direction)):
            if isinstance(fields.get(name), str):
                fields[name] = kind(fields[name])
        try:
            return cls(**fields)
        except TypeError as exc:
            raise TypeError(f"duration_metric {dict(value)!r}: {exc}") from None


class Span(SpanScope, EvidenceRecorder):
    """What ``ctx.span(...)`` returns, and what ``with`` gives: the span's handle.

    Entering it opens an ABP span under the task's active span; leaving it ends the span
    with status ``ok``, ``error`` or ``cancelled`` (for :class:`asyncio.CancelledError`),
    and the exception, if any, propagates unchanged. Inside the block it updates the span
    and records evidence linked to it: the evidence methods (``metric``, ``check``,
    ``artifact``, ``error``, ...) are those of the run context, with ``span_id`` set to
    this span whatever span is innermost when they are called. ``duration_metric`` is a
    :class:`DurationMetricSpec` or a mapping of its fields. The ABP span scope itself,
    extended (one object per span, no generator-based context manager): it is on the path
    of every span. Single use.
    """

    __slots__ = ("_duration", "_evidence", "_usage")

    def __init__(
        self,
        collector: TraceCollector,
        evidence: EvidenceBuffer,
        name: str,
        kind: str,
        input: Any,
        attributes: Mapping[str, Any] | None,
        usage: Mapping[str, Any] | None,
        tags: Mapping[str, str] | None,
        duration_metric: DurationMetricSpec | Mapping[str, Any] | None,
    ) -> None:
        SpanScope.__init__(self, name, kind, MANUAL_SCOPE, input, attributes, tags, collector)
        self._evidence = evidence
        self._usage = usage or None
        self._duration = None if duration_metric is None else DurationMetricSpec.of(duration_metric)

    def __enter__(self) -> Span:  # type: ignore[override]
        active = SpanScope.__enter__(self)
        if self._usage is not None:
            active.set_usage(self._usage)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if exc is None and self._duration is None:
            SpanScope.__exit__(self, None, None, None)
            return
        active = self._handle
        if active is None:
            return
        if exc is not None:
            self._evidence.note_exception_span(exc, active.id)
        spec = self._duration
        if spec is not None:  # end it here for the duration; the scope's end is then a no-op
            try:
                _record_duration(self._evidence, active, self._end(active, exc), spec)
            finally:
                SpanScope.__exit__(self, exc_type, exc, traceback)
            return
        SpanScope.__exit__(self, exc_type, exc, traceback)

    @property
    def _active(self) -> ActiveSpan:
        active = self._handle
        if active is None:
            raise RuntimeError("the span is used outside its `with` block: enter it first")
        return active

    def _link_span_id(self) -> str | None:
        return self._active.id

    @property
    def id(self) -> str:
        """The ABP span id (16 hex characters)."""
        return self._active.id

    @property
    def name(self) -> str:
        return self._active.operation

    @property
    def kind(self) -> str:
        return self._active.kind

    @property
    def parent_id(self) -> str | None:
        return self._active.parent_id

    def set_output(self, output: Any) -> None:
        """Set the value the span produced."""
        self._active.set_output(output)

    def set_attribute(self, key: str, value: Any) -> None:
        """Set one attribute; a later value replaces an earlier one."""
        self._active.set_attribute(key, value)

    def set_usage(
        self, usage: Mapping[str, Any] | str | None = None, value: Any = _NO_VALUE, /, **values: Any
    ) -> None:
        """Merge usage counts into the span: ``set_usage(input_tokens=420)``,
        ``set_usage({"input_tokens": 420})`` or ``set_usage("input_tokens", 420)``. Raises
        ``TypeError`` for a key without a value, or a value after a mapping."""
        if isinstance(usage, str):
            if value is _NO_VALUE:
                raise TypeError(f"set_usage({usage!r}) needs a value: set_usage(key, value)")
            self._active.set_usage({usage: value}, **values)
            return
        if value is not _NO_VALUE:
            raise TypeError("set_usage(mapping) takes no second positional value")
        self._active.set_usage(usage, **values)

    def factor(self, name: str, value: Any, *, semantic_type: str | None = None) -> Observation:
        """Record a factor observed while the span ran (the prompt version it used, the
        model that answered), linked to this span: the span form of
        :meth:`~autobench.core.runtime.RunContext.factor_observation`. (``ctx.factor(name)``
        reads the variant's factor; this records one.)"""
        return self.factor_observation(name, value, semantic_type=semantic_type)


def _record_duration(
    evidence: EvidenceBuffer, active: ActiveSpan, seconds: float, spec: DurationMetricSpec | None
) -> None:
    if spec is None:
        return
    evidence.add_observation(
        spec.name,
        spec.convert(seconds),
        kind=ObservationKind.METRIC,
        span_id=active.id,
        semantic_type=spec.semantic_type,
        unit=spec.unit,
        direction=spec.direction,
        role=spec.role,
    )
