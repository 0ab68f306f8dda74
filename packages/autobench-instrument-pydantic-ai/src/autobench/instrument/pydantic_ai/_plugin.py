"""The ``autobench`` entry point of this distribution: it announces the integration.

Autobench's plugin manager loads this module through the entry-point group
``autobench``; the hook only describes where the integration lives. It imports
neither the SDK nor the instrumentor (listing integrations must stay free).
"""

from __future__ import annotations

from typing import Any

import pluggy

hookimpl = pluggy.HookimplMarker("autobench")


@hookimpl
def autobench_instrumentors() -> list[dict[str, Any]]:
    """The integration entry (read by ``autobench.core.native.merged_entries``)."""
    return [
        {
            "id": "pydantic_ai",
            "distribution": "autobench-instrument-pydantic-ai",
            "module": "autobench.instrument.pydantic_ai",
            "extra": "pydantic-ai",
            "targets": ("pydantic-ai-slim",),
        }
    ]
