"""The collector: receives signals for one trace and materialises the :class:`Trace`."""

from __future__ import annotations

import threading
import time

from autobench.abp._ids import new_trace_id
from autobench.abp._model import InstrumentationScope, SpanRecord, Trace
from autobench.abp._signals import Signal, SpanEndSignal, SpanStartSignal


class TraceCollector:
    """Collects the signals of one trace (one benchmark run).

    ``emit`` is safe to call from several threads. ``materialize`` can be
    called at any time: spans that have started but not ended come out with
    ``partial=True`` and no duration, and the trace itself is then partial.
    The monotonic origin of the trace is the moment the collector is created;
    span ``offset`` values are seconds from it.
    """

    __slots__ = (
        "_ends",
        "_lock",
        "_scopes",
        "_signals",
        "_starts",
        "name",
        "origin_ns",
        "trace_id",
    )

    def __init__(self, trace_id: str | None = None, *, name: str | None = None) -> None:
        self.trace_id = trace_id or new_trace_id()
        self.name = name
        self.origin_ns = time.perf_counter_ns()
        self._lock = threading.Lock()
        self._signals: list[Signal] = []
        self._starts: list[SpanStartSignal] = []
        self._ends: dict[str, SpanEndSignal] = {}
        self._scopes: dict[str, InstrumentationScope] = {}

    def register_scope(self, scope: InstrumentationScope) -> str:
        """Make ``scope`` known to the trace and return its key (the instrumentor name)."""
        with self._lock:
            self._scopes.setdefault(scope.name, scope)
        return scope.name

    def emit(self, signal: Signal) -> None:
        """Record one signal. A second end signal for the same span is ignored."""
        with self._lock:
            if isinstance(signal, SpanStartSignal):
                self._starts.append(signal)
            elif signal.span_id in self._ends:
                return
            else:
                self._ends[signal.span_id] = signal
            self._signals.append(signal)

    @property
    def signals(self) -> tuple[Signal, ...]:
        """Every accepted signal, in emission order."""
        with self._lock:
            return tuple(self._signals)

    def materialize(self) -> Trace:
        """Join start and end signals into an immutable :class:`Trace`."""
        with self._lock:
            starts = list(self._starts)
            ends = dict(self._ends)
            scopes = dict(self._scopes)
        spans: list[SpanRecord] = []
        for start in starts:
            end = ends.get(start.span_id)
            fields: dict[str, object] = {
                "id": start.span_id,
                "operation": start.operation,
                "kind": start.kind,
                "parent": start.parent_id,
                "scope": start.scope,
                "started_at": start.started_at,
                "offset": start.offset,
                "input": start.input,
                "attributes": start.attributes,
                "tags": start.tags,
            }
            if end is None:
                fields["partial"] = True
            else:
                fields.update(
                    duration=end.duration,
                    status=end.status,
                    output=end.output,
                    attributes={**start.attributes, **end.attributes},
                    usage=end.usage,
                    error=end.error,
                    partial=end.partial,
                )
            spans.append(SpanRecord.model_validate(fields))
        partial = any(span.partial for span in spans)
        return Trace(
            id=self.trace_id, name=self.name, scopes=scopes, spans=tuple(spans), partial=partial
        )
