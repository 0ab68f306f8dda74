"""The Rich terminal report: a :class:`Report` as renderables, readable at 80 columns.

The headline comes first: the answer of each comparison and the Pareto front.

Tables are :class:`~autobench.report._fit.FitTable` s, laid out when printed for
the console width. Large experiments are summarised rather than printed in full:
per-run rows and matrix rows beyond ``max_rows`` are left out unless asked for
(``runs="all"``), and what was left out is said in a note under the table. Colour is only a hint: every
status is also written as a word, so ``NO_COLOR`` and piped output read the
same.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from itertools import compress
from pathlib import Path
from typing import Any, Literal

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from autobench.records import RunStatus
from autobench.report._display import NumberFormat, number_format
from autobench.report._error_trace import traced_text
from autobench.report._fit import Column, FitTable
from autobench.report._format import metric_label, value_text
from autobench.report._model import (
    CaseMatrix,
    Distribution,
    MatrixCell,
    PolicySummary,
    Report,
    RunMetricRow,
)
from autobench.report._render_calibration import render_calibrations
from autobench.report._render_cells import aggregate_cell
from autobench.report._render_headline import render_headline
from autobench.report._render_reliability import render_reliability
from autobench.report._render_summary import (
    leaderboard_formats,
    render_comparison,
    render_leaderboard,
)
from autobench.report._run_row_table import RunRows, not_passed

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
    if report.cassette is not None:
        grid.add_row("cassette", _cassette_text(report))
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


def _cassette_text(report: Report) -> Text:
    use = report.cassette
    assert use is not None
    if use.mode == "record":
        return Text("recorded: each run's HTTP exchanges are in its cassette file")
    spend = (
        "their tokens and cost are left out"
        if use.replayed_spend_left_out
        else "their tokens and cost are those recorded"
    )
    sent = f", {use.sent_requests} sent and recorded" if use.mode == "replay-or-record" else ""
    judge = ""
    if use.judge_replayed_requests or use.judge_sent_requests:
        judge_sent = (
            f", {use.judge_sent_requests} sent and recorded"
            if use.mode == "replay-or-record"
            else ""
        )
        judge = (
            f"; {use.judge_replayed_requests} judge requests replayed{judge_sent}, "
            "their judge tokens and cost those recorded"
        )
    return Text(
        f"{use.mode}: {use.replayed_runs} of {report.runs} runs replayed "
        f"({use.replayed_requests} requests{sent}; {spend}) from {use.source} "
        f"({use.source_experiment}){judge}",
        style="cyan",
        overflow="fold",
    )


def render_variants(report: Report) -> RenderableType:
    labels, factors = [], []
    for variant in report.variants:
        labels.append(Text(variant.label or ""))
        factors.append(
            Text(
                ", ".join(f"{name}={value_text(value)}" for name, value in variant.factors.items())
            )
        )
    ids = Column("variant", [Text(variant.id) for variant in report.variants], style="bold")
    return FitTable(
        "Variants",
        [ids],
        [Column("label", labels, wrap=True), Column("factors", factors, wrap=True)],
    )


def _select_rows(
    rows: RunRows, runs: RunSelection, max_rows: int
) -> tuple[list[RunMetricRow], str | None]:
    if runs == "none":
        return [], None
    if runs == "all" or (runs == "auto" and len(rows) <= max_rows):
        return list(rows), None
    # Only the rows shown are built: the runs that did not pass, from the status column.
    failing = not_passed(rows.statuses)
    chosen = [rows[index] for index in failing[:max_rows]]
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


def _run_column(
    semantic_type: str, family: str, rows: list[RunMetricRow], report: Report
) -> Column:
    values = [row.metrics.get(semantic_type) for row in rows]
    number = number_format(values, report.metric_units.get(semantic_type))
    short = semantic_type.removeprefix(f"{family}.")
    header = short if number.unit is None else f"{short} ({number.unit})"
    return Column(header, [_value(value, number) for value in values], justify="right")


def _run_keys(rows: list[RunMetricRow]) -> list[Column]:
    """Case, variant and status: what each per-run row is about."""
    return [
        Column("case", [Text(row.case_id) for row in rows]),
        Column("variant", [Text(row.variant_id) for row in rows]),
        Column("status", [_status(row.status) for row in rows]),
    ]


def _value(value: Any, number: NumberFormat) -> Text:
    """One value in its column's notation; ``-`` for no value, text as it is."""
    if value is None:
        return Text("-")
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return Text(number.text(value))
    return Text(value_text(value))


