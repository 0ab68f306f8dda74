"""The charts of the HTML report, as plotly figure dictionaries (``title``, ``data``,
``layout``) for the page's script to draw with plotly's ``basic`` bundle (bar and scatter
traces only).

Every chart's title says what it draws: the aggregate, the metric and its unit. Values are
shown in the terminal's units (:func:`~autobench.report._display.number_format`: ms or s,
USD, ...). The page shows each title above its chart, outside plotly's drawing, so the
chart's toolbar never covers it.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from scipy import stats  # type: ignore[import-untyped]

from autobench.report._display import NumberFormat, number_format
from autobench.report._format import column_label
from autobench.report._html_runs import number
from autobench.report._model import Comparison, ComparisonMetric, Report
from autobench.report._statistics_text import verdict_text

MAX_POINTS = 200
"""Variants with more values than this show only their outliers as points."""
COST_TYPES = ("cost", "money")
LATENCY_TYPES = ("time.latency", "latency")


def plot_text(text: str) -> str:
    """Text for a plotly label: HTML-escaped (plotly reads some tags in its strings)."""
    return html.escape(text, quote=True)


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


class RunValues:
    """The numeric value of every metric of every run, read once from the report's run
    rows: ``cases(type)[variant][case]`` lists a case's values (one per run)."""

    def __init__(self, report: Report) -> None:
        variants = [v.id for v in report.variants]
        self._by_type: dict[str, dict[str, dict[str, list[float]]]] = {}
        for row in report.run_rows:
            for semantic_type, value in row.metrics.items():
                found = number(value)
                if found is None:
                    continue
                by_variant = self._by_type.get(semantic_type)
                if by_variant is None:
                    by_variant = self._by_type[semantic_type] = {v: {} for v in variants}
                by_variant.setdefault(row.variant_id, {}).setdefault(row.case_id, []).append(found)

    def cases(self, semantic_type: str) -> dict[str, dict[str, list[float]]]:
        """Per variant, per case, the values of ``semantic_type`` (empty: none recorded)."""
        return self._by_type.get(semantic_type, {})

    def runs(self, semantic_type: str) -> dict[str, list[float]]:
        """Per variant, the value of each run with one, in run order within a case."""
        return {
            variant: [x for values in by_case.values() for x in values]
            for variant, by_case in self.cases(semantic_type).items()
        }

    def case_means(self, semantic_type: str) -> dict[str, list[float]]:
        """Per variant, the mean of each case's runs (a case's repeats reduced to one value
        first, as the leaderboard's aggregates are)."""
        return {
            variant: [math.fsum(values) / len(values) for values in by_case.values()]
            for variant, by_case in self.cases(semantic_type).items()
        }


def _unit_label(label: str, unit: str | None) -> str:
    return label if not unit else f"{label} [{unit}]"


def leaderboard_formats(report: Report) -> dict[str, NumberFormat]:
    """The notation of each leaderboard column (by name), chosen from its values as the
    terminal chooses it."""
    board = report.leaderboard
    return {
        column.name: number_format(
            [row.metrics[column.name].value for row in board.rows if column.name in row.metrics],
            column.unit,
        )
        for column in board.columns
    }


