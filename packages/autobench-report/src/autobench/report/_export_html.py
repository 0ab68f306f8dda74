"""The ``html`` export: one self-contained page (see :mod:`autobench.report._html`).

This module stays light on purpose: the built-in plugin imports every exporter
when the plugin manager loads, and jinja2, scipy and the page's assets are only loaded by
:meth:`HtmlExporter.export`, so commands that never write HTML do not pay for them.
"""

from __future__ import annotations

from autobench.records import ExperimentResult
from autobench.report._model import Report


class HtmlExporter:
    """``html``: an interactive report that opens offline (plotly.js's basic bundle embedded once)."""

    name = "html"
    extension = "html"
    description = "Self-contained interactive page: charts, case matrix and run drill-downs."
    needs_traces = True
    """The drill-downs draw each run's span waterfall."""

    def prepare(self) -> None:
        """Import jinja2 and scipy now (about a second), not at :meth:`export`."""
        import autobench.report._html  # noqa: F401

    def export(self, report: Report, result: ExperimentResult) -> str:
        from autobench.report._html import render_html  # jinja2 and scipy: on use only

        return render_html(report, result)
