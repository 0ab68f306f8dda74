"""ABP's active span follows OpenTelemetry's current span while it is an imported one.

Native instrumentors open their spans under ABP's active span (a context variable). An
imported span (``_processor``) is an ABP span, but starting it does not make it ABP's
active span: OpenTelemetry makes a span current later, by attaching a context
(``start_as_current_span``, ``use_span``, ``context.attach``), and ends it elsewhere. So
this module wraps OpenTelemetry's runtime context (``opentelemetry.context._RUNTIME_CONTEXT``,
the one object every attach and detach goes through; reviewed in opentelemetry-api 1.30 to
1.45): when a context is attached whose current span is an imported span of the run active
here (and not one a native instrumentor covers, see ``_processor``), that ABP span becomes
the active ABP span until the matching detach. A native span
opened meanwhile (an OpenAI client call inside a framework's ``chat`` span) then nests under
the imported span, and accounting sees the two layers of one call as one call.

Outside a run, for spans that were not imported, and while the processor is switched off,
attach and detach are OpenTelemetry's own, with one context-variable read more.
"""

from __future__ import annotations

from contextlib import suppress
from contextvars import Token
from typing import Any

from autobench.abp import ActiveSpan
from autobench.abp._context import _collector, _span
from autobench.opentelemetry._import._processor import AutobenchSpanProcessor
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.context.context import Context, _RuntimeContext

_get_current_span = trace.get_current_span


class BridgedToken:
    """The token of an attach that also set ABP's active span: both tokens, reset together."""

    __slots__ = ("abp", "otel")

    def __init__(self, otel: Token[Context], abp: Token[ActiveSpan | None]) -> None:
        self.otel = otel
        self.abp = abp


class BridgedRuntimeContext(_RuntimeContext):
    """OpenTelemetry's runtime context ``inner``, with ABP's active span following the
    imported spans of ``processor`` (module docstring)."""

    def __init__(self, inner: _RuntimeContext, processor: AutobenchSpanProcessor) -> None:
        self.inner = inner
        self.processor = processor

    def attach(self, context: Context) -> Any:
        token = self.inner.attach(context)
        collector = _collector.get()
        if collector is None or not self.processor.enabled:
            return token
        found = self.processor.open_span(_get_current_span(context).get_span_context().span_id)
        if found is None or found.collector is not collector or found._ended:
            return token
        return BridgedToken(token, _span.set(found))

    def get_current(self) -> Context:
        return self.inner.get_current()

    def detach(self, token: Any) -> None:
        if token.__class__ is BridgedToken:
            with suppress(ValueError):  # detached in another context than attached in
                _span.reset(token.abp)
            token = token.otel
        self.inner.detach(token)


def install_bridge(processor: AutobenchSpanProcessor) -> bool:
    """Wrap OpenTelemetry's runtime context for ``processor`` (once; ``True`` when it is, or
    already was, wrapped). ``False`` when this OpenTelemetry has no runtime context to wrap:
    the import then works without native spans nesting under imported ones."""
    current = getattr(otel_context, "_RUNTIME_CONTEXT", None)
    if isinstance(current, BridgedRuntimeContext):
        current.processor = processor
        return True
    if not isinstance(current, _RuntimeContext):
        return False
    otel_context._RUNTIME_CONTEXT = BridgedRuntimeContext(current, processor)
    return True