def interval_figures(
    report: Report, values: RunValues, formats: dict[str, NumberFormat]
) -> list[dict[str, Any]]:
    """One bar chart per leaderboard column: the column's own aggregate per variant (the
    leaderboard's value), with a 95 % Student-t interval over the per-case values when the
    aggregate is the mean."""
    board = report.leaderboard
    figures: list[dict[str, Any]] = []
    for column in board.columns:
        fmt = formats[column.name]
        per_case = values.case_means(column.semantic_type) if column.fn == "mean" else {}
        names, bars, plus, minus, counts = [], [], [], [], []
        for row in board.rows:
            aggregate = row.metrics.get(column.name)
            if aggregate is None or number(aggregate.value) is None:
                continue
            value = float(aggregate.value)  # type: ignore[arg-type]
            names.append(plot_text(row.variant))
            bars.append(value * fmt.factor)
            counts.append(f"n={aggregate.n}/{aggregate.total}")
            interval = mean_interval(per_case.get(row.variant, []))
            low, high = (value, value) if interval is None else interval[1:]
            plus.append(max(0.0, high - value) * fmt.factor)
            minus.append(max(0.0, value - low) * fmt.factor)
        if not names:
            continue
        label = column_label(column.name, column.fn, column.semantic_type, fmt.unit)
        title = f"{label}, per variant"
        trace: dict[str, Any] = {
            "type": "bar",
            "orientation": "h",
            "y": names,
            "x": bars,
            "customdata": counts,
            "hovertemplate": f"%{{y}}: %{{x:.{fmt.decimals}f}} (%{{customdata}})<extra></extra>",
        }
        if column.fn == "mean":
            title += " (whiskers: 95% interval of the mean over cases)"
            trace["error_x"] = {"type": "data", "array": plus, "arrayminus": minus}
        figures.append(
            {
                "title": title,
                "column": column.name,
                "data": [trace],
                "layout": {
                    "height": 110 + 34 * len(names),
                    "xaxis": {
                        "title": {
                            "text": plot_text(
                                f"{column.fn} of {_unit_label(column.semantic_type, fmt.unit)}"
                            )
                        }
                    },
                    "yaxis": {"automargin": True, "type": "category", "autorange": "reversed"},
                },
            }
        )
    return figures


def constant_metrics(report: Report, values: RunValues) -> tuple[list[str], list[str]]:
    """Split the recorded numeric metrics into those that vary (their semantic types) and
    one line for each that does not vary within any variant: ``llm.tokens.input [tokens]:
    12 in every run (30 runs)``, or one value per variant when the variants differ."""
    varying: list[str] = []
    lines: list[str] = []
    for semantic_type, unit in report.metric_units.items():
        per_variant = {v: xs for v, xs in values.runs(semantic_type).items() if xs}
        if not per_variant:
            continue
        if any(len(set(xs)) > 1 for xs in per_variant.values()):
            varying.append(semantic_type)
            continue
        fmt = number_format([xs[0] for xs in per_variant.values()], unit)
        label = _unit_label(semantic_type, fmt.unit)
        runs = sum(len(xs) for xs in per_variant.values())
        distinct = {xs[0] for xs in per_variant.values()}
        if len(distinct) == 1:
            value = fmt.text(next(iter(distinct)))
            lines.append(f"{label}: {value} in every run ({runs} runs)")
        else:
            each = ", ".join(f"{v} {fmt.text(xs[0])}" for v, xs in per_variant.items())
            lines.append(f"{label}: {each} (the same in every run of each variant)")
    return varying, lines


def _quartiles(values: Sequence[float]) -> tuple[float, float, float, float, float]:
    """``(low whisker, q1, median, q3, high whisker)``; whiskers reach the furthest values
    within 1.5 interquartile ranges of the box (Tukey)."""
    q1, median, q3 = (float(q) for q in np.percentile(values, [25, 50, 75]))
    reach = 1.5 * (q3 - q1)
    low = min(v for v in values if v >= q1 - reach)
    high = max(v for v in values if v <= q3 + reach)
    return low, q1, median, q3, high


