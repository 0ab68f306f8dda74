"""``OpenAIAgentsInstrumentor``: the ABP instrumentor of the OpenAI Agents SDK.

Importing this module, creating an instrumentor and ``check()`` do not import
``agents`` (``autobench instrumentation doctor`` does all three); the SDK is
imported by :meth:`OpenAIAgentsInstrumentor.install`, which the instrumentation
manager calls only after the installed version passed the supported range
(:data:`~autobench.instrument.openai_agents.package.SUPPORTED`).
"""

from __future__ import annotations

from typing import Any

from autobench.abp import DeferredInstrumentor, InstrumentorInfo
from autobench.instrument.openai_agents.package import INFO


class OpenAIAgentsInstrumentor(DeferredInstrumentor):
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
        super().__init__(info)
        self.capture_input = capture_input
        self.capture_output = capture_output

    def __repr__(self) -> str:
        return (
            f"OpenAIAgentsInstrumentor(capture_input={self.capture_input}, "
            f"capture_output={self.capture_output})"
        )

    install_module = "autobench.instrument.openai_agents._install"
    """Registers the processor with the SDK's trace provider (see ``_install``); its
    handle's ``close`` removes it again and ends the spans still open as partial."""

    def install_options(self) -> dict[str, Any]:
        return {"capture_input": self.capture_input, "capture_output": self.capture_output}


def create(settings: Any = None) -> OpenAIAgentsInstrumentor:
    """The instrumentor for ``settings`` (an ``OpenAIAgentsInstrumentation``; its bools
    ``capture_input`` and ``capture_output`` are read when it has them); ``None`` gives the
    defaults (both off)."""
    return OpenAIAgentsInstrumentor(
        capture_input=bool(getattr(settings, "capture_input", False)),
        capture_output=bool(getattr(settings, "capture_output", False)),
    )
