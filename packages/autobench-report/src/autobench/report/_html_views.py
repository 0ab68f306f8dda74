"""What the HTML report's tables show: the headline, the leaderboard, the comparisons and
the case matrix, as plain values for the page template and script (never markup: the
template escapes them, the script sets them as text).

Numbers use the terminal's notation (:mod:`autobench.report._display`,
:func:`~autobench.report._render_cells.aggregate_cell`): one unit and one number of
decimals per column, ms or s for times, USD for money, percentages for the pass rate.
"""

from __future__ import annotations

from typing import Any

from autobench.records import Direction, RunStatus
from autobench.report._display import NumberFormat, number_format, percent_text
from autobench.report._format import column_label, metric_label, value_text
from autobench.report._headline_text import comparison_title, item_text, pareto_text
from autobench.report._html_runs import number
from autobench.report._model import AggregateValue, Comparison, ComparisonMetric, Report
from autobench.report._reliability_text import (
    case_header,
    case_row,
    unsteady_cases,
    variant_header,
    variant_row,
)
from autobench.report._reliability_text import notes as reliability_notes
from autobench.report._reliability_text import title as reliability_title
from autobench.report._render_cells import aggregate_cell
from autobench.report._statistics_text import p_text, verdict_text

PERCENT = number_format((), None, percent=True)
STATUS_CODE = {RunStatus.PASSED: 0, RunStatus.FAILED: 1, RunStatus.ERRORED: 2, RunStatus.SKIPPED: 3}
NO_RUN = -1


def _cell(aggregate: AggregateValue | None, fmt: NumberFormat) -> str:
    return aggregate_cell(aggregate, fmt).plain


def verdict_class(verdict: Any) -> str:
    """A CSS class for a verdict (``verdict-improved``), ``""`` for none."""
    return "" if verdict is None else "verdict-" + str(verdict.value).replace(" ", "-")


def headline_view(report: Report) -> dict[str, Any]:
    """The headline in the shared wording (:mod:`autobench.report._headline_text`): per
    comparison a title and one line per item, then the Pareto front."""
    comparisons = []
    for comparison in report.headline.comparisons:
        level = next((i.level for i in comparison.items if i.level is not None), None)
        comparisons.append(
            {
                "title": comparison_title(comparison, level),
                "items": [(item_text(i), verdict_class(i.verdict)) for i in comparison.items],
            }
        )
    pareto = report.headline.pareto
    return {
        "comparisons": comparisons,
        "pareto": None if pareto is None else pareto_text(pareto),
    }


def leaderboard_view(report: Report, formats: dict[str, NumberFormat]) -> dict[str, Any]:
    """Headers (name, then aggregate and unit) and rows of the leaderboard; the best value
    of each column with a direction is flagged."""
    board = report.leaderboard
    headers = []
    for column in board.columns:
        fmt = formats[column.name]
        name = column.name
        detail = (
            column.fn if name == column.semantic_type else f"{column.fn} of {column.semantic_type}"
        )
        headers.append(
            {
                "name": name,
                "detail": f"{detail}, {fmt.unit}" if fmt.unit else detail,
                "direction": None if column.direction is None else str(column.direction.value),
            }
        )
    rows = []
    for row in board.rows:
        cells = [
            (
                _cell(row.metrics.get(column.name), formats[column.name]),
                row.variant in board.best.get(column.name, ()),
            )
            for column in board.columns
        ]
        rows.append(
            {
                "variant": row.variant,
                "runs": row.runs,
                "counts": f"{row.status.passed}/{row.status.failed}/{row.status.errored}",
                "pass_rate": (_cell(row.pass_rate, PERCENT), row.variant in board.best_pass_rate),
                "cells": cells,
            }
        )
    return {"headers": headers, "rows": rows}


def _metric_format(
    metric: ComparisonMetric, formats: dict[tuple[str, str], NumberFormat]
) -> NumberFormat:
    known = formats.get((metric.semantic_type, metric.fn))
    if known is not None:
        return known
    return number_format([metric.baseline.value, metric.candidate.value], metric.unit)


