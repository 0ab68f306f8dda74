"""The ``autobench`` entry point of this distribution: it announces the integration.

Autobench's plugin manager loads this module through the entry-point group
``autobench``; the hook only describes where the integration lives. It imports
neither the SDK nor the instrumentor (listing integrations must stay free).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pluggy

hookimpl = pluggy.HookimplMarker("autobench")


@hookimpl
def autobench_instrumentors() -> list[dict[str, Any]]:
    """The integration entry (read by ``autobench.core.native.merged_entries``)."""
    return [
        {
            "id": "httpx",
            "distribution": "autobench-instrument-httpx",
            "module": "autobench.instrument.httpx",
            "extra": "httpx",
            "targets": ("httpx", "httpx2"),
        }
    ]


def _install_cassettes() -> bool:
    from autobench.instrument.httpx._cassette import install_cassettes

    return install_cassettes()


@hookimpl
def autobench_cassette_transports() -> list[Callable[[], bool]]:
    """The HTTPX cassette transports (installed on first use; see ``_cassette``)."""
    return [_install_cassettes]
