"""The recording state of one installation: SDK traces and spans to their open ABP spans.

:class:`Recorder` receives the processor's callbacks (already guarded: nothing it
raises reaches the SDK) and keeps, per SDK trace id and span id, the ABP span it
opened, until the SDK ends it.

Parentage follows the SDK's own: a span opens under the ABP span of its SDK parent
(``span.parent_id``), a top-level span under the workflow span of its trace, and
the workflow span under the ABP span active where the workflow started (the task's
span, or a span of the task). A span whose SDK parent is not recorded (its trace
started outside a run, or was suppressed) opens under the active span of the
calling context, and only inside a run: outside any run nothing is recorded. Each
recorded span is bound as the active span while its SDK span runs (``_binding``).

A ``task`` span opened inside another recorded span (a guardrail or a tool that runs
its own ``Runner.run``) is a nested run: ``accounting.nested_run`` tells the accounting
rules that the roll-ups around it include its usage only if the two runs share their run
context, which the spans do not say.

A span ends with status ``error`` when the SDK recorded an error on it
(:class:`AgentsSpanError` names it), ``ok`` otherwise. Spans the SDK never ends are
ended as partial when their trace ends, and every open span when the installation
closes.

Two installations at once (two managers) each register a processor, but only the most
recent open one records (:func:`current`), so each SDK span is recorded once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from autobench.abp import NESTED_RUN, ActiveSpan, InstrumentationRuntime, SpanStatus
from autobench.abp._detached import DetachedSpan
from autobench.instrument.openai_agents._binding import Binding, Released, bind, release
from autobench.instrument.openai_agents._mapping import Start, record_end, start_of, workflow_start

logger = logging.getLogger("autobench.instrument.openai_agents")

EXTRACTION_ERROR = "instrumentation.extraction_error"

_INSTALLED: list[Recorder] = []


def current() -> Recorder | None:
    """The most recently installed open recorder, or ``None``."""
    installed = _INSTALLED
    return installed[-1] if installed else None


class AgentsSpanError(Exception):
    """The error the SDK recorded on a span (its ``SpanError`` message and ``data.error``)."""


def span_error(error: Any) -> AgentsSpanError | None:
    """The exception recorded for the SDK's ``SpanError`` mapping, or ``None`` when none."""
    if not error:
        return None
    if not isinstance(error, Mapping):
        return AgentsSpanError(str(error))
    message = str(error.get("message") or "error")
    data = error.get("data")
    detail = data.get("error") if isinstance(data, Mapping) else None
    if isinstance(detail, str) and detail:
        message = f"{message}: {detail}"
    return AgentsSpanError(message)


@dataclass(slots=True)
class Entry:
    """One open ABP span, its binding, and the SDK trace it belongs to."""

    detached: DetachedSpan
    binding: Binding
    trace_id: str | None
    span_type: str = "trace"


@dataclass(slots=True)
class TraceState:
    """A recorded SDK trace: its workflow span and the SDK ids of its spans."""

    workflow: Entry
    spans: set[str] = field(default_factory=set)
    """SDK ids of its spans still open."""
    recorded: list[str] = field(default_factory=list)
    """ABP ids of every span recorded in it."""


