"""Identity of the OpenTelemetry import instrumentor, readable without importing the SDK.

The core lists integrations by importing this module alone: it imports nothing but
:mod:`autobench.abp`. :data:`SUPPORTED` is the range of ``opentelemetry-sdk`` whose
``SpanProcessor`` and ``TracerProvider.add_span_processor`` were reviewed.
"""

from __future__ import annotations

from autobench.abp import AbstractionLayer, CaptureMechanism, InstrumentorInfo

SUPPORTED = ">=1.30,<2"
"""PEP 440 range of ``opentelemetry-sdk`` (the test suite runs on 1.45)."""

INFO = InstrumentorInfo(
    id="opentelemetry",
    version="0.1.0",
    target_distribution="opentelemetry-sdk",
    supported_versions=SUPPORTED,
    mechanism=CaptureMechanism.HOOK,
    layer=AbstractionLayer.CLIENT,
    span_kinds=("llm", "tool", "agent", "workflow", "custom"),
    semantic_families=("llm", "tool", "agent"),
    capabilities=("sync", "async", "threads"),
    source_convention="gen_ai",
    package="autobench-opentelemetry",
    package_version="0.1.0",
)
"""The instrumentor's identity. Each OpenTelemetry instrumentation scope gets a span scope of
its own (``opentelemetry:<scope name>``) whose layer follows the scope's convention (see
``_layers``); ``layer`` here is the one of a GenAI span of an unknown scope."""
