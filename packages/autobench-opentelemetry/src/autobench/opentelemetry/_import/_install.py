"""Installing the import direction (imports OpenTelemetry): the handle of ``_provider.attach``."""

from __future__ import annotations

from autobench.abp import InstrumentationHandle, InstrumentationRuntime, InstrumentorInfo
from autobench.opentelemetry._import._provider import attach


def install(
    info: InstrumentorInfo,
    runtime: InstrumentationRuntime,
    target_version: str | None,
    *,
    capture_content: bool,
) -> InstrumentationHandle:
    """Switch the span processor on (see ``_provider``); closing the handle switches it off.
    Raises :class:`~autobench.abp.InstrumentationError` when the global tracer provider is
    not an SDK one."""
    detach = attach(info, runtime, capture_content=capture_content)
    return InstrumentationHandle(detach, info=info)
