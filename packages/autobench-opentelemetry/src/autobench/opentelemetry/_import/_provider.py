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
* a provider that wraps an SDK ``TracerProvider`` and hands its span processors to it
  (Logfire's ``ProxyTracerProvider``, set by ``logfire.configure()``, keeps it in its
  ``provider`` attribute): the processor is added to the wrapped SDK provider, the one that
  runs the processors (:data:`WRAPPED`). A wrapper that swaps its SDK provider later (a
  second ``logfire.configure()``) gets a processor on the new one at the next install;
* any other provider (a no-op provider, a vendor's own that does not run opentelemetry-sdk
  span processors): refused with the reason, nothing is changed; the core records the
  reason as the run's ``instrumentation.skipped`` diagnostic.

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


WRAPPED = ("provider", "_provider", "tracer_provider", "_tracer_provider", "_delegate")
"""Attributes under which a wrapping tracer provider keeps the SDK provider it delegates to
(``provider``: Logfire's ``ProxyTracerProvider``, logfire 3 to 5)."""


def global_sdk_provider(info: InstrumentorInfo) -> TracerProvider:
    """The SDK ``TracerProvider`` behind the global one (module docstring), ours set first
    when none is. Raises :class:`InstrumentationError` (``conflicting``, with the reason)
    for a provider that neither is nor wraps an SDK one."""
    provider = trace.get_tracer_provider()
    if isinstance(provider, trace.ProxyTracerProvider):
        trace.set_tracer_provider(TracerProvider())
        provider = trace.get_tracer_provider()
    if isinstance(provider, TracerProvider):
        return provider
    wrapped = sdk_provider_inside(provider)
    if wrapped is not None:
        return wrapped
    name = f"{type(provider).__module__}.{type(provider).__qualname__}"
    raise InstrumentationError(
        Compatibility.conflicting(
            f"the global tracer provider is a {name}, which neither is nor wraps an "
            "opentelemetry-sdk TracerProvider: no span processor can be added to it, so "
            "OpenTelemetry spans are not imported (set an SDK TracerProvider, or the "
            "application's tracing library's, before the benchmark starts)",
            instrumentor=info.id,
        )
    )


def sdk_provider_inside(provider: object) -> TracerProvider | None:
    """The SDK ``TracerProvider`` ``provider`` wraps (under a name of :data:`WRAPPED`), when
    it also takes span processors (has ``add_span_processor``); else ``None``."""
    if not callable(getattr(provider, "add_span_processor", None)):
        return None
    for name in WRAPPED:
        inner = getattr(provider, name, None)
        if isinstance(inner, TracerProvider):
            return inner
    return None


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
