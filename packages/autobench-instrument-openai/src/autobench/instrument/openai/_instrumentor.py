"""``OpenAIInstrumentor``: the ABP instrumentor of the official OpenAI Python client.

Importing this module, creating an instrumentor and ``check()`` do not import
``openai`` (``autobench instrumentation doctor`` does all three); the SDK is
imported by :meth:`OpenAIInstrumentor.install`, which the instrumentation manager
calls only after the installed version passed the supported range
(:data:`~autobench.instrument.openai.package.SUPPORTED`).
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
from autobench.instrument.openai.package import INFO


class OpenAIInstrumentor:
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
        self.info = info
        self.capture_input = capture_input
        self.capture_output = capture_output

    def __repr__(self) -> str:
        return (
            f"OpenAIInstrumentor(capture_input={self.capture_input}, "
            f"capture_output={self.capture_output})"
        )

    def check(self) -> Compatibility:
        """Always ``compatible``, without importing ``openai``.

        The instrumentation manager has already checked the installed version
        against the supported range (package metadata only), and the doctor lists
        integrations through this check, so it must not import the SDK. The patch
        points themselves are resolved by :meth:`install`, which refuses a missing
        required one and reports missing optional ones as ``degraded``.
        """
        return Compatibility.compatible()

    def install(self, runtime: InstrumentationRuntime) -> InstrumentationHandle:
        """Patch the SDK (see ``_install``); the handle's ``close`` restores every original
        method exactly and abandons (ends as partial) the streams still open.

        The version is checked here too, so an instrumentor installed without a
        manager is refused the same way, before ``openai`` is even imported.
        """
        target = check_target(self.info)
        if not target.installable:
            raise InstrumentationError(target)
        # The one import of the SDK side, deferred so the doctor never loads openai.
        from autobench.instrument.openai import _install

        return _install.install(
            self.info,
            runtime,
            target.target_version,
            capture_input=self.capture_input,
            capture_output=self.capture_output,
        )


def create(settings: Any = None) -> OpenAIInstrumentor:
    """The instrumentor for ``settings`` (an ``OpenAIInstrumentation``: its bools
    ``capture_input`` and ``capture_output``); ``None`` gives the defaults (both off)."""
    return OpenAIInstrumentor(
        capture_input=bool(getattr(settings, "capture_input", False)),
        capture_output=bool(getattr(settings, "capture_output", False)),
    )
