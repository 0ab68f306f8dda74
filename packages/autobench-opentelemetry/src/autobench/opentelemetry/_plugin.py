"""The ``autobench`` entry point of this distribution: its hooks, and nothing heavy.

The instrumentor entry comes from ``_hooks_import`` and the export formats from
``_hooks_export``; listing them imports no OpenTelemetry SDK.
"""

from __future__ import annotations

from autobench.opentelemetry._hooks_export import *  # noqa: F403
from autobench.opentelemetry._hooks_import import *  # noqa: F403
