"""``OpenAIInstrumentor``: the ABP instrumentor of the official OpenAI Python client.

Importing this module, creating an instrumentor and ``check()`` do not import
``openai`` (``autobench instrumentation doctor`` does all three); the SDK is
imported by :meth:`OpenAIInstrumentor.install`, which the instrumentation manager
calls only after the installed version passed the supported range
(:data:`~autobench.instrument.openai.package.SUPPORTED`).
"""

from __future__ import annotations

from typing import Any

from autobench.abp import DeferredInstrumentor, InstrumentorInfo
from autobench.instrument.openai.package import INFO


class OpenAIInstrumentor(DeferredInstrumentor):
    """Records one ``llm`` span per chat completion, response or embeddings call.

    ``capture_input`` / ``capture_output`` store the request messages (or input)
    and the response content on the span; both are off by default, as prompts and
    answers may be private or large (the collector's capture policy applies when
    they are on). ``info`` is :data:`~autobench.instrument.openai.package.INFO`
    unless given (a test can declare another supported range).

    :meth:`install` raises :class:`~autobench.abp.InstrumentationError` when the
    installed ``openai`` is missing, outside the supported range, or lacks a
    required patch point, before anything is patched.
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
            f"OpenAIInstrumentor(capture_input={self.capture_input}, "
            f"capture_output={self.capture_output})"
        )

    install_module = "autobench.instrument.openai._install"
    """Patches the SDK (see ``_install``); its handle's ``close`` restores every original
    method exactly and abandons (ends as partial) the streams still open."""

    def install_options(self) -> dict[str, Any]:
        return {"capture_input": self.capture_input, "capture_output": self.capture_output}


def create(settings: Any = None) -> OpenAIInstrumentor:
    """The instrumentor for ``settings`` (an ``OpenAIInstrumentation``: its bools
    ``capture_input`` and ``capture_output``); ``None`` gives the defaults (both off)."""
    return OpenAIInstrumentor(
        capture_input=bool(getattr(settings, "capture_input", False)),
        capture_output=bool(getattr(settings, "capture_output", False)),
    )
