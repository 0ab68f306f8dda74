"""The collector: receives signals for one trace and materialises the :class:`Trace`."""

from __future__ import annotations

import hashlib
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from autobench.abp._capture import DEFAULT_CAPTURE_POLICY, CapturePolicy, PayloadRef
from autobench.abp._facts import (
    DiagnosticRecord,
    EventRecord,
    LinkRecord,
    MeasurementRecord,
    ReferenceRecord,
)
from autobench.abp._gc import gc_paused_for
from autobench.abp._ids import new_trace_id
from autobench.abp._model import (
    PROTOCOL_VERSION,
    InstrumentationScope,
    SpanRecord,
    SpanStatus,
    Trace,
)
from autobench.abp._signals import (
    EMPTY,
    DiagnosticSignal,
    EventSignal,
    LinkSignal,
    MeasurementSignal,
    ReferenceSignal,
    Signal,
    SpanEndSignal,
    SpanStartSignal,
)


class OpenStream(Protocol):
    """A stream whose span is still open (a stream tracker, see ``abp._streams``)."""

    def end_at_run_end(self) -> None:
        """End the span with what the stream has recorded so far (the run is ending)."""
        ...


class TraceCollector:
    """Collects the signals of one trace (one benchmark run).

    ``emit`` is safe to call from several threads. ``materialize`` can be
    called at any time: spans that have started but not ended come out with
    ``partial=True`` and no duration, and the trace itself is then partial.
    The monotonic origin of the trace is the moment the collector is created;
    span ``offset`` values are seconds from it, and a start signal without a
    ``started_at`` gets ``origin_wall + offset`` (``origin_wall`` is the UTC
    time read when the collector was created).

    ``capture`` is the :class:`CapturePolicy` applied to span input, output
    and attributes and to event attributes as they are recorded (the default
    redacts secrets and truncates huge strings). Payloads the policy moves out
    of the trace are kept in :attr:`payloads` for the runtime to store as
    artifacts.

    Stream spans still open are held by :meth:`hold_stream` until they end; the
    runtime ends them with :meth:`end_open_streams` when the run ends, before it
    materializes the trace, so they keep the facts they gathered.
    """

    __slots__ = (
        "_ends",
        "_facts",
        "_lock",
        "_open_streams",
        "_payloads",
        "_scopes",
        "_signals",
        "_starts",
        "adoptive_parent",
        "capture",
        "name",
        "origin_ns",
        "origin_wall",
        "trace_id",
    )

    def __init__(
        self,
        trace_id: str | None = None,
        *,
        name: str | None = None,
        capture: CapturePolicy = DEFAULT_CAPTURE_POLICY,
    ) -> None:
        self.trace_id = trace_id or new_trace_id()
        self.name = name
        self.capture = capture
        self.origin_wall = datetime.now(UTC)
        self.origin_ns = time.perf_counter_ns()
        self._lock = threading.Lock()
        self._signals: list[Signal] = []
        self._starts: list[SpanStartSignal] = []
        self._ends: dict[str, SpanEndSignal] = {}
        self._facts: list[Signal] = []
        self._scopes: dict[str, InstrumentationScope] = {}
        self._payloads: list[tuple[PayloadRef, Any]] = []
        self._open_streams: dict[int, OpenStream] = {}
        self.adoptive_parent: str | None = None
        """The span id a span gets as parent when it is opened where no span of this trace is
        active (a thread started without the caller's context); ``None``: it becomes a root.
        The runtime sets it to the run's root span."""

    def register_scope(self, scope: InstrumentationScope) -> str:
        """Make ``scope`` known to the trace and return its key (the instrumentor name)."""
        name = scope.name
        if self._scopes.get(name) is not scope:
            with self._lock:
                self._scopes.setdefault(name, scope)
        return name

    def hold_stream(self, stream: OpenStream) -> None:
        """Remember ``stream`` as open until :meth:`release_stream` (its span ended)."""
        self._open_streams[id(stream)] = stream

    def release_stream(self, stream: OpenStream) -> None:
        """Forget ``stream`` (its span ended); nothing happens for a stream not held."""
        self._open_streams.pop(id(stream), None)

    def end_open_streams(self) -> int:
        """End the span of every stream still held (each one's ``end_at_run_end``), in
        the order they opened; return how many. Called by the runtime as the run ends,
        before :meth:`materialize`."""
        with self._lock:
            streams = list(self._open_streams.values())
            self._open_streams.clear()
        for stream in streams:
            stream.end_at_run_end()
        return len(streams)

    def emit(self, signal: Signal) -> None:
        """Record one signal. A second end signal for the same span is ignored.

        Lock-free: each step is one ``list.append`` or ``dict.setdefault``,
        which are atomic (under the GIL, and per object without it).
        """
        cls = signal.__class__
        if cls is SpanEndSignal:
            if self._ends.setdefault(signal.span_id, signal) is not signal:  # type: ignore[arg-type]
                return
        elif cls is SpanStartSignal:
            self._starts.append(signal)  # type: ignore[arg-type]
        else:
            self._facts.append(signal)
        self._signals.append(signal)

    def emit_start(self, raw: tuple[Any, ...]) -> None:
        """A span start on the span path: the first ten fields of :class:`SpanStartSignal`
        as a plain tuple, ``None`` for an empty ``attributes`` or ``tags`` (see
        :func:`start_of`)."""
        self._starts.append(raw)  # type: ignore[arg-type]
        self._signals.append(raw)  # type: ignore[arg-type]

    def emit_end(self, raw: tuple[Any, ...]) -> None:
        """A span end on the span path: the first eight fields of :class:`SpanEndSignal` as a
        plain tuple, the status as its string value, ``None`` for an empty ``attributes`` or
        ``usage`` (see :func:`end_of`). A second end of the same span is ignored."""
        if self._ends.setdefault(raw[0], raw) is raw:  # type: ignore[arg-type]
            self._signals.append(raw)

    def now(self) -> float:
        """Monotonic seconds since the trace origin (the ``offset`` of something happening now)."""
        return (time.perf_counter_ns() - self.origin_ns) / 1e9

    def capture_payload(self, value: Any, *, name: str, span_id: str | None) -> Any:
        """Apply the capture policy to a span input or output.

        Above the policy's ``artifact_threshold`` the payload is kept in
        :attr:`payloads` under a new artifact id, a ``reference`` signal of
        kind ``artifact`` is emitted for ``span_id``, and the
        :meth:`PayloadRef.as_marker` mapping is returned in its place.
        """
        policy = self.capture
        captured = policy.apply(value)
        oversized = policy.exceeds_artifact_threshold(captured)
        if oversized is None:
            return captured
        text, size = oversized
        with self._lock:
            ref = PayloadRef(
                id=f"abp_payload_{len(self._payloads) + 1}",
                name=name,
                size=size,
                sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
                span_id=span_id,
            )
            self._payloads.append((ref, captured))
        self.emit(
            ReferenceSignal(
                span_id=span_id,
                kind="artifact",
                ref_id=ref.id,
                name=name,
                media_type=ref.media_type,
            )
        )
        return ref.as_marker()

    @property
    def payloads(self) -> tuple[tuple[PayloadRef, Any], ...]:
        """Payloads moved out of the trace by the capture policy: ``(reference, payload)``."""
        with self._lock:
            return tuple(self._payloads)

    @property
    def signals(self) -> tuple[Signal, ...]:
        """Every accepted signal, in emission order. A span end's ``attributes`` are as the
        span set them: the capture policy applies to them in :meth:`materialize`, which is
        what records, scorers and reports read."""
        with self._lock:
            return tuple(_signal_of(signal) for signal in self._signals)

    def materialize(self, *, release: bool = False) -> Trace:
        """Join the signals into an immutable :class:`Trace`.

        Facts emitted for a span that is not part of the trace are kept at
        trace level (links, references) or become a diagnostic
        ``abp.unknown_span`` (measurements, events). With ``release`` the
        collector gives its span signals up to the trace as it is built (the
        runtime's end of a run): each span's signals are freed once its record
        exists, so a large trace and its signals are never whole in memory at
        once; :attr:`signals` and later calls then see only the facts and what
        was emitted afterwards.
        """
        with self._lock:
            if release:
                starts, self._starts = self._starts, []
                ends, self._ends = self._ends, {}
                self._signals = [signal for signal in self._signals if _is_fact(signal)]
            else:
                starts = list(self._starts)
                ends = dict(self._ends)
            facts = list(self._facts)
            scopes = dict(self._scopes)
        known = {start[0] for start in starts}  # the span id, first in either form
        per_span: dict[str, dict[str, list[Any]]] = {}
        trace_facts: dict[str, list[Any]] = {"links": [], "references": [], "diagnostics": []}
        for fact in facts:
            target = _fact_span(fact)
            field, record = _fact_record(fact)
            if field == "diagnostics":
                trace_facts[field].append(record)
            elif target in known:
                per_span.setdefault(target, {}).setdefault(field, []).append(record)
            elif field in trace_facts:
                trace_facts[field].append(record)
            else:
                trace_facts["diagnostics"].append(
                    DiagnosticRecord(
                        code="abp.unknown_span",
                        message=f"{field[:-1]} {getattr(fact, 'name', '')!r} names "
                        f"span {target!r}, which is not in the trace",
                        span=target,
                    )
                )
        capture, origin_wall = self.capture, self.origin_wall
        take = ends.pop if release else ends.get
        spans: list[SpanRecord] = []
        add = spans.append
        # A large trace: hundreds of thousands of live objects, no cycles to find.
        with gc_paused_for(len(starts)):
            for index, start in enumerate(starts):
                add(_span_record(start, take(start[0], None), per_span, origin_wall, capture))
                if release:
                    starts[index] = None  # type: ignore[call-overload]
        partial = any(span.partial for span in spans)
        return Trace(
            id=self.trace_id,
            name=self.name,
            scopes=scopes,
            spans=tuple(spans),
            partial=partial,
            links=tuple(trace_facts["links"]),
            references=tuple(trace_facts["references"]),
            diagnostics=tuple(trace_facts["diagnostics"]),
        )


