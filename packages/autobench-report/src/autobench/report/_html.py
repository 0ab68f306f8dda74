"""The HTML report: one self-contained page that opens offline.

Layout: the headline (each comparison's answer and the Pareto front, the wording every
format shares), a summary with the winner of each leaderboard column, the leaderboard with
a chart of each column's aggregate, the distribution of every metric that varies (one line
for those that do not), quality against cost, the case x variant matrix with values and a
legend, comparisons (values, each row's own statistics, one delta chart per unit), and a
run table whose rows open a drill-down (status, scores and reasons, errors, the span
waterfall, artifacts). Charts: :mod:`autobench.report._html_figures`; tables:
:mod:`autobench.report._html_views`; drill-downs: :mod:`autobench.report._html_runs`; the
page's template, style and script are files in ``static/``.

How it stays safe and small:

- plotly.js's ``basic`` bundle (bar and scatter; :mod:`autobench.report._plotly_bundle`)
  is embedded once, inline; the page loads nothing from anywhere.
- All data travels in one ``<script type="application/json">`` element whose JSON has
  ``<``, ``>`` and ``&`` written as ``\\u003c`` etc., so no user text can close the
  element. The page's own script draws the charts and builds the matrix, the run table and
  the drill-down with ``textContent``, so user text is never parsed as HTML; the static
  parts come from a jinja2 template with autoescape.
- Text given to plotly (axis labels, hover text) is HTML-escaped first, since plotly reads
  a few tags in its strings.
- Runs are compact arrays with their strings interned; the matrix and run table show
  their first rows and a filter reaches the others.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import jinja2
from markupsafe import Markup, escape

from autobench.records import ExperimentResult
from autobench.report._calibration_text import calibration_views
from autobench.report._display import NumberFormat
from autobench.report._format import column_label
from autobench.report._html_figures import (
    RunValues,
    constant_metrics,
    distribution_figures,
    forest_figures,
    interval_figures,
    leaderboard_formats,
    mean_interval,
    pareto_front,
    scatter_figure,
)
from autobench.report._html_runs import NO_SPANS, Strings, run_entry, run_spans
from autobench.report._html_views import (
    comparison_view,
    headline_view,
    leaderboard_view,
    matrix_data,
    reliability_view,
)
from autobench.report._model import Report
from autobench.report._paused import paused_over_runs
from autobench.report._plotly_bundle import STATIC, plotly_js

__all__ = ["mean_interval", "pareto_front", "render_html", "script_json"]


def script_json(value: Any) -> str:
    """``value`` as JSON that is safe inside a ``<script>`` element (``<``, ``>``, ``&``
    and the two JavaScript line separators escaped)."""
    text = json.dumps(value, separators=(",", ":"), allow_nan=False, default=str)
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def breakable(text: str) -> Markup:
    """``text`` escaped, with a line-break opportunity after each ``.``, ``_``, ``/`` and
    ``-`` (so ``quality.correctness`` wraps at its dot, never mid-word)."""
    return Markup(re.sub(r"([._/-])", r"\1<wbr>", str(escape(text))))


def _winners(report: Report, formats: dict[str, NumberFormat]) -> list[tuple[str, str]]:
    board = report.leaderboard
    winners = [("pass rate", ", ".join(board.best_pass_rate))] if board.best_pass_rate else []
    for column in board.columns:
        if board.best.get(column.name):
            winners.append(
                (
                    column_label(
                        column.name, column.fn, column.semantic_type, formats[column.name].unit
                    ),
                    ", ".join(board.best[column.name]),
                )
            )
    return winners


@paused_over_runs
def render_html(report: Report, result: ExperimentResult) -> str:
    """The whole page as text (UTF-8 when written); the cyclic garbage collector is paused
    over large experiments (:mod:`autobench.report._paused`)."""
    reasons = {row.run_id: row.reason for row in report.run_rows}
    waterfalls = run_spans(result)
    strings = Strings()
    runs: list[list[Any]] = []
    run_index: dict[tuple[str, str], int] = {}
    for run in result.runs:
        run_index[run.case_id, run.variant_id] = len(runs)
        runs.append(
            run_entry(run, reasons.get(run.run_id), waterfalls.get(run.run_id, NO_SPANS), strings)
        )
    formats = leaderboard_formats(report)
    by_metric = {(c.semantic_type, c.fn): formats[c.name] for c in report.leaderboard.columns}
    comparisons: list[dict[str, Any]] = []
    forests: list[dict[str, Any]] = []
    for item in report.comparisons:
        view = comparison_view(item, by_metric)
        for figure in forest_figures(item):
            view["forests"].append((len(forests), figure["title"]))
            forests.append(figure)
        comparisons.append(view)
    values = RunValues(report)
    varying, constant = constant_metrics(report, values)
    scatter = scatter_figure(report, values)
    figures: dict[str, list[dict[str, Any]]] = {
        "intervals": interval_figures(report, values, formats),
        "distributions": distribution_figures(report, values, varying),
        "scatter": [] if scatter is None else [scatter],
        "forest": forests,
    }
    matrix = matrix_data(report, run_index)
    data = {"figures": figures, "matrix": matrix, "strings": strings.items, "runs": runs}
    return _template().render(
        report=report,
        headline=headline_view(report),
        reliability=reliability_view(report),
        calibrations=calibration_views(report.calibrations),
        winners=_winners(report, formats),
        leaderboard=leaderboard_view(report, formats),
        constant=constant,
        matrix=matrix,
        comparisons=comparisons,
        figures=figures,
        data_json=script_json(data),
        style=_static("report.css"),
        script=_static("report.js"),
        plotly_js=plotly_js(),
    )


@cache
def _static(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


@cache
def _template() -> jinja2.Template:
    environment = jinja2.Environment(
        autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True
    )
    environment.filters["breakable"] = breakable
    return environment.from_string(_static("page.html.j2"))
