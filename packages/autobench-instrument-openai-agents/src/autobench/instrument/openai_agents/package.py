"""Identity of the OpenAI Agents instrumentor, readable without importing the SDK.

The core lists integrations by importing this module alone, so it imports
nothing but :mod:`autobench.abp`. ``SUPPORTED`` is the one place the range of
``openai-agents`` versions whose tracing seams were reviewed is declared; the
instrumentation manager checks the installed version against it (package
metadata only) before anything is imported or registered.
"""

from __future__ import annotations

from autobench.abp import AbstractionLayer, CaptureMechanism, InstrumentorInfo

SUPPORTED = ">=0.24,<0.25"
"""PEP 440 range of the ``openai-agents`` distribution whose trace processor interface, span
data classes and processor list were reviewed (the test suite passes on openai-agents 0.24.0).
The SDK is pre-1.0 and its minor releases change tracing (0.24 added the task and turn spans),
so the range is one minor release wide."""

INFO = InstrumentorInfo(
    id="openai_agents",
    version="0.1.0",
    target_distribution="openai-agents",
    supported_versions=SUPPORTED,
    mechanism=CaptureMechanism.HOOK,
    layer=AbstractionLayer.FRAMEWORK,
    span_kinds=("workflow", "agent", "llm", "tool", "handoff", "guardrail", "custom"),
    semantic_families=("agent", "llm", "tool"),
    capabilities=("sync", "async", "streaming", "native_hook"),
    source_convention="openai_agents",
    package="autobench-instrument-openai-agents",
    package_version="0.1.0",
)
"""Identity, layer, mechanism and capabilities of :class:`OpenAIAgentsInstrumentor`."""
