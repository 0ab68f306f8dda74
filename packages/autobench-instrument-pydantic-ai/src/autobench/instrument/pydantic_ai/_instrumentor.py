"""``PydanticAIInstrumentor``: the ABP instrumentor of Pydantic AI agents (framework layer).

Importing this module, creating an instrumentor and ``check()`` do not import
``pydantic_ai`` (``autobench instrumentation doctor`` does all three); the SDK is
imported by :meth:`PydanticAIInstrumentor.install`, which the instrumentation
manager calls only after the installed version passed the supported range
(:data:`~autobench.instrument.pydantic_ai.package.SUPPORTED`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from autobench.abp import DeferredInstrumentor, InstrumentorInfo
from autobench.instrument.pydantic_ai._assets import AssetRef
from autobench.instrument.pydantic_ai.package import INFO


class PydanticAIInstrumentor(DeferredInstrumentor):
    """Records every Pydantic AI agent run of a benchmark run: the agent, its model
    requests, tool calls and output validation (spans: ``_capability``).

    ``assets`` are tracked prompts, tools or types (``TrackedPrompt``,
    ``AssetVersion``, or objects tracked with ``autobench.track``) whose versions are
    bound to the agent spans (see ``_assets``); an untracked object raises
    ``TypeError`` here. ``capture_input`` / ``capture_output`` store each model
    request's messages and response parts (off by default; tool arguments and results
    are always recorded, under the capture policy). ``info`` is
    :data:`~autobench.instrument.pydantic_ai.package.INFO` unless given.

    :meth:`install` raises :class:`~autobench.abp.InstrumentationError` when the
    installed Pydantic AI is missing, outside the supported range, or lacks the
    capability API, before anything is patched.
    """

    def __init__(
        self,
        *,
        assets: Iterable[Any] = (),
        capture_input: bool = False,
        capture_output: bool = False,
        info: InstrumentorInfo = INFO,
    ) -> None:
        super().__init__(info)
        self.assets = tuple(AssetRef.of(asset) for asset in assets)
        self.capture_input = capture_input
        self.capture_output = capture_output

    def __repr__(self) -> str:
        names = ", ".join(asset.name for asset in self.assets)
        return (
            f"PydanticAIInstrumentor(assets=[{names}], capture_input={self.capture_input}, "
            f"capture_output={self.capture_output})"
        )

    install_module = "autobench.instrument.pydantic_ai._install"
    """Patches ``Agent.iter`` (see ``_install``); its handle's ``close`` restores it."""

    def install_options(self) -> dict[str, Any]:
        return {
            "assets": self.assets,
            "capture_input": self.capture_input,
            "capture_output": self.capture_output,
        }


PydanticAI = PydanticAIInstrumentor
"""The name the benchmark builder reads best with: ``.instrument(PydanticAI(assets=[...]))``."""


def create(settings: Any = None) -> PydanticAIInstrumentor:
    """The instrumentor for ``settings`` (a ``PydanticAIInstrumentation``: its bools
    ``capture_input`` and ``capture_output``); ``None`` gives the defaults."""
    return PydanticAIInstrumentor(
        capture_input=bool(getattr(settings, "capture_input", False)),
        capture_output=bool(getattr(settings, "capture_output", False)),
    )
