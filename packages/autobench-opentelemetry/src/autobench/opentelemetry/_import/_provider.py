"""Where the span processor goes: the global tracer provider, made an SDK one if needed.

:func:`attach` adds :class:`AutobenchSpanProcessor` to the global tracer provider:

* an SDK ``TracerProvider`` the application set: the processor is added to it (the
  application's own processors and exporters are untouched);
* the API's default ``ProxyTracerProvider`` (nothing set yet): an SDK ``TracerProvider`` of
  ours, without exporters, is set as the global one, and the processor added to it. The
  tracers libraries already obtained from the proxy follow it. OpenTelemetry allows the
  global provider to be set once per process: an application that calls
  ``set_tracer_provider`` later is refused by OpenTelemetry (it logs a warning and ours
  stays); such an application should set its provider before the benchmark starts, or add
  the processor to its provider itself;
* any other provider (a no-op provider, a vendor's own): refused, nothing is changed.

The SDK cannot remove a processor, so one processor per provider is kept for the process
and switched on and off (:func:`attach` / its detach function).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from autobench.abp import (
    Compatibility,
    InstrumentationError,
    InstrumentationRuntime,
    InstrumentorInfo,
)
from autobench.opentelemetry._import._context_bridge import install_bridge
from autobench.opentelemetry._import._processor import AutobenchSpanProcessor
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

_lock = threading.Lock()
_processors: dict[int, tuple[TracerProvider, AutobenchSpanProcessor]] = {}


def global_sdk_provider(info: InstrumentorInfo) -> TracerProvider:
    """The global SDK ``TracerProvider``, ours set first when none is. Raises
    :class:`InstrumentationError` (``conflicting``) for a provider of another kind."""
    provider = trace.get_tracer_provider()
    if isinstance(provider, trace.ProxyTracerProvider):
        trace.set_tracer_provider(TracerProvider())
        provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        raise InstrumentationError(
            Compatibility.conflicting(
                f"the global tracer provider is a {type(provider).__name__}, not an "
                "opentelemetry-sdk TracerProvider: no span processor can be added to it",
                instrumentor=info.id,
            )
        )
    return provider


def attach(
    info: InstrumentorInfo, runtime: InstrumentationRuntime, *, capture_content: bool
) -> Callable[[], None]:
    """Switch on the processor of the global SDK provider (added on first use), make ABP's
    active span follow the imported spans (``_context_bridge``) and return the function
    that switches the processor off. One installation at a time: a second ``attach``
    before the detach reconfigures the same processor."""
    provider = global_sdk_provider(info)
    with _lock:
        found = _processors.get(id(provider))
        if found is None or found[0] is not provider:
            processor = AutobenchSpanProcessor(info, capture_content=capture_content)
            provider.add_span_processor(processor)
            _processors[id(provider)] = (provider, processor)
        else:
            processor = found[1]
            processor.info = info
            processor.capture_content = capture_content
        processor.enabled = True
        bridged = install_bridge(processor)

    def detach() -> None:
        processor.enabled = False
        processor.forget()

    if not bridged:
        runtime.report(
            Compatibility.degraded(
                "opentelemetry.context has no runtime context to follow: native spans opened "
                "inside an imported span are placed under the run's active span",
                instrumentor=info.id,
            )
        )
    return detach
