"""The export registry: built-ins and a third-party format, both through the entry-point hook."""

from __future__ import annotations

import importlib.metadata
import json

import pytest
from report_support import RunBench

from autobench.core.plugins import new_plugin_manager
from autobench.report import (
    Exporter,
    ExporterRegistry,
    UnknownExportFormatError,
    build_report,
    exporter_registry,
)


def test_builtins_register_through_the_entry_point() -> None:
    entry_points = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="autobench")}
    assert entry_points["report"] == "autobench.report._plugin"
    without_plugins = ExporterRegistry.from_manager(new_plugin_manager(load_entry_points=False))
    assert without_plugins.names() == ()
    registry = ExporterRegistry.from_manager(new_plugin_manager())
    assert {"yaml", "csv", "markdown", "junit"} <= set(registry.names())
    assert all(isinstance(exporter, Exporter) for exporter in registry)
    assert registry.get("markdown").extension == "md"


def test_third_party_format_is_offered(run_bench: RunBench) -> None:
    registry = exporter_registry()
    assert "json-lines" in registry
    result = run_bench(
        "def run(ctx, case):\n    return {'q': 0.5}\n",
        cases=[{"id": "c1"}],
        variants=[{"id": "v1"}],
        scoring=[{"kind": "output", "name": "q", "path": "output.q", "semantic": "quality.score"}],
    )
    content = registry.get("json-lines").export(build_report(result), result)
    assert isinstance(content, str)
    (line,) = content.splitlines()
    assert json.loads(line)["metrics"] == {"quality.score": 0.5}


def test_unknown_format_lists_the_known_ones() -> None:
    with pytest.raises(
        UnknownExportFormatError, match="unknown export format 'pdf'; known formats: csv"
    ):
        exporter_registry().get("pdf")


def test_duplicate_names_are_refused() -> None:
    registry = exporter_registry()
    with pytest.raises(ValueError, match="registered twice"):
        ExporterRegistry([registry.get("csv"), registry.get("csv")])