def render_run_metrics(
    report: Report,
    runs: RunSelection = "auto",
    max_rows: int = 20,
    *,
    records: str | None = None,
    spec_dir: Path | None = None,
) -> list[RenderableType]:
    """Per-run metrics, one table per semantic family (``quality``, ``time``, ...), then
    why runs did not pass: the reason, where the user's code raised and, when ``records``
    (the experiment directory) is given, the run file and key of the full traceback.
    ``spec_dir`` places the recorded files of the spec's directory
    (:mod:`autobench.report._error_trace`)."""
    rows, caption = _select_rows(report.run_rows, runs, max_rows)
    if not rows:
        return []
    families: dict[str, list[str]] = {}
    for semantic_type in report.metric_units:
        families.setdefault(_family(semantic_type), []).append(semantic_type)
    tables: list[RenderableType] = []
    for family, semantic_types in families.items():
        columns = [_run_column(semantic, family, rows, report) for semantic in semantic_types]
        tables.append(FitTable(f"Run metrics: {family}", _run_keys(rows), columns, caption))
    reasons = [row for row in rows if row.reason]
    if reasons:
        why = Column("reason", [_reason(row, records, spec_dir) for row in reasons], wrap=True)
        tables.append(FitTable("Why runs did not pass", _run_keys(reasons), [why], caption))
    return tables


def _reason(row: RunMetricRow, records: str | None, spec_dir: Path | None) -> Text:
    text = Text(row.reason or "")
    traced = traced_text(row, records, spec_dir)
    if traced is not None:
        text.append("\n" + traced, style="dim")
    return text


def render_matrix(matrix: CaseMatrix, max_rows: int = 20, show_all: bool = False) -> RenderableType:
    """Cases x variants of one metric; a run that did not pass shows its status next to
    its value. With more than ``max_rows`` cases only the cases that differ between
    variants are listed."""
    cases = list(matrix.cases)
    caption = None
    if not show_all and len(cases) > max_rows:
        differing = differing_cases(matrix)
        shown = differing[:max_rows]
        caption = (
            f"{len(cases)} cases: {len(differing)} differ between variants, "
            f"{len(shown)} shown (autobench report --runs all)"
        )
        cases = shown
    # The format depends on the distinct values only; cells of equal plain values are one
    # object (_matrix._cell), so a million cells hold a few distinct ones.
    rows = dict(zip(map(id, matrix.cells.values()), matrix.cells.values(), strict=True)).values()
    distinct = {id(cell): cell for row in rows for cell in row.values()}
    number = number_format([cell.value for cell in distinct.values()], matrix.unit, scale=False)
    variants = [
        Column(variant, [_matrix_cell(matrix, case, variant, number) for case in cases], "right")
        for variant in matrix.variants
    ]
    title = f"Case matrix: {metric_label(matrix.semantic_type, matrix.unit)}"
    return FitTable(title, [Column("case", [Text(case) for case in cases])], variants, caption)


def _matrix_cell(matrix: CaseMatrix, case: str, variant: str, number: NumberFormat) -> Text:
    """The value, followed by the status of a run that did not pass."""
    cell = matrix.cells.get(case, {}).get(variant)
    if cell is None or cell.status is None:
        return Text("no run", style="dim")
    text = _value(cell.value, number)
    if cell.status is not RunStatus.PASSED:
        text.append(f" {cell.status.value}", style=STATUS_STYLE[cell.status])
    return text