# The span path stores plain tuples of strings, numbers and None: the garbage collector
# stops tracking such a tuple, so a run's growing trace costs its full collections nothing
# (a signal NamedTuple, or a tuple holding the shared EMPTY mapping or an enum member, stays
# tracked and is traversed again and again as the run grows). Signals are rebuilt here.
_signal_new: Any = tuple.__new__


def start_of(item: Any) -> SpanStartSignal:
    """The :class:`SpanStartSignal` of a stored span start (a raw tuple or a signal)."""
    if item.__class__ is SpanStartSignal:
        return item
    span_id, parent_id, operation, kind, scope, started_at, offset, payload, attributes, tags = item
    return _signal_new(
        SpanStartSignal,
        (
            span_id,
            parent_id,
            operation,
            kind,
            scope,
            started_at,
            offset,
            payload,
            EMPTY if attributes is None else attributes,
            EMPTY if tags is None else tags,
            "span_start",
            PROTOCOL_VERSION,
        ),
    )


def end_of(item: Any) -> SpanEndSignal | None:
    """The :class:`SpanEndSignal` of a stored span end (a raw tuple or a signal), or ``None``."""
    if item is None or item.__class__ is SpanEndSignal:
        return item
    span_id, status, duration, output, attributes, usage, error, partial = item
    return _signal_new(
        SpanEndSignal,
        (
            span_id,
            SpanStatus(status),
            duration,
            output,
            EMPTY if attributes is None else attributes,
            EMPTY if usage is None else usage,
            error,
            partial,
            "span_end",
            PROTOCOL_VERSION,
        ),
    )