class Recorder:
    """Opens and ends the ABP spans of one installation (module docstring)."""

    def __init__(
        self, runtime: InstrumentationRuntime, *, capture_input: bool, capture_output: bool
    ) -> None:
        self.runtime = runtime
        self.capture_input = capture_input
        self.capture_output = capture_output
        self.active = False
        self._lock = threading.Lock()
        self._traces: dict[str, TraceState] = {}
        self._spans: dict[str, Entry] = {}
        self._released: Released = {}

    def activate(self) -> None:
        """Start recording (and make this the recorder that records, see :func:`current`)."""
        self.active = True
        _INSTALLED.append(self)

    def open_spans(self) -> int:
        """How many ABP spans are open (traces included)."""
        return len(self._spans) + len(self._traces)

    def _open(self, start: Start, parent: ActiveSpan | None) -> DetachedSpan | None:
        return self.runtime.open_span(
            start.operation,
            kind=start.kind,
            family=start.family,
            attributes=start.attributes,
            parent=parent,
        )

    def trace_started(self, trace: Any) -> None:
        """Open the workflow span of ``trace`` under the active span (inside a run only)."""
        trace_id = getattr(trace, "trace_id", None)
        if current() is not self or not isinstance(trace_id, str) or trace_id in self._traces:
            return
        detached = self._open(workflow_start(trace), None)
        if detached is None:
            return
        entry = Entry(detached, bind(detached.span), trace_id)
        with self._lock:
            self._traces[trace_id] = TraceState(entry)

    def trace_ended(self, trace: Any) -> None:
        """End the workflow span of ``trace`` and, as partial, its spans still open."""
        trace_id = getattr(trace, "trace_id", None)
        with self._lock:
            state = self._traces.pop(trace_id, None) if isinstance(trace_id, str) else None
            leftover = [] if state is None else [self._spans.pop(i, None) for i in state.spans]
        if state is None:
            return
        for entry in leftover:
            if entry is not None:
                entry.detached.end(SpanStatus.OK, partial=True)
        workflow = state.workflow
        workflow.detached.end(SpanStatus.OK)
        release(workflow.binding, self._released)
        with self._lock:  # the trace is over: forget its released spans
            for abp_id in (workflow.detached.span.id, *state.recorded):
                self._released.pop(abp_id, None)

    def _parent(self, span: Any) -> tuple[ActiveSpan | None, str | None]:
        trace_id = getattr(span, "trace_id", None)
        parent_id = getattr(span, "parent_id", None)
        parent = self._spans.get(parent_id) if isinstance(parent_id, str) else None
        if parent is not None:
            return parent.detached.span, trace_id
        state = self._traces.get(trace_id) if isinstance(trace_id, str) else None
        if state is not None:
            return state.workflow.detached.span, trace_id
        return None, None

    def span_started(self, span: Any, model: Any = None) -> None:
        """Open the ABP span of the SDK ``span`` under its parent's (module docstring);
        ``model`` is the SDK model that opened it, when known."""
        span_id = getattr(span, "span_id", None)
        if current() is not self or not isinstance(span_id, str) or span_id in self._spans:
            return
        data = getattr(span, "span_data", None)
        span_type = str(getattr(data, "type", None) or "unknown")
        parent, trace_id = self._parent(span)
        start = start_of(span_type, data, span_id, model)
        if span_type == "task" and getattr(span, "parent_id", None) in self._spans:
            # a Runner.run inside another run's span (a guardrail or tool running an agent)
            start.attributes[NESTED_RUN] = True
        detached = self._open(start, parent)
        if detached is None:
            return
        entry = Entry(detached, bind(detached.span), trace_id, span_type)
        with self._lock:
            self._spans[span_id] = entry
            state = self._traces.get(trace_id) if trace_id is not None else None
            if state is not None:
                state.spans.add(span_id)
                state.recorded.append(detached.span.id)

    def span_ended(self, span: Any) -> None:
        """Record the SDK ``span``'s data on its ABP span and end it."""
        span_id = getattr(span, "span_id", None)
        with self._lock:
            entry = self._spans.pop(span_id, None) if isinstance(span_id, str) else None
            state = self._traces.get(entry.trace_id) if entry and entry.trace_id else None
            if state is not None:
                state.spans.discard(span_id)
        if entry is None:
            return
        active = entry.detached.span
        try:
            record_end(
                active,
                entry.span_type,
                getattr(span, "span_data", None),
                capture_input=self.capture_input,
                capture_output=self.capture_output,
            )
        except Exception as exc:  # a reader failing must not lose the span
            logger.exception("openai_agents instrumentation: reading the span data failed")
            active.add_diagnostic(EXTRACTION_ERROR, f"{entry.span_type}: {type(exc).__name__}")
        error = span_error(getattr(span, "error", None))
        entry.detached.end(SpanStatus.OK if error is None else SpanStatus.ERROR, error)
        release(entry.binding, self._released)

    def close(self) -> None:
        """Stop recording; end every span still open as partial (spans, then workflows)."""
        self.active = False
        if self in _INSTALLED:
            _INSTALLED.remove(self)
        with self._lock:
            spans = list(self._spans.values())
            traces = [state.workflow for state in self._traces.values()]
            self._spans.clear()
            self._traces.clear()
            self._released.clear()
        for entry in [*spans, *traces]:
            entry.detached.end(SpanStatus.OK, partial=True)
