"""Identity of the Pydantic AI instrumentor, readable without importing the SDK.

The core lists integrations by importing this module alone, so it imports
nothing but :mod:`autobench.abp`. ``SUPPORTED`` is the one place the range of
``pydantic-ai-slim`` versions whose seams were reviewed is declared; the
instrumentation manager checks the installed version against it (package
metadata only) before anything is imported or patched.
"""

from __future__ import annotations

from autobench.abp import AbstractionLayer, CaptureMechanism, InstrumentorInfo

SUPPORTED = ">=2.62,<3"
"""PEP 440 range of ``pydantic-ai-slim`` whose capability hooks and ``Agent.iter`` were
reviewed (the test suite runs on 2.62.0). Earlier 2.x releases lack hooks this
instrumentor relies on (``wrap_output_validate``, ``ModelRequestContext.streaming``)."""

INFO = InstrumentorInfo(
    id="pydantic_ai",
    version="0.1.0",
    target_distribution="pydantic-ai-slim",
    supported_versions=SUPPORTED,
    mechanism=CaptureMechanism.HOOK,
    layer=AbstractionLayer.FRAMEWORK,
    span_kinds=("agent", "llm", "tool", "parser"),
    semantic_families=("agent", "llm", "tool"),
    capabilities=("sync", "async", "streaming", "iter"),
    source_convention="pydantic_ai",
    package="autobench-instrument-pydantic-ai",
    package_version="0.1.0",
)
"""Identity, layer, mechanism and capabilities of :class:`PydanticAIInstrumentor`."""
