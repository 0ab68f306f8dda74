"""The HTML report: one self-contained page that opens offline.

Layout: summary with the winner of each leaderboard column, the leaderboard
with 95 % interval bars, per-variant distributions of every recorded metric,
quality against cost with the Pareto front, the case x variant matrix,
comparisons, and a run table whose rows open a drill-down (status, scores and
reasons, errors, the span waterfall, artifacts).

How it stays safe and small:

- plotly.js is embedded once, inline; the page loads nothing from anywhere.
- All data travels in one ``<script type="application/json">`` element whose
  JSON has ``<``, ``>`` and ``&`` written as ``\\u003c`` etc., so no user text can
  close the element. The page's own script builds the charts (``Plotly.newPlot``)
  and the run table and drill-down with ``textContent``, so user text is never
  parsed as HTML; the static parts come from a jinja2 template with autoescape.
- Text given to plotly (axis labels, hover text) is HTML-escaped first, since
  plotly reads a few tags in its strings.
- Runs are compact arrays; a run keeps at most :data:`MAX_SPANS` spans for its
  waterfall (the first ones in start order) and the waterfall is drawn only when
  its drill-down opens.
"""

from __future__ import annotations

import html
import json
import math
import multiprocessing
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import jinja2
import plotly.offline
from scipy import stats  # type: ignore[import-untyped]

from autobench.abp import Trace
from autobench.records import (
    ExperimentResult,
    RunRecord,
    RunStatus,
    TraceSummary,
    load_run_record,
    run_record_from_yaml,
)
from autobench.report._format import column_label, metric_label, value_text
from autobench.report._model import Comparison, Report
from autobench.report._statistics_text import p_text, verdict_text

MAX_SPANS = 40
"""Spans kept per run for its waterfall (the page says when a run had more)."""
MAX_HOVER_CELLS = 2000
"""Largest case x variant matrix whose cells get hover text (status and value)."""
MAX_TEXT = 500
"""Characters kept of a reason, error message or score value shown in a drill-down."""
STATUS_CODE = {RunStatus.PASSED: 0, RunStatus.FAILED: 1, RunStatus.ERRORED: 2, RunStatus.SKIPPED: 3}
COST_TYPES = ("cost", "money")
LATENCY_TYPES = ("time.latency", "latency")


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


def _plot_text(text: str) -> str:
    """Text for a plotly label: HTML-escaped (plotly reads some tags in its strings)."""
    return html.escape(text, quote=True)


def _number(value: Any) -> float | None:
    """A finite float of a metric value (booleans as 0/1), else ``None``."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


def _short(text: Any) -> str:
    value = text if isinstance(text, str) else value_text(text)
    return value if len(value) <= MAX_TEXT else value[: MAX_TEXT - 1] + "…"


def mean_interval(values: Sequence[float]) -> tuple[float, float, float] | None:
    """Mean with a 95 % Student-t interval ``(mean, low, high)``; the interval collapses to
    the mean for fewer than two values or no spread. ``None`` for no values."""
    if not values:
        return None
    mean = math.fsum(values) / len(values)
    if len(values) < 2:
        return mean, mean, mean
    sem = stats.sem(values)
    if not math.isfinite(sem) or sem == 0:
        return mean, mean, mean
    low, high = stats.t.interval(0.95, len(values) - 1, loc=mean, scale=sem)
    return mean, float(low), float(high)


def _values(report: Report, semantic_type: str) -> dict[str, list[float]]:
    """Numeric values of ``semantic_type`` per variant, from the run rows."""
    by_variant: dict[str, list[float]] = {v.id: [] for v in report.variants}
    for row in report.run_rows:
        number = _number(row.metrics.get(semantic_type))
        if number is not None:
            by_variant.setdefault(row.variant_id, []).append(number)
    return by_variant


def _leaderboard_figure(report: Report) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Rows for the leaderboard table and one interval chart per metric column: the mean
    per variant with its 95 % interval as error bars."""
    board = report.leaderboard
    figures: list[dict[str, Any]] = []
    for column in board.columns:
        per_variant = _values(report, column.semantic_type)
        names, means, plus, minus, counts = [], [], [], [], []
        for variant, values in per_variant.items():
            interval = mean_interval(values)
            if interval is None:
                continue
            mean, low, high = interval
            names.append(_plot_text(variant))
            means.append(mean)
            plus.append(high - mean)
            minus.append(mean - low)
            counts.append(len(values))
        if not names:
            continue
        label = metric_label(column.semantic_type, column.unit)
        figures.append(
            {
                "title": f"{column.name}: mean, 95% interval",
                "data": [
                    {
                        "type": "bar",
                        "orientation": "h",
                        "y": names,
                        "x": means,
                        "customdata": counts,
                        "error_x": {"type": "data", "array": plus, "arrayminus": minus},
                        "hovertemplate": "%{y}: %{x:.4g} (n=%{customdata})<extra></extra>",
                    }
                ],
                "layout": {"xaxis": {"title": {"text": _plot_text(label)}}},
            }
        )
    rows = [
        {
            "variant": row.variant,
            "runs": row.runs,
            "passed": row.status.passed,
            "failed": row.status.failed,
            "errored": row.status.errored,
            "cells": [
                value_text(row.metrics[c.name].value) if c.name in row.metrics else ""
                for c in board.columns
            ],
        }
        for row in board.rows
    ]
    return rows, figures