def distribution_figures(
    report: Report, values: RunValues, semantic_types: Iterable[str]
) -> list[dict[str, Any]]:
    """A box per variant for each metric in ``semantic_types`` (quartiles and median computed
    here, drawn as bars and markers): every run's value as a point up to
    :data:`MAX_POINTS` values, else the outliers only."""
    figures = []
    for semantic_type in semantic_types:
        per_variant = {v: xs for v, xs in values.runs(semantic_type).items() if xs}
        fmt = number_format(
            [x for xs in per_variant.values() for x in xs], report.metric_units.get(semantic_type)
        )
        names = [plot_text(v) for v in per_variant]
        boxes = [_quartiles([x * fmt.factor for x in xs]) for xs in per_variant.values()]
        points_x: list[float] = []
        points_y: list[float] = []
        for index, xs in enumerate(per_variant.values()):
            low, _, _, _, high = boxes[index]
            shown = [x * fmt.factor for x in xs]
            if len(shown) > MAX_POINTS:
                shown = [x for x in shown if x < low or x > high][:MAX_POINTS]
            for k, x in enumerate(shown):
                points_x.append(index + 0.3 * (((k * 0.618034) % 1.0) - 0.5))
                points_y.append(x)
        ticks = list(range(len(names)))
        label = _unit_label(semantic_type, fmt.unit)
        hover = f"%{{y:.{fmt.decimals}f}}<extra></extra>"
        figures.append(
            {
                "title": f"{label}: distribution over runs per variant "
                "(box: quartiles and median; whiskers: 1.5 IQR; points: runs)",
                "data": [
                    {
                        "type": "bar",
                        "x": ticks,
                        "base": [b[1] for b in boxes],
                        "y": [b[3] - b[1] for b in boxes],
                        "width": 0.5,
                        "marker": {
                            "color": "rgba(74,144,217,0.25)",
                            "line": {"color": "#4a90d9", "width": 1.5},
                        },
                        "customdata": [[b[1], b[2], b[3]] for b in boxes],
                        "hovertemplate": f"q1 %{{customdata[0]:.{fmt.decimals}f}}, median "
                        f"%{{customdata[1]:.{fmt.decimals}f}}, q3 %{{customdata[2]:.{fmt.decimals}f}}"
                        "<extra></extra>",
                    },
                    {
                        "type": "scatter",
                        "mode": "markers",
                        "x": ticks,
                        "y": [b[2] for b in boxes],
                        "marker": {
                            "symbol": "line-ew",
                            "size": 40,
                            "line": {"width": 3, "color": "#1f4e79"},
                        },
                        "hovertemplate": "median " + hover,
                    },
                    {
                        "type": "scatter",
                        "mode": "markers",
                        "x": ticks + ticks,
                        "y": [b[3] for b in boxes] + [b[1] for b in boxes],
                        "marker": {"size": 1, "opacity": 0},
                        "error_y": {
                            "type": "data",
                            "array": [b[4] - b[3] for b in boxes] + [0.0] * len(boxes),
                            "arrayminus": [0.0] * len(boxes) + [b[1] - b[0] for b in boxes],
                            "color": "#4a90d9",
                            "width": 8,
                        },
                        "hoverinfo": "skip",
                    },
                    {
                        "type": "scatter",
                        "mode": "markers",
                        "x": points_x,
                        "y": points_y,
                        "marker": {"size": 5, "color": "rgba(31,78,121,0.55)"},
                        "hovertemplate": hover,
                    },
                ],
                "layout": {
                    "height": 360,
                    "showlegend": False,
                    "xaxis": {
                        "tickvals": ticks,
                        "ticktext": names,
                        "range": [-0.6, len(names) - 0.4],
                    },
                    "yaxis": {"title": {"text": plot_text(label)}, "automargin": True},
                },
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


def scatter_figure(report: Report, values: RunValues) -> dict[str, Any] | None:
    """Mean quality against mean cost per variant (latency when no cost was recorded),
    over every run with a value, with the Pareto front of these two axes as a line."""
    quality = next(
        (c.semantic_type for c in report.leaderboard.columns if c.direction == "maximize"), None
    ) or _pick(report, ("quality", "score", "correct"))
    if quality is None:
        return None
    cost = _pick(report, COST_TYPES, quality) or _pick(report, LATENCY_TYPES, quality)
    if cost is None:
        return None
    quality_values, cost_values = values.runs(quality), values.runs(cost)
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
    x_fmt = number_format([p[0] for p in points], report.metric_units.get(cost))
    y_fmt = number_format([p[1] for p in points], report.metric_units.get(quality))
    points = [(x * x_fmt.factor, y * y_fmt.factor) for x, y in points]
    front = pareto_front(points)
    x_label = _unit_label(cost, x_fmt.unit)
    y_label = _unit_label(quality, y_fmt.unit)
    return {
        "title": f"Mean {quality} against mean {cost} per variant, over runs "
        "(the dotted line joins the variants no other beats on both)",
        "data": [
            {
                "type": "scatter",
                "mode": "markers+text",
                "x": [p[0] for p in points],
                "y": [p[1] for p in points],
                "text": [plot_text(n) for n in names],
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
            "height": 420,
            "showlegend": False,
            "xaxis": {"title": {"text": plot_text(f"mean {x_label}")}},
            "yaxis": {"title": {"text": plot_text(f"mean {y_label}")}},
        },
    }


def _tested(item: Comparison) -> list[ComparisonMetric]:
    return [
        m for m in item.metrics if m.statistics is not None and m.statistics.mean_delta is not None
    ]


def forest_figures(item: Comparison) -> list[dict[str, Any]]:
    """One chart per unit of the comparison's tested metrics: each metric row's own mean
    paired delta (candidate minus baseline) with its interval, and a line at zero, so
    tokens, dollars and scores never share an axis."""
    by_unit: dict[str | None, list[ComparisonMetric]] = {}
    for metric in _tested(item):
        by_unit.setdefault(metric.unit, []).append(metric)
    figures = []
    for unit, rows in by_unit.items():
        statistics = [m.statistics for m in rows if m.statistics is not None]
        deltas = [st.mean_delta or 0.0 for st in statistics]
        bounds = [v for st in statistics for v in (st.ci_low, st.ci_high) if v is not None]
        fmt = number_format([*deltas, *bounds], unit)
        lows = [
            st.ci_low if st.ci_low is not None else d
            for st, d in zip(statistics, deltas, strict=True)
        ]
        highs = [
            st.ci_high if st.ci_high is not None else d
            for st, d in zip(statistics, deltas, strict=True)
        ]
        level = statistics[0].level
        scale = f"[{fmt.unit}]" if fmt.unit else "(no unit)"
        metrics = f"metrics in {fmt.unit}" if fmt.unit else "metrics without a unit"
        figures.append(
            {
                "title": f"{item.candidate} minus {item.baseline}, {metrics}: mean paired delta "
                f"per case with its {level:.0%} interval",
                "unit": fmt.unit,
                "data": [
                    {
                        "type": "scatter",
                        "mode": "markers",
                        "x": [d * fmt.factor for d in deltas],
                        "y": [
                            plot_text(column_label(m.name, m.fn, m.semantic_type, fmt.unit))
                            for m in rows
                        ],
                        "text": [plot_text(verdict_text(st)) for st in statistics],
                        "marker": {"size": 11},
                        "error_x": {
                            "type": "data",
                            "array": [
                                (h - d) * fmt.factor for h, d in zip(highs, deltas, strict=True)
                            ],
                            "arrayminus": [
                                (d - lo) * fmt.factor for lo, d in zip(lows, deltas, strict=True)
                            ],
                        },
                        "hovertemplate": f"%{{y}}: %{{x:+.{fmt.decimals}f}}, %{{text}}<extra></extra>",
                    }
                ],
                "layout": {
                    "height": 120 + 40 * len(rows),
                    "yaxis": {"automargin": True, "type": "category", "autorange": "reversed"},
                    "xaxis": {
                        "zeroline": True,
                        "zerolinewidth": 2,
                        "rangemode": "tozero",
                        "title": {"text": plot_text(f"delta {scale} (0: no difference)")},
                    },
                },
            }
        )
    return figures