def _is_fact(item: Any) -> bool:
    """Whether a stored signal is a fact (not a span start or end, raw or not)."""
    return item.__class__ is not tuple and item.__class__ not in (SpanStartSignal, SpanEndSignal)


def _signal_of(item: Any) -> Signal:
    if item.__class__ is not tuple:
        return item
    return start_of(item) if len(item) == 10 else end_of(item)  # type: ignore[return-value]


def _fact_span(fact: Signal) -> str | None:
    return getattr(fact, "span_id", None)


def _fact_record(fact: Signal) -> tuple[str, Any]:
    """The record a fact signal materialises into and the field it goes to."""
    if isinstance(fact, MeasurementSignal):
        return "measurements", MeasurementRecord(
            name=fact.name,
            value=fact.value,
            semantic_type=fact.semantic_type,
            unit=fact.unit,
            accounting=fact.accounting,
            layer=fact.layer,
            operation_id=fact.operation_id,
            offset=fact.offset,
            attributes=dict(fact.attributes),
        )
    if isinstance(fact, EventSignal):
        return "events", EventRecord(
            name=fact.name, offset=fact.offset, attributes=dict(fact.attributes)
        )
    if isinstance(fact, LinkSignal):
        return "links", LinkRecord(
            relation=fact.relation,
            span=fact.target_span,
            trace=fact.target_trace,
            attributes=dict(fact.attributes),
        )
    if isinstance(fact, ReferenceSignal):
        return "references", ReferenceRecord(
            kind=fact.kind,
            id=fact.ref_id,
            name=fact.name,
            uri=fact.uri,
            media_type=fact.media_type,
            attributes=dict(fact.attributes),
        )
    if isinstance(fact, DiagnosticSignal):
        return "diagnostics", DiagnosticRecord(
            code=fact.code,
            message=fact.message,
            severity=fact.severity,
            span=fact.span_id,
            scope=fact.scope,
            attributes=dict(fact.attributes),
        )
    raise TypeError(f"not an ABP fact signal: {type(fact).__name__}")


