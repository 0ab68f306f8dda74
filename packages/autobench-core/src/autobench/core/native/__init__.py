"""Native instrumentation of SDKs: settings, the integrations found here, their lifecycle.

Autobench's native instrumentors live in their own distributions
(``autobench-instrument-httpx``, ``autobench-instrument-openai``, ...); this
package knows them without importing their SDKs, validates a benchmark's
``instrumentation`` section, and installs the selected instrumentors for the
benchmark matrix (see :mod:`._lifecycle`).
"""

from autobench.core.native._integrations import BUILTIN_INTEGRATIONS as BUILTIN_INTEGRATIONS
from autobench.core.native._integrations import IntegrationEntry as IntegrationEntry
from autobench.core.native._integrations import IntegrationStatus as IntegrationStatus
from autobench.core.native._integrations import create_instrumentor as create_instrumentor
from autobench.core.native._integrations import integration_info as integration_info
from autobench.core.native._integrations import merged_entries as merged_entries
from autobench.core.native._integrations import status_of as status_of
from autobench.core.native._lifecycle import SKIPPED as SKIPPED
from autobench.core.native._lifecycle import InstrumentationSession as InstrumentationSession
from autobench.core.native._lifecycle import ResolvedInstrumentation as ResolvedInstrumentation
from autobench.core.native._lifecycle import Skipped as Skipped
from autobench.core.native._lifecycle import resolve_instrumentation as resolve_instrumentation
from autobench.core.native._settings import INTEGRATION_IDS as INTEGRATION_IDS
from autobench.core.native._settings import SETTINGS_MODELS as SETTINGS_MODELS
from autobench.core.native._settings import DiscoverySettings as DiscoverySettings
from autobench.core.native._settings import (
    HTTPXCaptureSettings,
    HTTPXInstrumentation,
    InstrumentationSpec,
    OpenAIAgentsInstrumentation,
    OpenAIInstrumentation,
    OpenTelemetryInstrumentation,
    PydanticAIInstrumentation,
)
from autobench.core.native._settings import IntegrationSettings as IntegrationSettings

__all__ = [
    "HTTPXCaptureSettings",
    "HTTPXInstrumentation",
    "InstrumentationSpec",
    "OpenAIAgentsInstrumentation",
    "OpenAIInstrumentation",
    "OpenTelemetryInstrumentation",
    "PydanticAIInstrumentation",
]
