"""Registering the trace processor with the SDK and removing it again (imports ``agents``).

:func:`install` registers one :class:`~._processor.AutobenchTracingProcessor` with the
SDK's global trace provider through its public ``register_processor`` (what
``agents.add_trace_processor`` calls), after the processors already registered (the
SDK's default exporter, the application's): they keep receiving every event, in their
order. Getting the provider (``get_trace_provider()``) creates the SDK's default
provider if nothing used tracing yet, exactly as the SDK's first trace would.

The SDK has no public way to remove one processor: ``set_trace_processors`` replaces the
whole list and nothing returns it. The handle's ``close`` therefore removes the processor
from the private tuple ``_multi_processor._processors`` of the provider it was registered
with (``DefaultTraceProvider``, ``agents/tracing/provider.py``), under that object's own
``_lock``, leaving every other processor and their order untouched. A provider without
that list (an application's own ``TraceProvider``) is reported ``degraded`` at install:
the processor is then only deactivated at close, not removed. A processor the application
already dropped (``set_trace_processors`` without it) is left alone.
"""

from __future__ import annotations

from typing import Any

from autobench.abp import (
    Compatibility,
    InstrumentationError,
    InstrumentationHandle,
    InstrumentationRuntime,
    InstrumentorInfo,
)
from autobench.instrument.openai_agents._recorder import Recorder


class ProcessorList:
    """The private processor tuple of a ``DefaultTraceProvider`` (removal only)."""

    __slots__ = ("_multi",)

    def __init__(self, multi: Any) -> None:
        self._multi = multi

    @classmethod
    def of(cls, provider: Any) -> ProcessorList | None:
        """The list of ``provider``, or ``None`` when it does not have the reviewed shape."""
        multi = getattr(provider, "_multi_processor", None)
        if not isinstance(getattr(multi, "_processors", None), tuple):
            return None
        lock = getattr(multi, "_lock", None)
        if not (hasattr(lock, "__enter__") and hasattr(lock, "__exit__")):
            return None
        return cls(multi)

    def processors(self) -> tuple[Any, ...]:
        """The processors registered now, in order."""
        return tuple(self._multi._processors)

    def remove(self, processor: Any) -> bool:
        """Drop ``processor`` (by identity), keeping the others in order; ``False`` when it
        was not registered."""
        with self._multi._lock:
            current = self._multi._processors
            if not any(item is processor for item in current):
                return False
            self._multi._processors = tuple(item for item in current if item is not processor)
        return True


def install(
    info: InstrumentorInfo,
    runtime: InstrumentationRuntime,
    target_version: str | None,
    *,
    capture_input: bool,
    capture_output: bool,
) -> InstrumentationHandle:
    """Register the processor for ``runtime``. Raises :class:`InstrumentationError`
    (``unsupported``) when the SDK lacks the trace processor interface; nothing is
    registered then."""
    try:
        from agents.tracing import get_trace_provider

        from autobench.instrument.openai_agents._processor import AutobenchTracingProcessor

        provider = get_trace_provider()
    except (ImportError, AttributeError) as exc:
        raise InstrumentationError(
            Compatibility.unsupported(
                f"agents.tracing has no trace processor interface: {exc}",
                instrumentor=info.id,
                target_version=target_version,
            )
        ) from None
    register = getattr(provider, "register_processor", None)
    if not callable(register):
        raise InstrumentationError(
            Compatibility.unsupported(
                f"the trace provider {type(provider).__name__} has no register_processor",
                instrumentor=info.id,
                target_version=target_version,
            )
        )
    processors = ProcessorList.of(provider)
    if processors is None:
        runtime.report(
            Compatibility.degraded(
                f"the trace provider {type(provider).__name__} has no processor list: "
                "the processor is deactivated on close, not removed",
                instrumentor=info.id,
                target_version=target_version,
            )
        )
    recorder = Recorder(runtime, capture_input=capture_input, capture_output=capture_output)
    processor = AutobenchTracingProcessor(recorder)
    register(processor)
    recorder.activate()

    def uninstall() -> None:
        recorder.close()
        if processors is not None:
            processors.remove(processor)

    return InstrumentationHandle(uninstall, info=info)
