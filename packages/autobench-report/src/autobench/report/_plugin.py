"""The built-in export formats, contributed through the public ``autobench_exporters`` hook.

This module is the ``report`` entry point of the ``autobench`` group declared
by the autobench-report distribution: the built-ins register exactly as a
third-party format does.
"""

from __future__ import annotations

from collections.abc import Sequence

from autobench.core.plugins import hookimpl
from autobench.report._export_csv import CsvExporter
from autobench.report._export_github import GithubExporter
from autobench.report._export_html import HtmlExporter
from autobench.report._export_junit import JunitExporter
from autobench.report._export_markdown import MarkdownExporter
from autobench.report._export_yaml import YamlExporter
from autobench.report._exporters import Exporter


@hookimpl
def autobench_exporters() -> Sequence[Exporter]:
    return (
        YamlExporter(),
        CsvExporter(),
        MarkdownExporter(),
        JunitExporter(),
        HtmlExporter(),
        GithubExporter(),
    )
