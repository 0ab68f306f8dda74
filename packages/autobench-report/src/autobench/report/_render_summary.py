"""The leaderboard and the comparison for the terminal.

Each metric is shown in one notation and the unit its header states (see
:mod:`autobench.report._display`). On the leaderboard the best variant of each
metric with a direction carries :data:`BEST_MARK`, explained in a caption; in
a comparison each delta is also given relative to the baseline.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from autobench.records import Direction
from autobench.report._display import NumberFormat, number_format, percent_text
from autobench.report._format import value_text
from autobench.report._model import Comparison, Leaderboard, LeaderboardRow, MetricColumn
from autobench.report._render_cells import (
    BEST_MARK,
    add_metric_column,
    aggregate_cell,
    longest_word,
    table,
)

PASS_RATE = "pass rate"
_PERCENT = number_format((), None, percent=True)

WIDE_LEADERBOARD = 3
"""More metric columns than this are shown transposed (one row per metric), which stays
readable at 80 columns however many metrics the spec asks for."""


def metric_header(name: str, fn: str, semantic_type: str, unit: str | None) -> str:
    """``latency p95 (ms)``; ``mean quality.score`` when the name is the type itself; the
    unit is left out when the name already says it (``input tokens mean``)."""
    label = name if name != semantic_type else f"{fn} {semantic_type}"
    if unit and unit not in label.split():
        label += f" ({unit})"
    return label


class _Board:
    """A leaderboard with the number format and header of each of its columns."""

    def __init__(self, leaderboard: Leaderboard) -> None:
        self.leaderboard = leaderboard
        self.formats: dict[str, NumberFormat] = {
            column.name: number_format(
                [row.metrics[column.name].value for row in leaderboard.rows], column.unit
            )
            for column in leaderboard.columns
        }
        self.headers = [
            metric_header(c.name, c.fn, c.semantic_type, self.formats[c.name].unit)
            for c in leaderboard.columns
        ]
        self.pass_header = f"{PASS_RATE} ({_PERCENT.unit})"

    def pass_cell(self, row: LeaderboardRow) -> Text:
        return aggregate_cell(row.pass_rate, _PERCENT, best=self._mark(None, row.variant))

    def cell(self, column: MetricColumn, row: LeaderboardRow) -> Text:
        return aggregate_cell(
            row.metrics.get(column.name),
            self.formats[column.name],
            best=self._mark(column.name, row.variant),
        )

    def _mark(self, column: str | None, variant: str) -> bool:
        board = self.leaderboard
        return variant in (board.best_pass_rate if column is None else board.best.get(column, ()))

    def legend(self) -> str | None:
        """Which metrics carry a mark, and which way is better for each."""
        board = self.leaderboard
        higher = [PASS_RATE] if board.best_pass_rate else []
        lower: list[str] = []
        for column in board.columns:
            if column.name in board.best:
                label = column.name if column.name != column.semantic_type else column.semantic_type
                (higher if column.direction is Direction.MAXIMIZE else lower).append(label)
        if not higher and not lower:
            return None
        parts = [f"{BEST_MARK} best variant per metric"]
        if higher:
            parts.append(f"higher is better: {', '.join(higher)}")
        if lower:
            parts.append(f"lower is better: {', '.join(lower)}")
        return "; ".join(parts)


def render_leaderboard(leaderboard: Leaderboard) -> RenderableType:
    """Variants with their runs, status counts, pass rate and aggregates, the best marked;
    transposed when wide."""
    board = _Board(leaderboard)
    if len(leaderboard.columns) > WIDE_LEADERBOARD:
        return _render_by_metric(board)
    grid = table("Leaderboard", board.legend())
    grid.add_column("variant", style="bold", no_wrap=True, overflow="ellipsis", max_width=24)
    grid.add_column("runs", justify="right", no_wrap=True)
    grid.add_column("pass/fail/err", justify="right", no_wrap=True)
    add_metric_column(grid, board.pass_header)
    for header in board.headers:
        add_metric_column(grid, header)
    for row in leaderboard.rows:
        status = f"{row.status.passed}/{row.status.failed}/{row.status.errored}"
        cells = [board.cell(column, row) for column in leaderboard.columns]
        grid.add_row(Text(row.variant), str(row.runs), status, board.pass_cell(row), *cells)
    return grid


def _render_by_metric(board: _Board) -> RenderableType:
    leaderboard = board.leaderboard
    grid = table("Leaderboard", board.legend())
    labels = ["runs", "pass/fail/err", board.pass_header, *board.headers]
    grid.add_column("", overflow="fold", min_width=max([12, *map(longest_word, labels)]))
    for row in leaderboard.rows:
        grid.add_column(
            Text(row.variant, style="bold"),
            justify="right",
            overflow="fold",
            min_width=max(8, longest_word(row.variant)),
        )
    rows = leaderboard.rows
    grid.add_row("runs", *(str(row.runs) for row in rows))
    grid.add_row(
        "pass/fail/err",
        *(f"{row.status.passed}/{row.status.failed}/{row.status.errored}" for row in rows),
    )
    grid.add_row(Text(board.pass_header), *(board.pass_cell(row) for row in rows))
    for column, header in zip(leaderboard.columns, board.headers, strict=True):
        grid.add_row(Text(header), *(board.cell(column, row) for row in rows))
    return grid


def _comparison_metrics(comparison: Comparison) -> Table:
    grid = table("")
    labels: list[str] = []
    rows: list[tuple[Text, ...]] = []
    for metric in comparison.metrics:
        values = [metric.baseline.value, metric.candidate.value, metric.delta]
        number = number_format(values, metric.unit)
        label = metric_header(metric.name, metric.fn, metric.semantic_type, number.unit)
        labels.append(label)
        if metric.delta is None:
            delta, relative = Text("-", style="dim"), Text("-", style="dim")
        else:
            delta = Text(number.text(metric.delta, signed=True))
            relative = Text(percent_text(metric.relative))
        rows.append(
            (
                Text(label),
                aggregate_cell(metric.baseline, number),
                aggregate_cell(metric.candidate, number),
                delta,
                relative,
            )
        )
    grid.add_column("metric", overflow="fold", min_width=max([6, *map(longest_word, labels)]))
    for header in ("baseline", "candidate", "delta"):
        grid.add_column(header, justify="right", overflow="fold")
    grid.add_column("delta %", justify="right", no_wrap=True)
    for row in rows:
        grid.add_row(*row)
    return grid


def render_comparison(comparison: Comparison, max_rows: int = 10) -> RenderableType:
    """Paired runs, changed factors, confounding, metric deltas (absolute and relative to
    the baseline; ``n/a`` for a zero baseline) and unpaired cases."""
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
    parts: list[RenderableType] = [grid, _comparison_metrics(comparison)]
    if comparison.unpaired:
        unpaired = table("Unpaired cases")
        unpaired.add_column("case", overflow="fold")
        unpaired.add_column("reason", overflow="fold")
        for item in comparison.unpaired[:max_rows]:
            unpaired.add_row(Text(item.case), Text(item.reason))
        if len(comparison.unpaired) > max_rows:
            unpaired.caption = f"... and {len(comparison.unpaired) - max_rows} more"
        parts.append(unpaired)
    title = Text(f"Compare {comparison.baseline} -> {comparison.candidate}")
    return Panel(Group(*parts), title=title, title_align="left")
