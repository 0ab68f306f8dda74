"""Identity of the OpenAI client instrumentor, readable without importing the SDK.

The core lists integrations by importing this module alone, so it imports
nothing but :mod:`autobench.abp`. ``SUPPORTED`` is the one place the range of
``openai`` versions whose seams were reviewed is declared; the instrumentation
manager checks the installed version against it (package metadata only)
before anything is imported or patched.
"""

from __future__ import annotations

from autobench.abp import AbstractionLayer, CaptureMechanism, InstrumentorInfo

SUPPORTED = ">=3.0,<4"
"""PEP 440 range of the ``openai`` distribution whose patch points were reviewed (the test
suite passes on openai 3.0.0 and 3.57.0, the first 3.x release and the latest one)."""

INFO = InstrumentorInfo(
    id="openai",
    version="0.1.0",
    target_distribution="openai",
    supported_versions=SUPPORTED,
    mechanism=CaptureMechanism.PATCH,
    layer=AbstractionLayer.CLIENT,
    span_kinds=("llm",),
    semantic_families=("llm",),
    capabilities=("sync", "async", "streaming", "raw_response"),
    source_convention="openai",
    package="autobench-instrument-openai",
    package_version="0.1.0",
)
"""Identity, layer, mechanism and capabilities of :class:`OpenAIInstrumentor`."""
