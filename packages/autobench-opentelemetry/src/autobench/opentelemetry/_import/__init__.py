"""Import: OpenTelemetry spans started inside a benchmark run become ABP spans of that run.

The ``opentelemetry`` instrumentor adds one OpenTelemetry ``SpanProcessor`` (official
``opentelemetry-sdk``) to the global tracer provider: the SDK ``TracerProvider`` the
application set (or the one a wrapping provider such as Logfire's delegates to), or,
while the global provider is still the API's default proxy, an SDK ``TracerProvider`` of
ours that is then set as the global one (``_provider``). While a run
is active in the context that starts an OpenTelemetry span, the processor opens an ABP span
of that run for it (``_processor``) and, when it ends, maps its GenAI semantic-convention
attributes to Autobench's (``_mapping``). Importing this package does not import
OpenTelemetry; :meth:`OpenTelemetryInstrumentor.install` does.

>>> from autobench.abp import InstrumentationManager
>>> from autobench.opentelemetry._import import create
>>> with InstrumentationManager() as manager:  # doctest: +SKIP
...     manager.install(create(None))
"""

from __future__ import annotations

from typing import Any

from autobench.abp import DeferredInstrumentor, InstrumentorInfo
from autobench.opentelemetry._import.package import INFO, SUPPORTED

__all__ = ["INFO", "SUPPORTED", "OpenTelemetryInstrumentor", "create"]


class OpenTelemetryInstrumentor(DeferredInstrumentor):
    """Turns the OpenTelemetry spans of a run into ABP spans of it (see the package docstring).

    ``capture_content`` keeps the GenAI message, prompt and tool argument/result attributes
    (off by default). :meth:`install` raises :class:`~autobench.abp.InstrumentationError`
    when ``opentelemetry-sdk`` is missing or outside :data:`SUPPORTED`, or when the global
    tracer provider is neither an SDK ``TracerProvider``, nor a provider wrapping one (as
    Logfire's does), nor the default proxy.
    """

    install_module = "autobench.opentelemetry._import._install"

    def __init__(self, *, capture_content: bool = False, info: InstrumentorInfo = INFO) -> None:
        super().__init__(info)
        self.capture_content = capture_content

    def __repr__(self) -> str:
        return f"OpenTelemetryInstrumentor(capture_content={self.capture_content})"

    def install_options(self) -> dict[str, Any]:
        return {"capture_content": self.capture_content}


def create(settings: Any = None) -> OpenTelemetryInstrumentor:
    """The instrumentor for ``settings`` (the core's ``OpenTelemetryInstrumentation``: its
    bool ``capture_content``); ``None`` gives the defaults."""
    return OpenTelemetryInstrumentor(
        capture_content=bool(getattr(settings, "capture_content", False))
    )
