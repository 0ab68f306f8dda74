"""One provider identity for a model call, whichever layer records it.

Every native instrumentor names the provider system of a model call by the OpenTelemetry
GenAI convention (the ``gen_ai.provider.name`` values) in the span attribute
:data:`PROVIDER` (``llm.provider``), and the host it sent the request to in
:data:`SERVER_ADDRESS` (``server.address``, the OpenTelemetry name). Two layers seeing
one call (a framework and the client it drives) therefore write the same two values.

For a client of the OpenAI SDK (:func:`openai_provider`) the provider is
``azure.ai.openai`` for an Azure client (``AzureOpenAI``/``AsyncAzureOpenAI``) or a host
ending in ``.openai.azure.com``, and ``openai`` for every other base URL: an
OpenAI-compatible server speaks OpenAI's API, and its host, kept in ``server.address``,
says which server it was. A framework's own provider names are translated by
:func:`convention_name` (``bedrock`` -> ``aws.bedrock``, ``google-gla`` -> ``gcp.gemini``,
...); a name with no convention value is kept as it is.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

PROVIDER = "llm.provider"
"""Span attribute: the provider system by its GenAI convention name."""
SERVER_ADDRESS = "server.address"
"""Span attribute: the host a model call was sent to."""

OPENAI = "openai"
AZURE_OPENAI = "azure.ai.openai"
AZURE_HOST_SUFFIX = ".openai.azure.com"
_AZURE_CLIENTS = frozenset({"AzureOpenAI", "AsyncAzureOpenAI"})

CONVENTION_NAMES: dict[str, str] = {
    "openai": OPENAI,
    "azure": AZURE_OPENAI,
    "azure.ai.openai": AZURE_OPENAI,
    "az.ai.openai": AZURE_OPENAI,
    "azure.ai.inference": "azure.ai.inference",
    "az.ai.inference": "azure.ai.inference",
    "anthropic": "anthropic",
    "bedrock": "aws.bedrock",
    "aws.bedrock": "aws.bedrock",
    "google-gla": "gcp.gemini",
    "gemini": "gcp.gemini",
    "gcp.gemini": "gcp.gemini",
    "google-vertex": "gcp.vertex_ai",
    "vertex_ai": "gcp.vertex_ai",
    "gcp.vertex_ai": "gcp.vertex_ai",
    "google": "gcp.gemini",
    "google-cloud": "gcp.vertex_ai",
    "gcp.gen_ai": "gcp.gen_ai",
    "cohere": "cohere",
    "deepseek": "deepseek",
    "groq": "groq",
    "mistral": "mistral_ai",
    "mistral_ai": "mistral_ai",
    "grok": "x_ai",
    "xai": "x_ai",
    "x_ai": "x_ai",
    "perplexity": "perplexity",
    "ibm.watsonx.ai": "ibm.watsonx.ai",
}
"""Provider names used by SDKs and frameworks -> the ``gen_ai.provider.name`` value."""


def convention_name(name: str) -> str:
    """``name`` as its GenAI convention value (table above), else ``name`` unchanged."""
    return CONVENTION_NAMES.get(name.strip().casefold(), name)


def host_of(url: Any) -> str | None:
    """The host of ``url`` (a string or an object with a string ``host``, as
    ``httpx.URL``), lower-cased; ``None`` when there is none."""
    host = getattr(url, "host", None)
    if not isinstance(host, str):
        if not isinstance(url, str) or not url:
            return None
        try:
            host = urlsplit(url).hostname
        except ValueError:
            return None
    return host.casefold() if host else None


def is_azure_client(client: Any) -> bool:
    """Whether ``client`` is (a subclass of) the OpenAI SDK's Azure client, by class name."""
    return any(cls.__name__ in _AZURE_CLIENTS for cls in type(client).__mro__)


def openai_provider(host: str | None, *, azure_client: bool = False) -> str:
    """The provider of a call made with the OpenAI SDK to ``host`` (module rule)."""
    if azure_client or (host is not None and host.endswith(AZURE_HOST_SUFFIX)):
        return AZURE_OPENAI
    return OPENAI


def identity(provider: str, host: str | None) -> dict[str, str]:
    """The span attributes naming ``provider`` and, when known, ``host``."""
    attributes = {PROVIDER: provider}
    if host:
        attributes[SERVER_ADDRESS] = host
    return attributes
