"""Native instrumentation of SDKs: settings, the integrations found here, their lifecycle.

Autobench's native instrumentors live in their own distributions
(``autobench-instrument-httpx``, ``autobench-instrument-openai``, ...); this
package knows them without importing their SDKs, validates a benchmark's
``instrumentation`` section, and installs the selected instrumentors for the
benchmark matrix (see :mod:`._lifecycle`).
"""

from autobench.core.native._integrations import (
    BUILTIN_INTEGRATIONS,
    IntegrationEntry,
    IntegrationStatus,
    create_instrumentor,
    integration_info,
    merged_entries,
    status_of,
)
from autobench.core.native._lifecycle import (
    SKIPPED,
    InstrumentationSession,
    ResolvedInstrumentation,
    Skipped,
    resolve_instrumentation,
)
from autobench.core.native._settings import (
    INTEGRATION_IDS,
    SETTINGS_MODELS,
    DiscoverySettings,
    HTTPXCaptureSettings,
    HTTPXInstrumentation,
    InstrumentationSpec,
    IntegrationSettings,
    OpenAIAgentsInstrumentation,
    OpenAIInstrumentation,
    PydanticAIInstrumentation,
)

__all__ = [
    "BUILTIN_INTEGRATIONS",
    "INTEGRATION_IDS",
    "SETTINGS_MODELS",
    "SKIPPED",
    "DiscoverySettings",
    "HTTPXCaptureSettings",
    "HTTPXInstrumentation",
    "InstrumentationSession",
    "InstrumentationSpec",
    "IntegrationEntry",
    "IntegrationSettings",
    "IntegrationStatus",
    "OpenAIAgentsInstrumentation",
    "OpenAIInstrumentation",
    "PydanticAIInstrumentation",
    "ResolvedInstrumentation",
    "Skipped",
    "create_instrumentor",
    "integration_info",
    "merged_entries",
    "resolve_instrumentation",
    "status_of",
]
