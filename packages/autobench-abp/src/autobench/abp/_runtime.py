"""The :class:`Instrumentor` contract and the runtime it receives in ``install``.

It is the instrumentor's only way to emit evidence: spans stamped with the
instrumentor's :class:`InstrumentationScope`, measurements for the active
run, and compatibility diagnostics. Every helper respects the current
suppression scope and is a no-op outside a run.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol, runtime_checkable

from autobench.abp._context import (
    ActiveSpan,
    _collector,
    active_collector,
    open_span_handle,
    start_span,
)
from autobench.abp._detached import DetachedSpan
from autobench.abp._instrumentor import Compatibility, InstrumentationHandle, InstrumentorInfo
from autobench.abp._measure import InstrumentMeasurement, MeasurementKind, bind_measurements
from autobench.abp._model import SpanKind
from autobench.abp._suppress import _suppressed, is_suppressed


class InstrumentationRuntime:
    """Emit helpers bound to one installed instrumentor.

    ``capture_policy`` is whatever the manager was configured with (``None``
    means the instrumentor's privacy-safe defaults); ``target_version`` is
    the version the compatibility check found.
    """

    __slots__ = ("capture_policy", "diagnostics", "info", "scope", "target_version")

    def __init__(
        self,
        info: InstrumentorInfo,
        *,
        target_version: str | None = None,
        capture_policy: object | None = None,
    ) -> None:
        self.info = info
        self.target_version = target_version
        self.capture_policy = capture_policy
        self.scope = info.scope(target_version)
        self.diagnostics: list[Compatibility] = []

    def enabled(self, family: str | None = None) -> bool:
        """Whether evidence would be recorded here: a run is active and nothing suppresses it."""
        return active_collector() is not None and not is_suppressed(self.info.id, family)

    @contextmanager
    def span(
        self,
        operation: str,
        *,
        kind: str = SpanKind.CUSTOM,
        family: str | None = None,
        input: Any = None,
        attributes: Mapping[str, Any] | None = None,
    ) -> Iterator[ActiveSpan | None]:
        """A span around the block, or ``None`` (and no span) when not :meth:`enabled`."""
        if not self.enabled(family or operation):
            yield None
            return
        with start_span(
            operation, kind=kind, scope=self.scope, input=input, attributes=attributes
        ) as active:
            yield active

    def open_span(
        self,
        operation: str,
        *,
        kind: str = SpanKind.CUSTOM,
        family: str | None = None,
        input: Any = None,
        attributes: Mapping[str, Any] | None = None,
        parent: ActiveSpan | None = None,
    ) -> DetachedSpan | None:
        """A span that outlives the calling frame (a stream); end it with ``.end()``.

        With ``parent`` the span opens under that span, in its trace (whatever run is active
        in the calling context); without, under the active span of the active run.
        """
        collector = _collector.get() if parent is None else parent.collector
        if collector is None or (
            _suppressed.get() is not None and is_suppressed(self.info.id, family or operation)
        ):
            return None
        return DetachedSpan.of(
            open_span_handle(
                operation, kind, self.scope, input, attributes, None, collector, parent
            )
        )

    def measure(
        self,
        kind: MeasurementKind,
        name: str,
        value: Any,
        *,
        span_id: str | None = None,
        semantic_type: str | None = None,
        unit: str | None = None,
    ) -> bool:
        """Record a metric, factor or diagnostic for the active run; ``False`` when none."""
        recorder = bind_measurements()
        if recorder is None:
            return False
        recorder(
            InstrumentMeasurement(
                kind,
                name,
                value,
                span_id=span_id,
                semantic_type=semantic_type,
                unit=unit,
                source=self.info.id,
            )
        )
        return True

    def report(self, diagnostic: Compatibility) -> None:
        """Keep a compatibility diagnostic (a degraded feature, a conflict) for the manager."""
        self.diagnostics.append(diagnostic)


@runtime_checkable
class Instrumentor(Protocol):
    """The contract every reusable integration implements."""

    info: InstrumentorInfo

    def check(self) -> Compatibility:
        """Instrumentor-specific checks beyond the target version (optional features)."""
        ...

    def install(self, runtime: InstrumentationRuntime) -> InstrumentationHandle:
        """Install hooks or patches; the handle's close undoes exactly that."""
        ...