def _span_record(
    start: Any,
    end: Any,
    per_span: dict[str, dict[str, list[Any]]],
    origin_wall: datetime,
    capture: CapturePolicy,
    trusted: bool = True,
) -> SpanRecord:
    """The record of one span from its stored start and end (``None``: never ended), each a
    raw tuple (the span path's form, see :func:`start_of`) or a signal. Built without
    validation (:func:`_trusted_span`) when ``trusted`` and the values are what validation
    would store (a known status, string tags); validated otherwise."""
    if start.__class__ is not tuple:
        start = start[:10]  # a SpanStartSignal: its first ten fields are the raw form
    span_id, parent_id, operation, kind, scope, started_at, offset, payload, attributes, tags = (
        start
    )
    start_attributes = {} if attributes is None else dict(attributes)
    fields: dict[str, object] = {
        "id": span_id,
        "operation": operation,
        "kind": kind,
        "parent": parent_id,
        "scope": scope,
        "started_at": started_at or origin_wall + timedelta(seconds=offset),
        "offset": offset,
        "input": payload,
        "attributes": start_attributes,
        "tags": {} if tags is None else dict(tags),
    }
    if end is None:
        fields["partial"] = True
    else:
        _, status, duration, output, end_attributes, usage, error, partial = end[:8]
        if end_attributes:
            # an end signal carries the attributes as the span set them: the policy applies
            # here, once (start attributes passed it when the span started)
            start_attributes.update(capture.apply_mapping(dict(end_attributes)))
        if status.__class__ is not SpanStatus:
            status = _STATUSES.get(status, status)
        fields["duration"] = duration
        fields["status"] = status
        fields["output"] = output
        fields["usage"] = {} if usage is None else dict(usage)
        fields["error"] = error
        fields["partial"] = partial
    facts = per_span.get(span_id)
    if facts:
        for field, records in facts.items():
            fields[field] = tuple(records)
    if trusted and _well_typed(fields):
        return _trusted_span(fields)
    return SpanRecord.model_validate(fields)


_STATUSES = {status.value: status for status in SpanStatus}
"""A raw end's status (its value) -> the member."""


_SPAN_FIELDS = tuple(SpanRecord.model_fields.items())
_SPAN_DEFAULTS = {
    name: None if info.default_factory is not None else info.default for name, info in _SPAN_FIELDS
}
_SPAN_FACTORIES = tuple(
    (name, info.default_factory) for name, info in _SPAN_FIELDS if info.default_factory
)
_FIELDS_SETS: dict[frozenset[str], set[str]] = {}
"""The fields-set of each shape of span fields, shared by the spans of that shape (frozen
models: nothing adds to it; ``model_copy(update=...)`` copies it first)."""
_new_object = object.__new__
_set_attribute = object.__setattr__


def _well_typed(fields: dict[str, object]) -> bool:
    """Whether ``fields`` (built by :func:`_span_record`) hold exactly what validation would
    store: the signals' own types, a ``SpanStatus`` member, string tags."""
    status = fields.get("status")
    if status is not None and status.__class__ is not SpanStatus:
        return False
    tags = fields["tags"]
    return not tags or all(value.__class__ is str for value in tags.values())  # type: ignore[attr-defined]


def _trusted_span(fields: dict[str, object]) -> SpanRecord:
    """The :class:`SpanRecord` ``SpanRecord.model_validate(fields)`` gives, built without
    validation (a trace of 100,000 spans would spend seconds validating values that come
    straight from typed signals): the same field values, the same ``model_fields_set``."""
    data = _SPAN_DEFAULTS.copy()  # field order, defaults in place
    data.update(fields)
    for name, factory in _SPAN_FACTORIES:
        if name not in fields:
            data[name] = factory()  # type: ignore[call-arg]
    span = _new_object(SpanRecord)
    _set_attribute(span, "__dict__", data)
    keys = frozenset(fields)
    fields_set = _FIELDS_SETS.get(keys)
    if fields_set is None:  # a few shapes in a trace: shared, not one set per span
        fields_set = _FIELDS_SETS.setdefault(keys, set(keys))
    _set_attribute(span, "__pydantic_fields_set__", fields_set)
    _set_attribute(span, "__pydantic_extra__", {})
    _set_attribute(span, "__pydantic_private__", None)
    return span
