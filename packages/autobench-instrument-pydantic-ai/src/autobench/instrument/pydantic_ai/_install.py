"""Putting the capability into every agent run, and taking it out again (imports Pydantic AI).

:func:`install` patches ``Agent.iter`` (``pydantic_ai/agent/__init__.py``), the one
method every run of an ``Agent`` goes through: ``run``, ``run_sync``,
``run_stream``, ``run_stream_events`` and the wrapper agents all enter it
(``agent/abstract.py``, ``agent/wrapper.py``). The wrapper changes nothing but the
public ``capabilities=`` argument: while an Autobench run is active (and the
``pydantic_ai`` instrumentor is not suppressed) it appends a fresh
:class:`~autobench.instrument.pydantic_ai._capability.AutobenchCapability` to the
capabilities the caller passed, so agents built anywhere in the task are recorded
without being handed anything, the agent's own capabilities (Pydantic AI's
``Instrumentation`` among them) run as before, and outside a run the call is the
original one. The handle's ``close`` restores the original ``Agent.iter`` exactly.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from typing import Any

from autobench.abp import (
    Compatibility,
    InstrumentationError,
    InstrumentationHandle,
    InstrumentationRuntime,
    InstrumentorInfo,
)
from autobench.abp._patching import MethodPatch
from autobench.instrument.pydantic_ai._assets import AssetRef

logger = logging.getLogger("autobench.instrument.pydantic_ai")


def install(
    info: InstrumentorInfo,
    runtime: InstrumentationRuntime,
    target_version: str | None,
    *,
    assets: Sequence[AssetRef],
    capture_input: bool,
    capture_output: bool,
) -> InstrumentationHandle:
    """Patch ``Agent.iter`` for ``runtime``. Raises :class:`InstrumentationError`
    (``unsupported``) when Pydantic AI lacks the capability API or ``Agent.iter``;
    nothing is patched then."""
    try:
        from autobench.instrument.pydantic_ai._capability import AutobenchCapability
        from pydantic_ai import Agent
    except ImportError as exc:
        raise InstrumentationError(
            Compatibility.unsupported(
                f"pydantic_ai lacks the capability API: {exc}",
                instrumentor=info.id,
                target_version=target_version,
            )
        ) from None
    if not callable(Agent.__dict__.get("iter")):
        raise InstrumentationError(
            Compatibility.unsupported(
                "pydantic_ai.Agent has no iter method of its own",
                instrumentor=info.id,
                target_version=target_version,
            )
        )

    def capability() -> AutobenchCapability | None:
        if not runtime.enabled():
            return None
        return AutobenchCapability(
            runtime, assets=assets, capture_input=capture_input, capture_output=capture_output
        )

    def make(iterate: Callable[..., Any], kind: str, patch: MethodPatch) -> Callable[..., Any]:
        @functools.wraps(iterate)
        def instrumented_iter(self: Any, *args: Any, **kwargs: Any) -> Any:
            given = kwargs.get("capabilities") or ()
            # Another installation (a second manager) may have added its capability already:
            # a run is recorded once.
            if patch.active and not any(isinstance(c, AutobenchCapability) for c in given):
                try:
                    added = capability()
                except Exception:
                    logger.exception("pydantic_ai instrumentation: building the capability failed")
                    added = None
                if added is not None:
                    kwargs["capabilities"] = [*given, added]
            return iterate(self, *args, **kwargs)

        return instrumented_iter

    patch = MethodPatch(Agent, "iter", make)

    def uninstall() -> Compatibility | None:
        return patch.restore()

    return InstrumentationHandle(uninstall, info=info)