def comparison_view(
    item: Comparison, formats: dict[tuple[str, str], NumberFormat]
) -> dict[str, Any]:
    """A comparison's values (each metric's aggregate per side, delta and relative delta)
    and the statistics of every row that has them, each row its own (the model's), in the
    metric's notation."""
    values, tested = [], []
    level = None
    for metric in item.metrics:
        fmt = _metric_format(metric, formats)
        label = column_label(metric.name, metric.fn, metric.semantic_type, fmt.unit)
        values.append(
            {
                "label": label,
                "baseline": _cell(metric.baseline, fmt),
                "candidate": _cell(metric.candidate, fmt),
                "delta": "-" if metric.delta is None else fmt.text(metric.delta, signed=True),
                "relative": "-" if metric.relative is None else percent_text(metric.relative),
            }
        )
        st = metric.statistics
        if st is None:
            continue
        level = st.level
        exact = st.test == "exact"
        if exact:
            interval = "on every case"
        elif st.ci_low is None or st.ci_high is None:
            interval = "-"
        else:
            interval = f"[{fmt.text(st.ci_low, signed=True)}, {fmt.text(st.ci_high, signed=True)}]"
        estimate = st.mean_delta if st.estimate is None else st.estimate
        tested.append(
            {
                "label": label,
                "cases": st.n,
                "estimate": "-" if estimate is None else fmt.text(estimate, signed=True),
                "estimate_of": "exact delta" if exact else st.interval_of or "mean delta",
                "interval": interval,
                "test": st.test,
                "p": p_text(st.p_value),
                "p_adjusted": p_text(st.p_adjusted),
                "verdict": verdict_text(st, note=False),
                "verdict_class": verdict_class(st.verdict),
                "note": "" if exact else st.note or "",
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
        "values": values,
        "statistics": tested,
        "level": f"{level:.0%}" if level is not None else "",
        "alpha": f"{1 - level:.2g}" if level is not None else "",
        "unpaired": [(u.case, u.reason) for u in item.unpaired],
        "forests": [],
    }


def matrix_direction(report: Report, semantic_type: str) -> Direction | None:
    """Which way is better for the matrix's metric: the direction of a leaderboard column
    or a comparison's statistics over it (``None`` when neither knows one)."""
    for column in report.leaderboard.columns:
        if column.semantic_type == semantic_type and column.direction is not None:
            return column.direction
    for comparison in report.comparisons:
        for metric in comparison.metrics:
            st = metric.statistics
            if metric.semantic_type == semantic_type and st is not None and st.direction:
                return st.direction
    return None


def matrix_data(report: Report, run_index: dict[tuple[str, str], int]) -> dict[str, Any] | None:
    """The case x variant matrix for the page's script: per case, four entries per variant
    (status code or :data:`NO_RUN`, the value as text, its shade from 0 to 1 with 1 the
    best in the metric's direction (the largest without one; ``None``: no number), the
    run's index for its drill-down), a title and the legend's words."""
    matrix = report.matrix
    if matrix is not None:
        cases, variants = list(matrix.cases), list(matrix.variants)
        title = f"Case matrix: {metric_label(matrix.semantic_type, matrix.unit)}, one cell per run"
        direction = matrix_direction(report, matrix.semantic_type)

        def cell(case: str, variant: str) -> tuple[RunStatus | None, Any]:
            found = matrix.cells.get(case, {}).get(variant)
            return (found.status, found.value) if found is not None else (None, None)

    else:
        rows = {(r.case_id, r.variant_id): r for r in report.run_rows}
        cases = list(dict.fromkeys(r.case_id for r in report.run_rows))
        variants = [v.id for v in report.variants]
        title = "Case matrix: status of each run"
        direction = None

        def cell(case: str, variant: str) -> tuple[RunStatus | None, Any]:
            row = rows.get((case, variant))
            return (row.status, None) if row is not None else (None, None)

    if not cases:
        return None
    raw = [[cell(case, variant) for variant in variants] for case in cases]
    numbers = [n for row in raw for _, value in row if (n := number(value)) is not None]
    unit = matrix.unit if matrix is not None else None
    fmt = number_format(numbers, unit, scale=False)
    low, high = (min(numbers), max(numbers)) if numbers else (0.0, 1.0)
    span = high - low
    flat_rows = []
    for case, row in zip(cases, raw, strict=True):
        flat: list[Any] = []
        for variant, (status, value) in zip(variants, row, strict=True):
            found = number(value)
            shade = None
            if found is not None:
                shade = 1.0 if not span else (found - low) / span
                if direction is Direction.MINIMIZE:
                    shade = 1.0 - shade
                shade = round(shade, 3)
            text = "" if value is None else (fmt.text(value) if found is not None else str(value))
            flat += [
                NO_RUN if status is None else STATUS_CODE[status],
                text,
                shade,
                run_index.get((case, variant), -1),
            ]
        flat_rows.append(flat)
    if direction is Direction.MINIMIZE:
        scale = "passed: darker is better (lower is better)"
    elif direction is Direction.MAXIMIZE:
        scale = "passed: darker is better (higher is better)"
    elif numbers:
        scale = "passed: darker is larger (no direction known: neither is better)"
    else:
        scale = "passed"
    return {
        "title": title,
        "unit": fmt.unit,
        "direction": None if direction is None else str(direction.value),
        "scale": scale,
        "neutral": direction is None,
        "cases": cases,
        "variants": variants,
        "cells": flat_rows,
    }


def reliability_view(report: Report, max_rows: int = 200) -> dict[str, Any] | None:
    """The reliability section (``None`` without repeats): the per-variant table, the cases
    that did not pass every repeat (at most ``max_rows``), and the notes; the terminal's and
    Markdown's wording (:mod:`autobench.report._reliability_text`)."""
    reliability = report.reliability
    if reliability is None:
        return None
    unsteady = unsteady_cases(reliability)
    return {
        "title": reliability_title(reliability),
        "header": variant_header(reliability),
        "rows": [variant_row(item) for item in reliability.variants],
        "case_header": case_header(reliability),
        "cases": [case_row(variant, case) for variant, case in unsteady[:max_rows]],
        "more": max(0, len(unsteady) - max_rows),
        "notes": reliability_notes(reliability, 20),
    }
