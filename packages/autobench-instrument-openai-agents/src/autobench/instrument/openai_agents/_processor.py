"""The SDK trace processor that feeds a :class:`~._recorder.Recorder` (imports ``agents``).

The SDK calls a processor synchronously, from the code that starts or ends a trace
or span: ``on_trace_start`` / ``on_span_start`` before it makes the trace or span
current, ``on_trace_end`` / ``on_span_end`` before it restores the previous one
(``agents/tracing/spans.py``, ``traces.py``). Every callback is guarded: a failure of
the instrumentation is logged and never reaches the SDK or the application. A model call's
span start also finds the SDK model that opened it (``_caller``) in the calling frames.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from agents.tracing import Span, Trace, TracingProcessor

from autobench.instrument.openai_agents._caller import calling_model
from autobench.instrument.openai_agents._recorder import Recorder

logger = logging.getLogger("autobench.instrument.openai_agents")

MODEL_CALLS = frozenset({"generation", "response"})
"""SDK span types opened by a model, whose client and name the span records (``_caller``)."""


def _guarded(callback: Callable[[Any], None], item: Any, what: str) -> None:
    try:
        callback(item)
    except Exception:
        logger.exception("openai_agents instrumentation: %s failed", what)


class AutobenchTracingProcessor(TracingProcessor):
    """Forwards the SDK's trace and span events to a recorder; never raises."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def __repr__(self) -> str:
        return f"AutobenchTracingProcessor(active={self.recorder.active})"

    def on_trace_start(self, trace: Trace) -> None:
        _guarded(self.recorder.trace_started, trace, "on_trace_start")

    def on_trace_end(self, trace: Trace) -> None:
        _guarded(self.recorder.trace_ended, trace, "on_trace_end")

    def on_span_start(self, span: Span[Any]) -> None:
        try:
            model_call = getattr(span.span_data, "type", None) in MODEL_CALLS
            model = calling_model() if model_call else None
        except Exception:
            logger.exception("openai_agents instrumentation: finding the calling model failed")
            model = None
        try:
            self.recorder.span_started(span, model)
        except Exception:
            logger.exception("openai_agents instrumentation: on_span_start failed")

    def on_span_end(self, span: Span[Any]) -> None:
        _guarded(self.recorder.span_ended, span, "on_span_end")

    def shutdown(self) -> None:
        """Nothing to flush: spans go to the run's collector as they end (the SDK calls this
        at interpreter exit; the installation's ``close`` is what stops recording)."""

    def force_flush(self) -> None:
        """Nothing is buffered."""
