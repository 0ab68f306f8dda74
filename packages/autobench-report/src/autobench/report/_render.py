"""The Rich terminal report: a :class:`Report` as renderables, readable at 80 columns.

Large experiments are summarised rather than printed in full: per-run rows and
matrix rows beyond ``max_rows`` are left out unless asked for (``runs="all"``),
and what was left out is said in a caption. Colour is only a hint: every
status is also written as a word, so ``NO_COLOR`` and piped output read the
same.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from autobench.records import RunStatus
from autobench.report._display import NumberFormat, number_format
from autobench.report._format import metric_label, value_text
from autobench.report._model import CaseMatrix, Distribution, Report, RunMetricRow
from autobench.report._render_cells import add_metric_column, aggregate_cell, longest_word, table
from autobench.report._render_summary import render_comparison, render_leaderboard

RunSelection = Literal["auto", "all", "failed", "none"]

STATUS_STYLE = {
    RunStatus.PASSED: "green",
    RunStatus.FAILED: "yellow",
    RunStatus.ERRORED: "red",
    RunStatus.SKIPPED: "dim",
}


def _status(status: RunStatus | None) -> Text:
    if status is None:
        return Text("no run", style="dim")
    return Text(status.value, style=STATUS_STYLE[status])


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
    grid = table("Variants")
    grid.add_column("variant", style="bold", overflow="fold")
    grid.add_column("label", overflow="fold")
    grid.add_column("factors", overflow="fold")
    for variant in report.variants:
        factors = ", ".join(
            f"{name}={value_text(value)}" for name, value in variant.factors.items()
        )
        grid.add_row(Text(variant.id), Text(variant.label or ""), Text(factors))
    return grid


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
"""At most this many metric columns per run-metrics table; a family with more is split
into several tables."""

RUN_TABLE_WIDTH = 80
"""Run-metrics tables are split so that each fits this width with no header broken
inside a word."""


@dataclass(frozen=True, slots=True)
class _RunColumn:
    semantic_type: str
    header: str
    number: NumberFormat
    width: int


def _run_column(
    semantic_type: str, family: str, rows: list[RunMetricRow], report: Report
) -> _RunColumn:
    values = [row.metrics.get(semantic_type) for row in rows]
    number = number_format(values, report.metric_units.get(semantic_type))
    short = semantic_type.removeprefix(f"{family}.")
    header = short if number.unit is None else f"{short} ({number.unit})"
    width = max([6, longest_word(header), *(len(_value(value, number)) for value in values)])
    return _RunColumn(semantic_type, header, number, width)


def _chunks(columns: list[_RunColumn], fixed: int) -> list[list[_RunColumn]]:
    """Consecutive groups of at most :data:`RUN_METRIC_COLUMNS` columns, each fitting
    :data:`RUN_TABLE_WIDTH` beside the ``fixed`` width of the leading columns."""
    chunks: list[list[_RunColumn]] = []
    used = RUN_TABLE_WIDTH
    for item in columns:
        need = item.width + 2
        if not chunks or len(chunks[-1]) == RUN_METRIC_COLUMNS or used + need > RUN_TABLE_WIDTH:
            chunks.append([])
            used = fixed
        chunks[-1].append(item)
        used += need
    return chunks


def _run_metric_table(
    title: str, caption: str | None, columns: list[_RunColumn], rows: list[RunMetricRow]
) -> Table:
    grid = table(title, caption)
    grid.add_column("case", no_wrap=True, overflow="ellipsis", max_width=_CASE_WIDTH)
    grid.add_column("variant", no_wrap=True, overflow="ellipsis", max_width=_VARIANT_WIDTH)
    grid.add_column("status", no_wrap=True)
    for item in columns:
        add_metric_column(grid, item.header, min_width=item.width)
    for row in rows:
        values = [_value(row.metrics.get(item.semantic_type), item.number) for item in columns]
        grid.add_row(Text(row.case_id), Text(row.variant_id), _status(row.status), *values)
    return grid


_CASE_WIDTH = 20
_VARIANT_WIDTH = 12


def _value(value: Any, number: NumberFormat) -> Text:
    """One value in its column's notation; ``-`` for no value, text as it is."""
    if value is None:
        return Text("-")
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return Text(number.text(value))
    return Text(value_text(value))


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
    fixed = (
        min(_CASE_WIDTH, max(len("case"), *(len(row.case_id) for row in rows)))
        + min(_VARIANT_WIDTH, max(len("variant"), *(len(row.variant_id) for row in rows)))
        + max(len("status"), *(len(row.status.value) for row in rows))
        + 2 * 2  # the gaps between those three columns
        + 2  # the table's outer margin
    )
    tables: list[RenderableType] = []
    for family, semantic_types in families.items():
        columns = [_run_column(semantic, family, rows, report) for semantic in semantic_types]
        chunks = _chunks(columns, fixed)
        for number, chunk in enumerate(chunks, start=1):
            title = f"Run metrics: {family}" + (
                f" ({number}/{len(chunks)})" if len(chunks) > 1 else ""
            )
            tables.append(_run_metric_table(title, caption, chunk, rows))
    reasons = [row for row in rows if row.reason]
    if reasons:
        why = table("Why runs did not pass", caption)
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
    grid = table(escape(f"Case matrix: {metric_label(matrix.semantic_type, matrix.unit)}"), caption)
    grid.add_column("case", overflow="fold")
    for variant in matrix.variants:
        grid.add_column(Text(variant), justify="right", overflow="fold")
    number = number_format(
        [cell.value for row in matrix.cells.values() for cell in row.values()],
        matrix.unit,
        scale=False,
    )
    for case in cases:
        cells: list[Text] = []
        for variant in matrix.variants:
            cell = matrix.cells.get(case, {}).get(variant)
            if cell is None or cell.status is None:
                cells.append(Text("no run", style="dim"))
                continue
            text = _value(cell.value, number)
            if cell.status is not RunStatus.PASSED:
                text.append(f" {cell.status.value}", style=STATUS_STYLE[cell.status])
            cells.append(text)
        grid.add_row(Text(case), *cells)
    return grid


