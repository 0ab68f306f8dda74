"""Installing the wrappers on the SDK and taking them off again (imports ``openai``).

:func:`install` resolves the patch points (``_seams``), refuses an SDK that
lacks a required one before anything is patched, reports missing optional ones
as ``degraded``, and puts one :class:`~autobench.abp._patching.MethodPatch` on
each. The returned handle's ``close`` stops the dispatch to this installation,
abandons the streams it left open (ends their spans as partial) and restores
every original method exactly; a method some other code replaced meanwhile is
left in place and reported as ``conflicting``.
"""

from __future__ import annotations

from autobench.abp import (
    Compatibility,
    InstrumentationError,
    InstrumentationHandle,
    InstrumentationRuntime,
    InstrumentorInfo,
)
from autobench.abp._patching import MethodPatch
from autobench.instrument.openai._calls import Installation
from autobench.instrument.openai._seams import SeamError, resolve
from autobench.instrument.openai._streams import abandon_streams
from autobench.instrument.openai._wrappers import call_wrapper, close_wrapper, parse_wrapper


def install(
    info: InstrumentorInfo,
    runtime: InstrumentationRuntime,
    target_version: str | None,
    *,
    capture_input: bool,
    capture_output: bool,
) -> InstrumentationHandle:
    """Patch the SDK for ``runtime``. Raises :class:`InstrumentationError` (``unsupported``)
    naming a missing required patch point; nothing is patched then."""
    try:
        seams = resolve()
    except SeamError as exc:
        raise InstrumentationError(
            Compatibility.unsupported(str(exc), instrumentor=info.id, target_version=target_version)
        ) from None
    if seams.missing:
        runtime.report(
            Compatibility.degraded(
                "not instrumented: " + ", ".join(seams.missing),
                instrumentor=info.id,
                target_version=target_version,
            )
        )
    installation = Installation(
        runtime, seams, capture_input=capture_input, capture_output=capture_output
    )
    patches: list[MethodPatch] = []
    try:
        for call in seams.calls:
            factory = call_wrapper(call.api, asynchronous=call.asynchronous)
            patches.append(MethodPatch(call.cls, call.name, factory))
        for closer in seams.closers:
            patches.append(MethodPatch(closer.cls, "close", close_wrapper(helper=closer.helper)))
        for response in seams.parsers:
            patches.append(MethodPatch(response, "parse", parse_wrapper(seams.streams)))
    except BaseException:
        for patch in reversed(patches):
            patch.restore()
        raise
    installation.activate()

    def uninstall() -> Compatibility | None:
        installation.deactivate()
        abandon_streams(installation)
        conflicts = [found for patch in reversed(patches) if (found := patch.restore())]
        for conflict in conflicts[1:]:
            runtime.report(conflict)
        return conflicts[0] if conflicts else None

    return InstrumentationHandle(uninstall, info=info)