def _distribution_figures(report: Report) -> list[dict[str, Any]]:
    """A box plot per recorded numeric metric (latency, cost, scores, ...), one box per variant."""
    figures = []
    for semantic_type, unit in report.metric_units.items():
        per_variant = _values(report, semantic_type)
        if not any(per_variant.values()):
            continue
        label = metric_label(semantic_type, unit)
        figures.append(
            {
                "title": f"Distribution of {label}",
                "data": [
                    {
                        "type": "box",
                        "name": _plot_text(variant),
                        "y": values,
                        "boxpoints": "outliers" if len(values) > 200 else "all",
                        "jitter": 0.4,
                    }
                    for variant, values in per_variant.items()
                    if values
                ],
                "layout": {"yaxis": {"title": {"text": _plot_text(label)}}, "showlegend": False},
            }
        )
    return figures


def _pick(report: Report, candidates: Iterable[str], exclude: str | None = None) -> str | None:
    for semantic_type in report.metric_units:
        if semantic_type != exclude and any(key in semantic_type for key in candidates):
            return semantic_type
    return None


def pareto_front(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indexes of the points no other point beats: lower x (cost) and higher y (quality)
    at least as good, one strictly better. Sorted by x."""
    front = [
        i
        for i, (x, y) in enumerate(points)
        if not any(
            (ox <= x and oy >= y) and (ox < x or oy > y)
            for j, (ox, oy) in enumerate(points)
            if j != i
        )
    ]
    return sorted(front, key=lambda i: points[i])


def _scatter_figure(report: Report) -> dict[str, Any] | None:
    """Mean quality against mean cost per variant (latency when no cost was recorded),
    with the Pareto front as a line."""
    quality = next(
        (c.semantic_type for c in report.leaderboard.columns if c.direction == "maximize"), None
    ) or _pick(report, ("quality", "score", "correct"))
    if quality is None:
        return None
    cost = _pick(report, COST_TYPES, quality) or _pick(report, LATENCY_TYPES, quality)
    if cost is None:
        return None
    quality_values, cost_values = _values(report, quality), _values(report, cost)
    names, points = [], []
    for variant in quality_values:
        if quality_values[variant] and cost_values.get(variant):
            names.append(variant)
            points.append(
                (
                    math.fsum(cost_values[variant]) / len(cost_values[variant]),
                    math.fsum(quality_values[variant]) / len(quality_values[variant]),
                )
            )
    if not points:
        return None
    front = pareto_front(points)
    x_label = metric_label(cost, report.metric_units.get(cost))
    y_label = metric_label(quality, report.metric_units.get(quality))
    return {
        "title": f"Quality against {'cost' if cost != _pick(report, LATENCY_TYPES) else 'latency'}"
        " (means per variant; the line is the Pareto front)",
        "data": [
            {
                "type": "scatter",
                "mode": "markers+text",
                "x": [p[0] for p in points],
                "y": [p[1] for p in points],
                "text": [_plot_text(n) for n in names],
                "textposition": "top center",
                "marker": {"size": 12},
                "name": "variants",
            },
            {
                "type": "scatter",
                "mode": "lines",
                "x": [points[i][0] for i in front],
                "y": [points[i][1] for i in front],
                "line": {"dash": "dot"},
                "name": "Pareto front",
                "hoverinfo": "skip",
            },
        ],
        "layout": {
            "xaxis": {"title": {"text": _plot_text(x_label)}},
            "yaxis": {"title": {"text": _plot_text(y_label)}},
        },
    }


def _matrix_figure(report: Report, run_ids: Mapping[tuple[str, str], int]) -> dict[str, Any] | None:
    """Case x variant heatmap. A passed run is green, darker for a higher score (values
    scaled to 0..1 over the matrix); failed is orange, errored red, skipped grey. Cells
    carry the run's index so a click opens its drill-down."""
    matrix = report.matrix
    if matrix is not None:
        cases, variants = list(matrix.cases), list(matrix.variants)
        title = f"Case matrix: {metric_label(matrix.semantic_type, matrix.unit)}"

        def cell(case: str, variant: str) -> tuple[RunStatus | None, Any]:
            found = matrix.cells.get(case, {}).get(variant)
            return (found.status, found.value) if found is not None else (None, None)

    else:
        rows = {(r.case_id, r.variant_id): r for r in report.run_rows}
        cases = list(dict.fromkeys(r.case_id for r in report.run_rows))
        variants = [v.id for v in report.variants]
        title = "Case matrix: status"

        def cell(case: str, variant: str) -> tuple[RunStatus | None, Any]:
            row = rows.get((case, variant))
            return (row.status, None) if row is not None else (None, None)

    if not cases:
        return None
    numbers = [
        n
        for case in cases
        for variant in variants
        if (n := _number(cell(case, variant)[1])) is not None
    ]
    low, high = (min(numbers), max(numbers)) if numbers else (0.0, 1.0)
    span = high - low
    z: list[list[float | None]] = []
    hover: list[list[str]] = []
    index: list[list[int]] = []
    for case in cases:
        z_row: list[float | None] = []
        hover_row: list[str] = []
        index_row: list[int] = []
        for variant in variants:
            status, value = cell(case, variant)
            number = _number(value)
            if status is None:
                z_row.append(None)
            elif status is RunStatus.PASSED:
                z_row.append(
                    1.0
                    if number is None
                    else (0.5 + 0.5 * ((number - low) / span if span else 1.0))
                )
            else:
                z_row.append({RunStatus.FAILED: 0.3, RunStatus.ERRORED: 0.1}.get(status, 0.2))
            text = "no run" if status is None else status.value
            if value is not None:
                text += f", {value_text(value)}"
            hover_row.append(_plot_text(f"{case} / {variant}: {text}"))
            index_row.append(run_ids.get((case, variant), -1))
        z.append(z_row)
        hover.append(hover_row)
        index.append(index_row)
    return {
        "title": title + " (click a cell to open its run)",
        "data": [
            {
                "type": "heatmap",
                "x": [_plot_text(v) for v in variants],
                "y": [_plot_text(c) for c in cases],
                "z": z,
                "zmin": 0,
                "zmax": 1,
                # Hover text per cell only for small matrices (size); the colour shows the status.
                **(
                    {"text": hover, "hovertemplate": "%{text}<extra></extra>"}
                    if len(cases) * len(variants) <= MAX_HOVER_CELLS
                    else {"hovertemplate": "%{y} / %{x}<extra></extra>"}
                ),
                "customdata": index,
                "showscale": False,
                "xgap": 1,
                "ygap": 1,
                "colorscale": [
                    [0.0, "#d62728"],
                    [0.15, "#d62728"],
                    [0.15, "#9e9e9e"],
                    [0.25, "#9e9e9e"],
                    [0.25, "#ff7f0e"],
                    [0.5, "#ff7f0e"],
                    [0.5, "#c7e9c0"],
                    [1.0, "#1b7837"],
                ],
            }
        ],
        "layout": {
            "height": min(4000, 120 + 18 * len(cases)),
            "yaxis": {"automargin": True, "autorange": "reversed", "type": "category"},
            "xaxis": {"type": "category", "side": "top"},
        },
    }


TRACE_ONLY = frozenset(
    {"case", "output", "observations", "scores", "artifacts", "errors", "asset_versions", "variant"}
)
"""Sections of ``run.yaml`` not read when a trace is all that is wanted."""


NO_SPANS: tuple[list[str], list[int], int] = ([], [], 0)
PARALLEL_TRACES = 1000
"""From this many runs without a loaded trace, their traces are read by worker processes."""

Spans = tuple[list[str], list[int], int]
"""A run's waterfall before string interning: operation names, four integers per span
(see :func:`_spans`) and the trace's span count."""


def _spans(trace: Trace | None) -> Spans:
    """Up to :data:`MAX_SPANS` spans: their operation names, and four integers each:
    name position, offset and duration in microseconds (-1: partial), and
    ``2 * depth + 1`` when the span ended in an error (``2 * depth`` otherwise)."""
    if trace is None:
        return [], [], 0
    depth: dict[str, int] = {}
    names: list[str] = []
    flat: list[int] = []
    for span in trace.spans:
        level = depth[span.parent] + 1 if span.parent in depth else 0
        depth[span.id] = level
        if len(names) < MAX_SPANS:
            failed = (
                span.error is not None or str(getattr(span.status, "value", span.status)) == "error"
            )
            flat += [
                len(names),
                _microseconds(span.offset),
                _microseconds(span.duration),
                2 * level + (1 if failed else 0),
            ]
            names.append(_short(span.operation))
    return names, flat, len(trace.spans)


def _read_spans(root: Path, relative: str) -> Spans:
    """The waterfall of the run recorded at ``relative``: only its ``run`` and ``trace``
    sections are parsed (a trace stored as an artifact is loaded from ``root``)."""
    path = root / relative
    run = run_record_from_yaml(path.read_text(encoding="utf-8"), source=path, skip=TRACE_ONLY)
    if isinstance(run.trace, TraceSummary):
        run = load_run_record(path, root=root)
    return _spans(run.trace if isinstance(run.trace, Trace) else None)


def _read_chunk(root: Path, relatives: list[str]) -> list[Spans]:
    return [_read_spans(root, relative) for relative in relatives]


def _run_spans(result: ExperimentResult) -> dict[str, Spans]:
    """The waterfall of each run. Runs replayed with ``evidence_only`` carry no trace: their
    ``run.yaml`` files are read again for the trace alone, by several processes (forked, as
    :func:`~autobench.records.replay_experiment` does) for large experiments."""
    spans = {run.run_id: _spans(run.trace) for run in result.runs if isinstance(run.trace, Trace)}
    root = result.root_dir
    if spans or not result.evidence_only or root is None:
        return spans
    present = {run.run_id for run in result.runs}
    planned = [item for item in result.experiment.plan if item.id in present]
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workers = min(cpus or 1, 8)
    forkable = "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
    if len(planned) >= PARALLEL_TRACES and workers > 1 and forkable:
        size = max(1, len(planned) // (workers * 4))
        chunks = [
            [item.path for item in planned[start : start + size]]
            for start in range(0, len(planned), size)
        ]
        try:
            with ProcessPoolExecutor(
                workers, mp_context=multiprocessing.get_context("fork")
            ) as pool:
                parts = list(pool.map(_read_chunk, [root] * len(chunks), chunks))
            read = [item for part in parts for item in part]
            return {item.id: found for item, found in zip(planned, read, strict=True)}
        except (BrokenProcessPool, OSError):
            pass  # no usable worker processes here: read in this process
    return {item.id: _read_spans(root, item.path) for item in planned}


class _Strings:
    """A table of the strings the page shows many times (ids, names, statuses): the data
    holds their index in :attr:`items`."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        found = self._index.get(text)
        if found is None:
            found = self._index[text] = len(self.items)
            self.items.append(text)
        return found


def _microseconds(seconds: float | None) -> int:
    return -1 if seconds is None else round(seconds * 1e6)


def _score_value(value: Any) -> Any:
    number = _number(value)
    if number is not None and not isinstance(value, bool):
        return float(f"{number:.6g}")
    return _short(value)


def _run_entry(
    run: RunRecord, report_reason: str | None, spans: Spans, strings: _Strings
) -> list[Any]:
    """One run as a compact array; the page's script (``openRun``) names the fields."""
    names, flat, span_count = spans
    table = [strings(name) for name in names]
    flat = [table[value] if i % 4 == 0 else value for i, value in enumerate(flat)]
    return [
        run.run_id,
        strings(run.case_id),
        strings(run.variant_id),
        strings(run.status.value),
        _short(report_reason) if report_reason else "",
        [
            [strings(s.name), _score_value(s.value), _short(s.reason or ""), _short(s.error or "")]
            for s in run.scores
        ],
        [[strings(e.stage), strings(e.type), _short(e.message)] for e in run.errors],
        [[a.name, a.size] for a in run.artifacts],
        flat,
        span_count,
        -1 if run.run.duration is None else _microseconds(run.run.duration),
    ]


def _comparison_view(item: Comparison) -> dict[str, Any]:
    """What the template shows of a comparison: every metric with its delta and, when the
    metric has paired statistics, the mean delta with its interval, the test, the
    Holm-adjusted p-value and the verdict."""
    metrics = []
    for m in item.metrics:
        st = m.statistics
        metrics.append(
            {
                "label": column_label(m.name, m.fn, m.semantic_type, m.unit),
                "baseline": value_text(m.baseline.value),
                "candidate": value_text(m.candidate.value),
                "delta": "no value" if m.delta is None else value_text(m.delta),
                "relative": "" if m.relative is None else f"{m.relative:+.1%}",
                "mean_delta": "" if st is None or st.mean_delta is None else _signed(st.mean_delta),
                "interval": ""
                if st is None or st.ci_low is None or st.ci_high is None
                else f"[{_signed(st.ci_low)}, {_signed(st.ci_high)}] ({st.level:.0%})",
                "test": "" if st is None else f"{st.test}, n={st.n}",
                "p": "" if st is None else f"{p_text(st.p_value)} / {p_text(st.p_adjusted)}",
                "verdict": "" if st is None else verdict_text(st),
                "verdict_class": "" if st is None else st.verdict.value.replace(" ", "-"),
            }
        )
    return {
        "baseline": item.baseline,
        "candidate": item.candidate,
        "paired": len(item.paired_cases),
        "confounded": item.confounded,
        "changes": [
            (c.name, value_text(c.baseline), value_text(c.candidate)) for c in item.changed_factors
        ],
        "metrics": metrics,
        "statistics": any(m.statistics is not None for m in item.metrics),
        "unpaired": [(u.case, u.reason) for u in item.unpaired],
    }


def _signed(value: float) -> str:
    return ("+" if value > 0 else "") + value_text(value)


def _comparison_figure(item: Comparison) -> dict[str, Any] | None:
    """Mean paired delta (candidate minus baseline) per metric with its interval, a point
    per metric and a line at zero; ``None`` when no metric has statistics."""
    rows = [
        (m, m.statistics)
        for m in item.metrics
        if m.statistics is not None and m.statistics.mean_delta is not None
    ]
    if not rows:
        return None
    deltas = [st.mean_delta or 0.0 for _, st in rows]
    return {
        "title": _plot_text(
            f"{item.candidate} minus {item.baseline}: mean paired delta with its interval"
        ),
        "data": [
            {
                "type": "scatter",
                "mode": "markers",
                "orientation": "h",
                "x": deltas,
                "y": [_plot_text(m.name) for m, _ in rows],
                "text": [_plot_text(verdict_text(st)) for _, st in rows],
                "marker": {"size": 11},
                "error_x": {
                    "type": "data",
                    "array": [
                        (st.ci_high if st.ci_high is not None else d) - d
                        for (_, st), d in zip(rows, deltas, strict=True)
                    ],
                    "arrayminus": [
                        d - (st.ci_low if st.ci_low is not None else d)
                        for (_, st), d in zip(rows, deltas, strict=True)
                    ],
                },
                "hovertemplate": "%{y}: %{x:.4g}, %{text}<extra></extra>",
            }
        ],
        "layout": {
            "height": 160 + 40 * len(rows),
            "yaxis": {"automargin": True, "type": "category"},
            "xaxis": {
                "zeroline": True,
                "zerolinewidth": 2,
                "rangemode": "tozero",
                "title": {"text": "delta (0: no difference)"},
            },
        },
    }


def _winners(report: Report) -> list[tuple[str, str]]:
    board = report.leaderboard
    winners = [("pass rate", ", ".join(board.best_pass_rate))] if board.best_pass_rate else []
    for column in board.columns:
        if board.best.get(column.name):
            winners.append(
                (
                    column_label(column.name, column.fn, column.semantic_type, column.unit),
                    ", ".join(board.best[column.name]),
                )
            )
    return winners


def render_html(report: Report, result: ExperimentResult) -> str:
    """The whole page as text (UTF-8 when written)."""
    reasons = {row.run_id: row.reason for row in report.run_rows}
    waterfalls = _run_spans(result)
    strings = _Strings()
    runs: list[list[Any]] = []
    run_index: dict[tuple[str, str], int] = {}
    for run in result.runs:
        run_index[run.case_id, run.variant_id] = len(runs)
        runs.append(
            _run_entry(run, reasons.get(run.run_id), waterfalls.get(run.run_id, NO_SPANS), strings)
        )
    leaderboard_rows, interval_figures = _leaderboard_figure(report)
    figures: dict[str, Any] = {
        "intervals": interval_figures,
        "distributions": _distribution_figures(report),
        "scatter": [f for f in [_scatter_figure(report)] if f is not None],
        "matrix": [f for f in [_matrix_figure(report, run_index)] if f is not None],
        "comparisons": [_comparison_figure(c) for c in report.comparisons],
    }
    data = {"figures": figures, "strings": strings.items, "runs": runs}
    template = _environment().from_string(PAGE)
    return template.render(
        report=report,
        winners=_winners(report),
        columns=[
            column_label(c.name, c.fn, c.semantic_type, c.unit) for c in report.leaderboard.columns
        ],
        leaderboard=leaderboard_rows,
        comparisons=[_comparison_view(c) for c in report.comparisons],
        figures=figures,
        data_json=script_json(data),
        plotly_js=plotly.offline.get_plotlyjs(),
    )


def _environment() -> jinja2.Environment:
    return jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data:; font-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ report.benchmark }}: {{ report.experiment }}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 1rem 2rem; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: .5rem 0; font-size: .9rem; }