def _differs(matrix: CaseMatrix, case: str) -> bool:
    cells = [matrix.cells.get(case, {}).get(variant) for variant in matrix.variants]
    seen = {(None, None) if cell is None else (cell.status, repr(cell.value)) for cell in cells}
    return len(seen) > 1


def render_policies(report: Report) -> RenderableType:
    """Per policy and variant: runs it held for, of runs it was evaluated on."""
    grid = table("Policies")
    grid.add_column("policy", style="bold", overflow="fold")
    grid.add_column("metric", overflow="fold")
    variants = [variant.id for variant in report.variants] or sorted(
        {v for p in report.policies for v in (*p.passed, *p.failed)}
    )
    for variant in variants:
        grid.add_column(Text(variant), justify="right", no_wrap=True)
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
        grid.add_row(Text(policy.name), Text(policy.metric or ""), *cells)
    grid.caption = "runs the policy held for / runs it was evaluated on"
    return grid


def render_distribution(distribution: Distribution) -> RenderableType:
    grid = table(
        f"Distribution {distribution.name}: {metric_label(distribution.semantic_type, distribution.unit)}"
    )
    grid.add_column("variant", style="bold", overflow="fold")
    for summary in distribution.summaries:
        grid.add_column(summary, justify="right")
    number = number_format(
        [
            aggregate.value
            for values in distribution.variants.values()
            for aggregate in values.summaries.values()
        ],
        distribution.unit,
        scale=False,
    )
    for variant, values in distribution.variants.items():
        grid.add_row(
            variant,
            *(
                aggregate_cell(values.summaries.get(summary), number)
                for summary in distribution.summaries
            ),
        )
    return grid


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
