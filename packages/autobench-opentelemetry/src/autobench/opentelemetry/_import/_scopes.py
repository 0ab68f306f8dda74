"""OpenTelemetry instrumentation scopes as ABP span scopes: layer and native counterpart.

An OpenTelemetry span names the library that made it in its instrumentation scope
(``pydantic-ai``, ``opentelemetry.instrumentation.openai_v2``, the name an application gave
``get_tracer``). Each becomes an :class:`~autobench.abp.InstrumentationScope` named
``opentelemetry:<scope name>`` whose ``source_convention`` is the scope name and whose
``layer`` follows what that library is (rule of :func:`layer_of`): the accounting of ABP
prefers client evidence over framework, application and transport evidence, so a token
count is never taken from two layers of one call.
"""

from __future__ import annotations

from autobench.abp import AbstractionLayer, InstrumentationScope, InstrumentorInfo

SCOPE_PREFIX = "opentelemetry:"

FRAMEWORKS = (
    "pydantic-ai",
    "pydantic_ai",
    "openai-agents",
    "openai_agents",
    "langchain",
    "langgraph",
    "llama_index",
    "llama-index",
    "llamaindex",
    "crewai",
    "haystack",
    "dspy",
    "autogen",
    "semantic_kernel",
    "smolagents",
    "agno",
)
"""Scope-name fragments of agent and orchestration frameworks (framework layer)."""

TRANSPORTS = ("httpx", "requests", "urllib", "aiohttp", "grpc")
"""Scope-name fragments of HTTP and RPC client instrumentations (transport layer)."""

NATIVE = (
    ("pydantic", "pydantic_ai"),
    ("agents", "openai_agents"),
    ("openai", "openai"),
    ("httpx", "httpx"),
)
"""``(scope-name fragment, native instrumentor id)``, first match wins: the Autobench
instrumentor of the library a scope instruments."""


def layer_of(scope_name: str) -> AbstractionLayer:
    """``framework`` for a known framework's scope, ``transport`` for an HTTP/RPC client's,
    else ``client``: a GenAI span of any other scope (a provider SDK's instrumentation, or an
    application's own tracer reporting a model call) is a direct call to a model."""
    name = scope_name.lower()
    if any(fragment in name for fragment in FRAMEWORKS):
        return AbstractionLayer.FRAMEWORK
    if any(fragment in name for fragment in TRANSPORTS):
        return AbstractionLayer.TRANSPORT
    return AbstractionLayer.CLIENT


def native_of(scope_name: str) -> str | None:
    """The id of the native Autobench instrumentor of the library ``scope_name`` instruments,
    or ``None``."""
    name = scope_name.lower()
    return next((native for fragment, native in NATIVE if fragment in name), None)


def abp_scope(info: InstrumentorInfo, name: str, version: str | None) -> InstrumentationScope:
    """The ABP scope of OpenTelemetry scope ``name`` (``version`` its version, if any)."""
    return InstrumentationScope(
        name=SCOPE_PREFIX + name,
        version=info.version,
        package=info.package,
        package_version=info.package_version,
        mechanism=str(info.mechanism),
        layer=str(layer_of(name)),
        target_package=name,
        target_version=version or None,
        source_convention=name,
    )