def differing_cases(matrix: CaseMatrix) -> list[str]:
    """The cases of ``matrix`` whose cells differ between its variants (in case order).
    Whether a row differs depends on the row alone, and cases with equal rows share one
    row dictionary (:func:`~autobench.report._matrix.case_matrix`): each distinct row is
    looked at once, and the cases picked in C."""
    rows = list(map(matrix.cells.get, matrix.cases))
    distinct = dict(zip(map(id, rows), rows, strict=True))
    verdict = {key: _row_differs(matrix, row) for key, row in distinct.items()}
    return list(compress(matrix.cases, map(verdict.__getitem__, map(id, rows))))


def _row_differs(matrix: CaseMatrix, row: dict[str, MatrixCell] | None) -> bool:
    row = {} if row is None else row
    cells = [row.get(variant) for variant in matrix.variants]
    first = cells[0] if cells else None
    if first is not None and all(cell is first for cell in cells):
        return False  # one cell object: the same status and value
    seen = {(None, None) if cell is None else (cell.status, repr(cell.value)) for cell in cells}
    return len(seen) > 1


def render_policies(report: Report) -> RenderableType:
    """Per policy and variant: runs it held for, of runs it was evaluated on."""
    variants = [variant.id for variant in report.variants] or sorted(
        {v for p in report.policies for v in (*p.passed, *p.failed)}
    )
    policies = report.policies
    columns = [
        Column(variant, [_policy_cell(policy, variant) for policy in policies], "right")
        for variant in variants
    ]
    keys = [
        Column("policy", [Text(policy.name) for policy in policies], style="bold"),
        Column("metric", [Text(policy.metric or "") for policy in policies]),
    ]
    note = "runs the policy held for / runs it was evaluated on"
    return FitTable("Policies", keys, columns, note)


def _policy_cell(policy: PolicySummary, variant: str) -> Text:
    held, failed = policy.passed.get(variant, 0), policy.failed.get(variant, 0)
    if not held + failed:
        return Text("-", style="dim")
    return Text(f"{held}/{held + failed}", style="red" if failed else "green")


def render_distribution(distribution: Distribution) -> RenderableType:
    number = number_format(
        [
            aggregate.value
            for values in distribution.variants.values()
            for aggregate in values.summaries.values()
        ],
        distribution.unit,
        scale=False,
    )
    variants = list(distribution.variants)
    summaries = [
        Column(
            summary,
            [
                aggregate_cell(distribution.variants[variant].summaries.get(summary), number)
                for variant in variants
            ],
            "right",
        )
        for summary in distribution.summaries
    ]
    label = metric_label(distribution.semantic_type, distribution.unit)
    keys = [Column("variant", [Text(variant) for variant in variants], style="bold")]
    return FitTable(f"Distribution {distribution.name}: {label}", keys, summaries)


def render_report(
    report: Report,
    *,
    records: str | None = None,
    runs: RunSelection = "auto",
    max_rows: int = 20,
    spec_dir: Path | None = None,
) -> RenderableType:
    """The whole report: the headline first (:mod:`autobench.report._render_headline`),
    then overview, variants, leaderboard, per-run metrics by semantic family, case matrix,
    comparisons, distributions and diagnostics.

    ``runs`` selects per-run rows: ``auto`` (all when at most ``max_rows`` runs,
    else the runs that did not pass, at most ``max_rows``), ``all``, ``failed``
    or ``none``. ``records`` is the experiment directory as the overview names it;
    ``spec_dir`` the spec's directory, when known (see :func:`render_run_metrics`).
    """
    headline = render_headline(report.headline)
    parts: list[RenderableType] = [] if headline is None else [headline]
    parts.append(render_overview(report, records))
    if report.variants:
        parts.append(render_variants(report))
    formats = leaderboard_formats(report.leaderboard)
    if report.leaderboard.rows:
        parts.append(render_leaderboard(report.leaderboard))
    parts.extend(render_calibrations(report.calibrations, max_rows))
    if report.policies:
        parts.append(render_policies(report))
    parts.extend(render_reliability(report, max_rows))
    parts.extend(render_run_metrics(report, runs, max_rows, records=records, spec_dir=spec_dir))
    if report.matrix is not None:
        parts.append(render_matrix(report.matrix, max_rows, show_all=runs == "all"))
    parts.extend(
        render_comparison(comparison, max_rows, formats) for comparison in report.comparisons
    )
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
