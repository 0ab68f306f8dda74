"""Hook implementations of the import direction (see ``_plugin``): the ``opentelemetry``
instrumentor entry. Listing it imports no OpenTelemetry SDK."""

from __future__ import annotations

from typing import Any

import pluggy

hookimpl = pluggy.HookimplMarker("autobench")

__all__ = ["autobench_instrumentors"]


@hookimpl
def autobench_instrumentors() -> list[dict[str, Any]]:
    """The integration entry (read by ``autobench.core.native.merged_entries``)."""
    return [
        {
            "id": "opentelemetry",
            "distribution": "autobench-opentelemetry",
            "module": "autobench.opentelemetry._import",
            "extra": "opentelemetry",
            "targets": ("opentelemetry-sdk",),
        }
    ]
