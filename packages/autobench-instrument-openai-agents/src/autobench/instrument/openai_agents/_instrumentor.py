"""``OpenAIAgentsInstrumentor``: the ABP instrumentor of the OpenAI Agents SDK.

Importing this module, creating an instrumentor and ``check()`` do not import
``agents`` (``autobench instrumentation doctor`` does all three); the SDK is
imported by :meth:`OpenAIAgentsInstrumentor.install`, which the instrumentation
manager calls only after the installed version passed the supported range
(:data:`~autobench.instrument.openai_agents.package.SUPPORTED`).
"""

from __future__ import annotations

from typing import Any

from autobench.abp import (
    Compatibility,
    InstrumentationError,
    InstrumentationHandle,
    InstrumentationRuntime,
    InstrumentorInfo,
    check_target,
)
from autobench.instrument.openai_agents.package import INFO


class OpenAIAgentsInstrumentor:
    """Records the SDK's own traces as ABP spans, through a trace processor of its own.

    ``capture_input`` / ``capture_output`` store a tool call's arguments and result and a
    model call's input and output on the spans; both are off by default, as prompts,
    arguments and answers may be private or large (the collector's capture policy applies
    when they are on). ``info`` is :data:`~autobench.instrument.openai_agents.package.INFO`
    unless given (a test can declare another supported range).

    :meth:`install` raises :class:`~autobench.abp.InstrumentationError` when the installed
    ``openai-agents`` is missing, outside the supported range, or lacks the trace processor
    interface, before anything is registered.
    """

    def __init__(
        self,
        *,
        capture_input: bool = False,
        capture_output: bool = False,
        info: InstrumentorInfo = INFO,
    ) -> None:
        self.info = info
        self.capture_input = capture_input
        self.capture_output = capture_output

    def __repr__(self) -> str:
        return (
            f"OpenAIAgentsInstrumentor(capture_input={self.capture_input}, "
            f"capture_output={self.capture_output})"
        )

    def check(self) -> Compatibility:
        """Always ``compatible``, without importing ``agents``.

        The instrumentation manager has already checked the installed version against the
        supported range (package metadata only), and the doctor lists integrations through
        this check, so it must not import the SDK. The seam itself is resolved by
        :meth:`install`.
        """
        return Compatibility.compatible()

    def install(self, runtime: InstrumentationRuntime) -> InstrumentationHandle:
        """Register the processor with the SDK's trace provider (see ``_install``); the
        handle's ``close`` removes it again and ends the spans still open as partial.

        The version is checked here too, so an instrumentor installed without a manager is
        refused the same way, before ``agents`` is even imported.
        """
        target = check_target(self.info)
        if not target.installable:
            raise InstrumentationError(target)
        # The one import of the SDK side, deferred so the doctor never loads the SDK.
        from autobench.instrument.openai_agents import _install

        return _install.install(
            self.info,
            runtime,
            target.target_version,
            capture_input=self.capture_input,
            capture_output=self.capture_output,
        )


def create(settings: Any = None) -> OpenAIAgentsInstrumentor:
    """The instrumentor for ``settings`` (an ``OpenAIAgentsInstrumentation``; its bools
    ``capture_input`` and ``capture_output`` are read when it has them); ``None`` gives the
    defaults (both off)."""
    return OpenAIAgentsInstrumentor(
        capture_input=bool(getattr(settings, "capture_input", False)),
        capture_output=bool(getattr(settings, "capture_output", False)),
    )
