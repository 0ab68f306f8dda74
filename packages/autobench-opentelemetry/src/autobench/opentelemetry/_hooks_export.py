"""Hook implementations of the export direction (see ``_plugin``): the ``otlp-json`` and
``otlp`` formats. Listing them imports no OpenTelemetry module."""

from __future__ import annotations

from collections.abc import Sequence

import pluggy

from autobench.opentelemetry._export_formats import OtlpHttpExporter, OtlpJsonExporter

__all__ = ["autobench_exporters"]

_hookimpl = pluggy.HookimplMarker("autobench")


@_hookimpl
def autobench_exporters() -> Sequence[object]:
    """The OTLP export formats of this distribution."""
    return (OtlpJsonExporter(), OtlpHttpExporter())