th, td { border: 1px solid #ddd; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
.chart { width: 100%; min-height: 320px; } #dd-waterfall { min-height: 0; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(480px, 1fr)); gap: 1rem; }
.status-passed { color: #1b7837; } .status-failed { color: #c75c00; } .status-errored { color: #d62728; } .status-skipped { color: #777; }
.verdict-improved { color: #1b7837; font-weight: bold; } .verdict-regressed { color: #d62728; font-weight: bold; }
#runs tbody tr { cursor: pointer; } #runs tbody tr:hover { background: #eef5ff; }
#drilldown { border: 2px solid #4a90d9; padding: .5rem 1rem; margin: 1rem 0; background: #fafcff; }
#drilldown[hidden] { display: none; }
.muted { color: #777; } pre { white-space: pre-wrap; word-break: break-word; margin: 0; }
</style>
</head>
<body>
<h1>{{ report.benchmark }}: {{ report.experiment }}</h1>
<section id="summary">
<h2>Summary</h2>
<table><tr><th>runs</th><th>planned</th><th>passed</th><th>failed</th><th>errored</th><th>skipped</th></tr>
<tr><td>{{ report.runs }}</td><td>{{ report.planned }}</td><td>{{ report.status.passed }}</td><td>{{ report.status.failed }}</td><td>{{ report.status.errored }}</td><td>{{ report.status.skipped }}</td></tr></table>
{% if report.missing_runs %}<p>Missing runs: {{ report.missing_runs|length }}</p>{% endif %}
{% if winners %}<table><tr><th>metric</th><th>best variant</th></tr>
{% for metric, best in winners %}<tr><td>{{ metric }}</td><td>{{ best }}</td></tr>{% endfor %}</table>
{% else %}<p class="muted">No winner: fewer than two variants differ on any metric.</p>{% endif %}
<table><tr><th>variant</th><th>label</th><th>factors</th></tr>
{% for v in report.variants %}<tr><td>{{ v.id }}</td><td>{{ v.label or "" }}</td><td>{% for k, x in v.factors.items() %}{{ k }}={{ x }}{% if not loop.last %}, {% endif %}{% endfor %}</td></tr>{% endfor %}</table>
</section>
<section id="leaderboard">
<h2>Leaderboard</h2>
<table><tr><th>variant</th><th>runs</th><th>passed</th><th>failed</th><th>errored</th>{% for c in columns %}<th>{{ c }}</th>{% endfor %}</tr>
{% for row in leaderboard %}<tr><td>{{ row.variant }}</td><td>{{ row.runs }}</td><td>{{ row.passed }}</td><td>{{ row.failed }}</td><td>{{ row.errored }}</td>{% for cell in row.cells %}<td>{{ cell }}</td>{% endfor %}</tr>{% endfor %}</table>
<p class="muted">Bars: mean per variant over its runs with a value; whiskers: 95% Student-t interval of that mean.</p>
<div class="grid">{% for f in figures.intervals %}<div class="chart" id="chart-intervals-{{ loop.index0 }}"></div>{% endfor %}</div>
</section>
<section id="distributions">
<h2>Distributions</h2>
<div class="grid">{% for f in figures.distributions %}<div class="chart" id="chart-distributions-{{ loop.index0 }}"></div>{% endfor %}</div>
{% if not figures.distributions %}<p class="muted">No numeric metric was recorded.</p>{% endif %}
</section>
<section id="tradeoff">
<h2>Quality and cost</h2>
{% for f in figures.scatter %}<div class="chart" id="chart-scatter-{{ loop.index0 }}"></div>{% else %}<p class="muted">Needs a quality metric and a cost (or latency) metric.</p>{% endfor %}
</section>
<section id="matrix">
<h2>Case matrix</h2>
{% for f in figures.matrix %}<div class="chart" id="chart-matrix-{{ loop.index0 }}"></div>{% else %}<p class="muted">No runs.</p>{% endfor %}
</section>
<section id="comparisons">
<h2>Comparisons</h2>
{% for c in comparisons %}
<h3>{{ c.baseline }} &rarr; {{ c.candidate }}</h3>
<p>Paired cases: {{ c.paired }}. {% if c.confounded %}<strong>Confounded</strong>: more than one factor differs, so deltas are associations.{% endif %}
Deltas are candidate minus baseline over the paired cases.</p>
{% if c.changes %}<table><tr><th>factor</th><th>{{ c.baseline }}</th><th>{{ c.candidate }}</th></tr>{% for name, b, k in c.changes %}<tr><td>{{ name }}</td><td>{{ b }}</td><td>{{ k }}</td></tr>{% endfor %}</table>{% endif %}
{% if c.metrics %}<table><tr><th>metric</th><th>{{ c.baseline }}</th><th>{{ c.candidate }}</th><th>delta</th><th>delta %</th>{% if c.statistics %}<th>mean paired delta</th><th>interval</th><th>test</th><th>p / Holm p</th><th>verdict</th>{% endif %}</tr>
{% for m in c.metrics %}<tr><td>{{ m.label }}</td><td>{{ m.baseline }}</td><td>{{ m.candidate }}</td><td>{{ m.delta }}</td><td>{{ m.relative }}</td>{% if c.statistics %}<td>{{ m.mean_delta }}</td><td>{{ m.interval }}</td><td>{{ m.test }}</td><td>{{ m.p }}</td><td class="verdict-{{ m.verdict_class }}">{{ m.verdict }}</td>{% endif %}</tr>{% endfor %}</table>{% endif %}
{% if figures.comparisons[loop.index0] %}<div class="chart" style="min-height: 0" id="chart-comparisons-{{ loop.index0 }}"></div>{% endif %}
{% if c.unpaired %}<table><tr><th>unpaired case</th><th>reason</th></tr>{% for case, why in c.unpaired %}<tr><td>{{ case }}</td><td>{{ why }}</td></tr>{% endfor %}</table>{% endif %}
{% else %}<p class="muted">No comparison (one variant, or none configured).</p>{% endfor %}
</section>
<section id="runs-section">
<h2>Runs</h2>
<p><label>Filter: <input id="run-filter" type="search" placeholder="case, variant or status"></label> <span id="run-count" class="muted"></span></p>
<div id="drilldown" hidden>
<h3 id="dd-title"></h3>
<p>Status: <strong id="dd-status"></strong> <span id="dd-duration" class="muted"></span></p>
<p id="dd-reason"></p>
<h4>Scores</h4><table id="dd-scores"><thead><tr><th>score</th><th>value</th><th>reason</th><th>error</th></tr></thead><tbody></tbody></table>
<h4>Errors</h4><table id="dd-errors"><thead><tr><th>stage</th><th>type</th><th>message</th></tr></thead><tbody></tbody></table>
<h4>Span waterfall</h4><p id="dd-spans-note" class="muted"></p><div id="dd-waterfall" class="chart"></div>
<h4>Artifacts</h4><table id="dd-artifacts"><thead><tr><th>name</th><th>size (bytes)</th></tr></thead><tbody></tbody></table>
</div>
<table id="runs"><thead><tr><th>case</th><th>variant</th><th>status</th><th>reason</th></tr></thead><tbody></tbody></table>
</section>
{% if report.diagnostics %}<section id="diagnostics"><h2>Diagnostics</h2><ul>{% for d in report.diagnostics %}<li>{{ d }}</li>{% endfor %}</ul></section>{% endif %}
<script type="application/json" id="report-data">{{ data_json|safe }}</script>
<script>{{ plotly_js|safe }}</script>
<script>
"use strict";
(function () {
  var DATA = JSON.parse(document.getElementById("report-data").textContent);
  var RUNS = DATA.runs, S = DATA.strings, SHOWN = 500;
  var CONFIG = {displaylogo: false, responsive: true, modeBarButtonsToRemove: ["toImage"]};
  var pending = [];
  function draw(id, figure) {
    var layout = Object.assign({title: {text: figure.title}, margin: {t: 50, l: 60, r: 20, b: 50}}, figure.layout || {});
    if (layout.yaxis && layout.yaxis.automargin) { layout.margin.l = 160; }
    return Plotly.newPlot(id, figure.data, layout, CONFIG);
  }
  ["intervals", "distributions", "scatter", "matrix", "comparisons"].forEach(function (kind) {
    DATA.figures[kind].forEach(function (figure, i) { if (figure) { pending.push(draw("chart-" + kind + "-" + i, figure)); } });
  });
  function cell(row, text, className) {
    var td = document.createElement("td");
    td.textContent = text === null || text === undefined ? "" : String(text);
    if (className) { td.className = className; }
    row.appendChild(td);
  }
  function fill(id, rows) {
    var body = document.querySelector("#" + id + " tbody");
    body.textContent = "";
    rows.forEach(function (values) {
      var tr = document.createElement("tr");
      values.forEach(function (v) { cell(tr, v); });
      body.appendChild(tr);
    });
    if (!rows.length) { var tr = document.createElement("tr"); cell(tr, "none", "muted"); body.appendChild(tr); }
  }
  function openRun(index) {
    var run = RUNS[index];
    if (!run) { return; }
    var panel = document.getElementById("drilldown");
    panel.hidden = false;
    panel.dataset.run = run[0];
    document.getElementById("dd-title").textContent = S[run[1]] + " / " + S[run[2]] + " (" + run[0] + ")";
    var status = document.getElementById("dd-status");
    status.textContent = S[run[3]];
    status.className = "status-" + S[run[3]];
    document.getElementById("dd-duration").textContent = run[10] < 0 ? "" : "duration " + run[10] / 1e6 + " s";
    document.getElementById("dd-reason").textContent = run[4] ? "Reason: " + run[4] : "";
    fill("dd-scores", run[5].map(function (x) { return [S[x[0]], x[1], x[2], x[3]]; }));
    fill("dd-errors", run[6].map(function (x) { return [S[x[0]], S[x[1]], x[2]]; }));
    fill("dd-artifacts", run[7]);
    var flat = run[8], spans = [];
    for (var k = 0; k < flat.length; k += 4) {
      spans.push({name: S[flat[k]], offset: flat[k + 1] / 1e6, duration: flat[k + 2] < 0 ? 0 : flat[k + 2] / 1e6,
                  depth: flat[k + 3] >> 1, failed: (flat[k + 3] & 1) === 1});
    }
    var note = document.getElementById("dd-spans-note");
    note.textContent = !spans.length ? "No trace recorded." :
      (run[9] > spans.length ? "First " + spans.length + " of " + run[9] + " spans." : run[9] + " spans.");
    var chart = document.getElementById("dd-waterfall");
    if (!spans.length) { Plotly.purge(chart); chart.style.display = "none"; }
    else {
      chart.style.display = "";
      var labels = spans.map(function (s, i) { return "\u00b7 ".repeat(s.depth) + s.name + " #" + (i + 1); });
      Plotly.newPlot(chart, [{
        type: "bar", orientation: "h", y: labels, base: spans.map(function (s) { return s.offset; }),
        x: spans.map(function (s) { return s.duration; }),
        marker: {color: spans.map(function (s) { return s.failed ? "#d62728" : "#4a90d9"; })},
        hovertemplate: "start %{base:.4g} s, duration %{x:.4g} s<extra></extra>"
      }], {
        title: {text: "Spans: offset and duration (s)"}, height: 120 + 24 * spans.length,
        margin: {t: 40, l: 200, r: 20, b: 40},
        yaxis: {autorange: "reversed", automargin: true, type: "category"}, xaxis: {title: {text: "seconds from the trace start"}}
      }, CONFIG);
    }
    panel.scrollIntoView({block: "nearest"});
  }
  window.autobenchOpenRun = openRun;
  var filter = document.getElementById("run-filter");
  function renderRuns() {
    var needle = filter.value.trim().toLowerCase();
    var body = document.querySelector("#runs tbody");
    body.textContent = "";
    var matched = 0;
    for (var i = 0; i < RUNS.length; i++) {
      var run = RUNS[i];
      if (needle && (S[run[1]] + " " + S[run[2]] + " " + S[run[3]]).toLowerCase().indexOf(needle) < 0) { continue; }
      matched++;
      if (matched > SHOWN) { continue; }
      var tr = document.createElement("tr");
      tr.dataset.index = i;
      cell(tr, S[run[1]]); cell(tr, S[run[2]]); cell(tr, S[run[3]], "status-" + S[run[3]]); cell(tr, run[4]);
      body.appendChild(tr);
    }
    document.getElementById("run-count").textContent = matched > SHOWN ?
      "showing " + SHOWN + " of " + matched + " runs (filter to narrow)" : matched + " runs";
  }
  document.querySelector("#runs tbody").addEventListener("click", function (event) {
    var tr = event.target.closest("tr");
    if (tr && tr.dataset.index !== undefined) { openRun(Number(tr.dataset.index)); }
  });
  filter.addEventListener("input", renderRuns);
  renderRuns();
  DATA.figures.matrix.forEach(function (figure, i) {
    var element = document.getElementById("chart-matrix-" + i);
    element.on("plotly_click", function (event) {
      var index = event.points && event.points[0] && event.points[0].customdata;
      if (index !== undefined && index >= 0) { openRun(index); }
    });
  });
  Promise.all(pending).then(function () {
    window.autobenchReady = performance.now();
    document.body.dataset.ready = "true";
  });
})();
</script>
</body>
</html>
"""
