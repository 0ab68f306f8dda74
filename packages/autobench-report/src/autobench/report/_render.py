"""The Rich terminal report: a :class:`Report` as renderables, readable at 80 columns.

Large experiments are summarised rather than printed in full: per-run rows and
matrix rows beyond ``max_rows`` are left out unless asked for (``runs="all"``),
and what was left out is said in a caption. Colour is only a hint: every
status is also written as a word, so ``NO_COLOR`` and piped output read the
same.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from rich import box
from rich.console import Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from autobench.records import RunStatus
from autobench.report._format import aggregate_text, metric_label, number_text, value_text
from autobench.report._model import (
    AggregateValue,
    CaseMatrix,
    Comparison,
    Distribution,
    Leaderboard,
    MetricColumn,
    Report,
    RunMetricRow,
)

RunSelection = Literal["auto", "all", "failed", "none"]

STATUS_STYLE = {
    RunStatus.PASSED: "green",
    RunStatus.FAILED: "yellow",
    RunStatus.ERRORED: "red",
    RunStatus.SKIPPED: "dim",
}


def _table(title: str, caption: str | None = None) -> Table:
    return Table(
        title=title,
        title_justify="left",
        title_style="bold",
        caption=caption,
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )


def _status(status: RunStatus | None) -> Text:
    if status is None:
        return Text("no run", style="dim")
    return Text(status.value, style=STATUS_STYLE[status])


def _aggregate(aggregate: AggregateValue | None) -> Text:
    if aggregate is None:
        return Text("-", style="dim")
    if aggregate.value is None:
        return Text(f"no value (n=0/{aggregate.total})", style="dim")
    if aggregate.n == aggregate.total:
        return Text(number_text(aggregate.value))
    return Text(aggregate_text(aggregate))


def render_overview(report: Report, records: str | None = None) -> RenderableType:
    """Benchmark, experiment, record directory, run and status counts, missing runs."""
    grid = Table.grid(padding=(0, 2))
    grid.add_row("benchmark", Text(report.benchmark, style="bold"))
    grid.add_row("experiment", Text(report.experiment, overflow="fold"))
    if records:
        grid.add_row("records", Text(records, overflow="fold"))
    grid.add_row("runs", f"{report.runs} of {report.planned} planned")
    counts = Text()
    for status in RunStatus:
        value = getattr(report.status, status.value)
        if counts:
            counts.append("  ")
        counts.append(f"{status.value} {value}", style=STATUS_STYLE[status] if value else "dim")
    grid.add_row("status", counts)
    if report.missing_runs:
        missing = ", ".join(report.missing_runs[:5]) + (
            " ..." if len(report.missing_runs) > 5 else ""
        )
        grid.add_row(
            "missing",
            Text(
                f"{len(report.missing_runs)} planned runs have no record: {missing}",
                style="red",
                overflow="fold",
            ),
        )
    return Panel(grid, title="Experiment", title_align="left")


def render_variants(report: Report) -> RenderableType:
    table = _table("Variants")
    table.add_column("variant", style="bold", overflow="fold")
    table.add_column("label", overflow="fold")
    table.add_column("factors", overflow="fold")
    for variant in report.variants:
        factors = ", ".join(
            f"{name}={value_text(value)}" for name, value in variant.factors.items()
        )
        table.add_row(Text(variant.id), Text(variant.label or ""), Text(factors))
    return table


def _column_header(column: MetricColumn, leaderboard: Leaderboard) -> str:
    header = (
        column.name
        if column.name != column.semantic_type
        else f"{column.fn} {column.semantic_type}"
    )
    unit = column.unit or next(
        (row.metrics[column.name].unit for row in leaderboard.rows if column.name in row.metrics),
        None,
    )
    if unit and column.fn not in ("count", "ratio_true"):
        header += f" [{unit}]"
    return header


WIDE_LEADERBOARD = 3
"""More metric columns than this are shown transposed (one row per metric), which stays
readable at 80 columns however many metrics the spec asks for."""


def render_leaderboard(leaderboard: Leaderboard) -> RenderableType:
    """Variants with their runs, status counts and aggregates; transposed when wide."""
    if len(leaderboard.columns) > WIDE_LEADERBOARD:
        return _render_leaderboard_by_metric(leaderboard)
    table = _table("Leaderboard")
    table.add_column("variant", style="bold", no_wrap=True, overflow="ellipsis", max_width=24)
    table.add_column("runs", justify="right", no_wrap=True)
    table.add_column("pass/fail/err", justify="right", no_wrap=True)
    for column in leaderboard.columns:
        table.add_column(
            Text(_column_header(column, leaderboard)), justify="right", overflow="fold", min_width=8
        )
    for row in leaderboard.rows:
        status = f"{row.status.passed}/{row.status.failed}/{row.status.errored}"
        cells = [_aggregate(row.metrics.get(column.name)) for column in leaderboard.columns]
        table.add_row(Text(row.variant), str(row.runs), status, *cells)
    return table


def _render_leaderboard_by_metric(leaderboard: Leaderboard) -> RenderableType:
    table = _table("Leaderboard")
    table.add_column("", overflow="fold", min_width=12)
    for row in leaderboard.rows:
        table.add_column(
            Text(row.variant, style="bold"), justify="right", overflow="fold", min_width=8
        )
    table.add_row("runs", *(str(row.runs) for row in leaderboard.rows))
    table.add_row(
        "pass/fail/err",
        *(
            f"{row.status.passed}/{row.status.failed}/{row.status.errored}"
            for row in leaderboard.rows
        ),
    )
    for column in leaderboard.columns:
        table.add_row(
            Text(_column_header(column, leaderboard)),
            *(_aggregate(row.metrics.get(column.name)) for row in leaderboard.rows),
        )
    return table


def _select_rows(
    rows: tuple[RunMetricRow, ...], runs: RunSelection, max_rows: int
) -> tuple[list[RunMetricRow], str | None]:
    if runs == "none":
        return [], None
    if runs == "all":
        return list(rows), None
    failing = [row for row in rows if row.status is not RunStatus.PASSED]
    if runs == "auto" and len(rows) <= max_rows:
        return list(rows), None
    chosen = failing[:max_rows]
    left = len(rows) - len(chosen)
    what = "runs that did not pass" if runs == "failed" or len(rows) > max_rows else "runs"
    caption = (
        f"showing {len(chosen)} {what}; {left} more runs not shown (autobench report --runs all)"
        if left
        else None
    )
    return chosen, caption


def _family(semantic_type: str) -> str:
    return semantic_type.split(".", 1)[0]


RUN_METRIC_COLUMNS = 3
"""Metric columns per run-metrics table; a family with more is split into several tables."""


def _run_metric_table(
    title: str,
    caption: str | None,
    family: str,
    semantic_types: list[str],
    rows: list[RunMetricRow],
    report: Report,
) -> Table:
    table = _table(title, caption)
    table.add_column("case", no_wrap=True, overflow="ellipsis", max_width=20)
    table.add_column("variant", no_wrap=True, overflow="ellipsis", max_width=12)
    table.add_column("status", no_wrap=True)
    for semantic_type in semantic_types:
        short = semantic_type.removeprefix(f"{family}.")
        unit = report.metric_units.get(semantic_type)
        header = Text(short if unit is None else f"{short}\n[{unit}]")
        table.add_column(header, justify="right", overflow="fold", min_width=min(len(short), 10))
    for row in rows:
        values = [Text(value_text(row.metrics.get(semantic)) or "-") for semantic in semantic_types]
        table.add_row(Text(row.case_id), Text(row.variant_id), _status(row.status), *values)
    return table


def render_run_metrics(
    report: Report, runs: RunSelection = "auto", max_rows: int = 20
) -> list[RenderableType]:
    """Per-run metrics, one table per semantic family (``quality``, ``time``, ...)."""
    rows, caption = _select_rows(report.run_rows, runs, max_rows)
    if not rows:
        return []
    families: dict[str, list[str]] = {}
    for semantic_type in report.metric_units:
        families.setdefault(_family(semantic_type), []).append(semantic_type)
    tables: list[RenderableType] = []
    for family, semantic_types in families.items():
        chunks = [
            semantic_types[start : start + RUN_METRIC_COLUMNS]
            for start in range(0, len(semantic_types), RUN_METRIC_COLUMNS)
        ]
        for number, chunk in enumerate(chunks, start=1):
            title = f"Run metrics: {family}" + (
                f" ({number}/{len(chunks)})" if len(chunks) > 1 else ""
            )
            tables.append(_run_metric_table(title, caption, family, chunk, rows, report))
    reasons = [row for row in rows if row.reason]
    if reasons:
        why = _table("Why runs did not pass", caption)
        why.add_column("case", overflow="fold")
        why.add_column("variant", overflow="fold")
        why.add_column("status")
        why.add_column("reason", overflow="fold")
        for row in reasons:
            why.add_row(
                Text(row.case_id), Text(row.variant_id), _status(row.status), Text(row.reason or "")
            )
        tables.append(why)
    return tables


def render_matrix(matrix: CaseMatrix, max_rows: int = 20, show_all: bool = False) -> RenderableType:
    """Cases x variants of one metric; a run that did not pass shows its status next to
    its value. With more than ``max_rows`` cases only the cases that differ between
    variants are listed."""
    cases = list(matrix.cases)
    caption = None
    if not show_all and len(cases) > max_rows:
        differing = [case for case in cases if _differs(matrix, case)]
        shown = differing[:max_rows]
        caption = (
            f"{len(cases)} cases: {len(differing)} differ between variants, "
            f"{len(shown)} shown (autobench report --runs all)"
        )
        cases = shown
    table = _table(
        escape(f"Case matrix: {metric_label(matrix.semantic_type, matrix.unit)}"), caption
    )
    table.add_column("case", overflow="fold")
    for variant in matrix.variants:
        table.add_column(Text(variant), justify="right", overflow="fold")
    for case in cases:
        cells: list[Text] = []
        for variant in matrix.variants:
            cell = matrix.cells.get(case, {}).get(variant)
            if cell is None or cell.status is None:
                cells.append(Text("no run", style="dim"))
                continue
            text = Text(value_text(cell.value) or "-")
            if cell.status is not RunStatus.PASSED:
                text.append(f" {cell.status.value}", style=STATUS_STYLE[cell.status])
            cells.append(text)
        table.add_row(Text(case), *cells)
    return table


def _differs(matrix: CaseMatrix, case: str) -> bool:
    cells = [matrix.cells.get(case, {}).get(variant) for variant in matrix.variants]
    seen = {(None, None) if cell is None else (cell.status, repr(cell.value)) for cell in cells}
    return len(seen) > 1


def render_comparison(comparison: Comparison, max_rows: int = 10) -> RenderableType:
    """Paired runs, changed factors, confounding, metric deltas and unpaired cases."""
    grid = Table.grid(padding=(0, 2))
    grid.add_row("paired cases", str(len(comparison.paired_cases)))
    changed = ", ".join(
        f"{change.name}: {value_text(change.baseline) or '-'} -> {value_text(change.candidate) or '-'}"
        for change in comparison.changed_factors
    )
    grid.add_row("changed factors", Text(changed or "none", overflow="fold"))
    if comparison.confounded:
        grid.add_row(
            "confounded",
            Text(
                "yes: more than one factor changed; deltas are associations, not effects of one factor",
                style="yellow",
                overflow="fold",
            ),
        )
    metrics = _table("")
    metrics.add_column("metric", overflow="fold")
    metrics.add_column("baseline", justify="right")
    metrics.add_column("candidate", justify="right")
    metrics.add_column("delta", justify="right")
    for metric in comparison.metrics:
        label = (
            metric.name
            if metric.name != metric.semantic_type
            else f"{metric.fn} {metric.semantic_type}"
        )
        if metric.unit:
            label += f" [{metric.unit}]"
        delta = Text("-", style="dim") if metric.delta is None else Text(f"{metric.delta:+.4g}")
        metrics.add_row(
            Text(label), _aggregate(metric.baseline), _aggregate(metric.candidate), delta
        )
    parts: list[RenderableType] = [grid, metrics]
    if comparison.unpaired:
        unpaired = _table("Unpaired cases")
        unpaired.add_column("case", overflow="fold")
        unpaired.add_column("reason", overflow="fold")
        for item in comparison.unpaired[:max_rows]:
            unpaired.add_row(Text(item.case), Text(item.reason))
        if len(comparison.unpaired) > max_rows:
            unpaired.caption = f"... and {len(comparison.unpaired) - max_rows} more"
        parts.append(unpaired)
    title = Text(f"Compare {comparison.baseline} -> {comparison.candidate}")
    return Panel(Group(*parts), title=title, title_align="left")


def render_policies(report: Report) -> RenderableType:
    """Per policy and variant: runs it held for, of runs it was evaluated on."""
    table = _table("Policies")
    table.add_column("policy", style="bold", overflow="fold")
    table.add_column("metric", overflow="fold")
    variants = [variant.id for variant in report.variants] or sorted(
        {v for p in report.policies for v in (*p.passed, *p.failed)}
    )
    for variant in variants:
        table.add_column(Text(variant), justify="right", no_wrap=True)
    for policy in report.policies:
        cells = []
        for variant in variants:
            held, failed = policy.passed.get(variant, 0), policy.failed.get(variant, 0)
            style = "red" if failed else "green"
            cells.append(
                Text(f"{held}/{held + failed}", style=style)
                if held + failed
                else Text("-", style="dim")
            )
        table.add_row(Text(policy.name), Text(policy.metric or ""), *cells)
    table.caption = "runs the policy held for / runs it was evaluated on"
    return table


def render_distribution(distribution: Distribution) -> RenderableType:
    table = _table(
        f"Distribution {distribution.name}: {metric_label(distribution.semantic_type, distribution.unit)}"
    )
    table.add_column("variant", style="bold", overflow="fold")
    for summary in distribution.summaries:
        table.add_column(summary, justify="right")
    for variant, values in distribution.variants.items():
        table.add_row(
            variant,
            *(_aggregate(values.summaries.get(summary)) for summary in distribution.summaries),
        )
    return table


def render_report(
    report: Report,
    *,
    records: str | None = None,
    runs: RunSelection = "auto",
    max_rows: int = 20,
) -> RenderableType:
    """The whole report: overview, variants, leaderboard, per-run metrics by semantic
    family, case matrix, comparisons, distributions and diagnostics.

    ``runs`` selects per-run rows: ``auto`` (all when at most ``max_rows`` runs,
    else the runs that did not pass, at most ``max_rows``), ``all``, ``failed``
    or ``none``.
    """
    parts: list[RenderableType] = [render_overview(report, records)]
    if report.variants:
        parts.append(render_variants(report))
    if report.leaderboard.rows:
        parts.append(render_leaderboard(report.leaderboard))
    if report.policies:
        parts.append(render_policies(report))
    parts.extend(render_run_metrics(report, runs, max_rows))
    if report.matrix is not None:
        parts.append(render_matrix(report.matrix, max_rows, show_all=runs == "all"))
    parts.extend(render_comparison(comparison, max_rows) for comparison in report.comparisons)
    parts.extend(render_distribution(distribution) for distribution in report.distributions)
    parts.extend(_diagnostics(report.diagnostics, max_rows))
    return Group(*parts)


_RUN_PREFIX = re.compile(r"^run (\S+): ")


def _diagnostics(diagnostics: Iterable[str], max_rows: int) -> list[RenderableType]:
    """Diagnostics, with the same message about many runs said once with a run count."""
    grouped: dict[str, list[str]] = {}
    for line in diagnostics:
        match = _RUN_PREFIX.match(line)
        key = line[match.end() :] if match else line
        grouped.setdefault(key, []).append(match.group(1) if match else "")
    if not grouped:
        return []
    text = Text("Diagnostics\n", style="bold yellow")
    for message, runs in list(grouped.items())[:max_rows]:
        named = [run for run in runs if run]
        if len(named) > 1:
            text.append(f"- {message} ({len(named)} runs, first {named[0]})\n", style="yellow")
        elif named:
            text.append(f"- run {named[0]}: {message}\n", style="yellow")
        else:
            text.append(f"- {message}\n", style="yellow")
    if len(grouped) > max_rows:
        text.append(f"... and {len(grouped) - max_rows} more\n", style="yellow")
    return [text]
