"""The leaderboard and the comparison for the terminal.

Each metric is shown in one notation and the unit its header states (see
:mod:`autobench.report._display`). On the leaderboard the best variant of each
metric with a direction carries :data:`BEST_MARK`, explained in a note; in a
comparison each delta is also given relative to the baseline, in the notation
of its metric's values. Within one report a metric has one notation: the
comparisons use the leaderboard's. Below a comparison's deltas, a statistics table
gives per metric the paired cases, the mean per-case delta with its interval, the
test, the raw and Holm-adjusted p-values and the verdict.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from autobench.records import Direction
from autobench.report._display import NumberFormat, number_format, percent_text
from autobench.report._fit import Column, FitTable
from autobench.report._format import value_text
from autobench.report._model import (
    Comparison,
    ComparisonMetric,
    ExperimentComparison,
    Headline,
    Leaderboard,
    LeaderboardRow,
    MetricColumn,
)
from autobench.report._render_cells import BEST_MARK, aggregate_cell
from autobench.report._render_headline import VERDICT_STYLES, render_headline
from autobench.report._statistics_text import p_label, p_text, statistics_rows, verdict_text

PASS_RATE = "pass rate"
_PERCENT = number_format((), None, percent=True)

WIDE_LEADERBOARD = 3
"""More metric columns than this are shown transposed (one row per metric); so is a
leaderboard whose columns do not fit in the console width."""

MetricFormats = Mapping[tuple[str, str], NumberFormat]
"""The notation of each metric, by semantic type and aggregate."""


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

    def metric_formats(self) -> dict[tuple[str, str], NumberFormat]:
        """The notation of each column's metric, for other tables showing the same metric."""
        return {(c.semantic_type, c.fn): self.formats[c.name] for c in self.leaderboard.columns}

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


def _right(header: str, cells: list[Text]) -> Column:
    return Column(header, cells, justify="right")


def _wide(board: _Board) -> FitTable:
    rows = board.leaderboard.rows
    values = [
        _right("runs", [Text(str(row.runs)) for row in rows]),
        _right("pass/fail/err", [Text(_counts(row)) for row in rows]),
        _right(board.pass_header, [board.pass_cell(row) for row in rows]),
    ]
    for column, header in zip(board.leaderboard.columns, board.headers, strict=True):
        values.append(_right(header, [board.cell(column, row) for row in rows]))
    variants = Column("variant", [Text(row.variant) for row in rows], style="bold")
    return FitTable("Leaderboard", [variants], values, board.legend())


def _counts(row: LeaderboardRow) -> str:
    return f"{row.status.passed}/{row.status.failed}/{row.status.errored}"


def _by_metric(board: _Board) -> FitTable:
    """One row per metric, one column per variant."""
    labels = ["runs", "pass/fail/err", board.pass_header, *board.headers]
    variants = [
        _right(
            row.variant,
            [
                Text(str(row.runs)),
                Text(_counts(row)),
                board.pass_cell(row),
                *(board.cell(column, row) for column in board.leaderboard.columns),
            ],
        )
        for row in board.leaderboard.rows
    ]
    metrics = Column("", [Text(label) for label in labels], wrap=True)
    return FitTable("Leaderboard", [metrics], variants, board.legend())


class _LeaderboardView:
    """The leaderboard one row per variant when that fits, else one row per metric."""

    def __init__(self, board: _Board) -> None:
        narrow = len(board.leaderboard.columns) <= WIDE_LEADERBOARD
        self.wide = _wide(board) if narrow else None
        self.by_metric = _by_metric(board)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.wide is not None and self.wide.fits(console, options):
            yield self.wide
        else:
            yield self.by_metric


def render_leaderboard(leaderboard: Leaderboard) -> RenderableType:
    """Variants with their runs, status counts, pass rate and aggregates, the best marked;
    transposed when wide."""
    return _LeaderboardView(_Board(leaderboard))


def leaderboard_formats(leaderboard: Leaderboard) -> dict[tuple[str, str], NumberFormat]:
    """The notation the leaderboard gives each metric, by semantic type and aggregate."""
    return _Board(leaderboard).metric_formats()


def _metric_format(metric: ComparisonMetric, formats: MetricFormats) -> NumberFormat:
    """The metric's notation elsewhere in the report, else one chosen from the two values
    (never from the delta, so a value reads the same here as in a table without deltas)."""
    known = formats.get((metric.semantic_type, metric.fn))
    if known is not None:
        return known
    return number_format([metric.baseline.value, metric.candidate.value], metric.unit)


def _comparison_metrics(comparison: Comparison, formats: MetricFormats) -> FitTable:
    labels: list[Text] = []
    cells: list[list[Text]] = [[], [], [], []]
    for metric in comparison.metrics:
        number = _metric_format(metric, formats)
        labels.append(
            Text(metric_header(metric.name, metric.fn, metric.semantic_type, number.unit))
        )
        if metric.delta is None:
            delta, relative = Text("-", style="dim"), Text("-", style="dim")
        else:
            delta = Text(number.text(metric.delta, signed=True))
            relative = Text(percent_text(metric.relative))
        row = (
            aggregate_cell(metric.baseline, number),
            aggregate_cell(metric.candidate, number),
            delta,
            relative,
        )
        for column, cell in zip(cells, row, strict=True):
            column.append(cell)
    headers = ("baseline", "candidate", "delta", "delta %")
    values = [_right(header, column) for header, column in zip(headers, cells, strict=True)]
    return FitTable("", [Column("metric", labels, wrap=True)], values)


def _stacked(*lines: str, style: str = "") -> Text:
    """One cell of several lines, each kept whole."""
    text = Text("\n".join(line for line in lines if line))
    if style and lines:
        text.stylize(style, 0, len(lines[0]))
    return text


def _statistics_table(comparison: Comparison, formats: MetricFormats) -> RenderableType | None:
    """Per row: the estimate its interval is of over that interval (``on every case`` for an
    exact delta), the test over the Holm-adjusted p-value, the verdict over what it rests on
    (cases, cases needed); rows are named as in the comparison table above. The case count
    goes to the title when every row has the same. Each cell is a few lines kept whole, so the
    table fits 100 columns; notes (why an interval and a verdict differ) follow as text."""
    tested = list(statistics_rows(comparison))
    if not tested:
        return None
    level = tested[0].statistics.level if tested[0].statistics else 0.95
    counts = {metric.statistics.n for metric in tested if metric.statistics is not None}
    labels: list[Text] = []
    cells: list[list[Text]] = [[], [], []]
    notes: list[str] = []
    for metric in tested:
        stats = metric.statistics
        assert stats is not None
        number = _metric_format(metric, formats)
        label = metric_header(metric.name, metric.fn, metric.semantic_type, number.unit)
        labels.append(Text(label))
        exact = stats.test == "exact"
        if exact:
            interval = "on every case"
        elif stats.ci_low is None or stats.ci_high is None:
            interval = ""
        else:
            interval = (
                f"[{number.text(stats.ci_low, signed=True)}, "
                f"{number.text(stats.ci_high, signed=True)}]"
            )
        estimate = stats.mean_delta if stats.estimate is None else stats.estimate
        shown = "-" if estimate is None else number.text(estimate, signed=True)
        verdict = stats.verdict.value
        # what the verdict rests on, a short line each: "n=3", "about 60 needed"
        basis = verdict_text(stats, note=False).removeprefix(verdict).strip().strip("()")
        row = (
            _stacked(shown, interval),
            _stacked(stats.test, f"{p_label(stats.p_value)}, Holm {p_text(stats.p_adjusted)}"),
            _stacked(verdict, *basis.split("; "), style=VERDICT_STYLES.get(stats.verdict, "")),
        )
        for column, cell in zip(cells, row, strict=True):
            column.append(cell)
        if stats.note and not exact:
            notes.append(f"{label}: {stats.note}")
    values = [
        _right(f"estimate, {level:.0%} interval", cells[0]),
        _right("test, p", cells[1]),
        Column("verdict", cells[2]),
    ]
    keys = [Column("metric", labels, wrap=True)]
    title = f"Statistics (paired by case, tests at {1 - level:.2g})"
    if len(counts) == 1:
        paired = counts.pop()
        plural = "" if paired == 1 else "s"
        title = f"Statistics ({paired} paired case{plural}, tests at {1 - level:.2g})"
    else:
        per_metric = [Text(str(m.statistics.n)) for m in tested if m.statistics is not None]
        values.insert(0, _right("cases", per_metric))
    caption = "\n".join([ESTIMATES, *notes])
    return FitTable(title, keys, values, caption, leading=1)


ESTIMATES = (
    "The estimate is what the row's test is about: the difference in pass rate (mcnemar-exact), "
    "the Hodges-Lehmann shift (wilcoxon), the difference of the row's aggregate (bootstrap), or "
    "a delta the same on every case (exact)."
)
"""The caption saying what each test's estimate and interval are of."""


def render_comparison(
    comparison: Comparison,
    max_rows: int = 10,
    formats: MetricFormats | None = None,
    *,
    headline: Headline | None = None,
) -> RenderableType:
    """Paired runs, changed factors, confounding, metric deltas (absolute and relative to
    the baseline; ``n/a`` for a zero baseline), statistics and unpaired cases, after
    ``headline`` when given (``compare``: the comparison's answer first). ``formats`` gives
    the notation of metrics shown elsewhere in the same report, so each reads the same."""
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
    title = Text(f"Compare {comparison.baseline} -> {comparison.candidate}")
    answer = None if headline is None else render_headline(headline)
    parts: list[RenderableType] = [] if answer is None else [answer]
    parts += [
        Panel(grid, title=title, title_align="left"),
        _comparison_metrics(comparison, formats or {}),
    ]
    statistics = _statistics_table(comparison, formats or {})
    if statistics is not None:
        parts.append(statistics)
    if comparison.unpaired:
        shown = comparison.unpaired[:max_rows]
        left = len(comparison.unpaired) - len(shown)
        parts.append(
            FitTable(
                "Unpaired cases",
                [Column("case", [Text(item.case) for item in shown])],
                [Column("reason", [Text(item.reason) for item in shown], wrap=True)],
                f"... and {left} more" if left else None,
            )
        )
    return Group(*parts)


def render_experiment_comparison(
    comparison: ExperimentComparison, max_rows: int = 10
) -> RenderableType:
    """Two experiments: the headline (each shared variant's answer), what changed between
    their inputs, the variants and cases only one of them has, then each shared variant's
    comparison (:func:`render_comparison`)."""
    grid = Table.grid(padding=(0, 2))
    grid.add_row("baseline", comparison.baseline_experiment)
    grid.add_row("candidate", comparison.candidate_experiment)
    changed = [
        f"{item} hash changed" if item in ("spec", "dataset") else f"{item} changed"
        for item in comparison.changed
    ]
    grid.add_row("inputs", Text("; ".join(changed) or "spec, dataset and sources unchanged"))
    for label, items in (
        ("variants only in baseline", comparison.variants_only_in_baseline),
        ("variants only in candidate", comparison.variants_only_in_candidate),
        ("cases only in baseline", comparison.cases_only_in_baseline),
        ("cases only in candidate", comparison.cases_only_in_candidate),
    ):
        if items:
            shown = ", ".join(items[:max_rows])
            left = len(items) - min(len(items), max_rows)
            grid.add_row(
                label, Text(shown + (f" ... and {left} more" if left else ""), overflow="fold")
            )
    headline = render_headline(comparison.headline)
    parts: list[RenderableType] = [] if headline is None else [headline]
    parts.append(Panel(grid, title=Text("Compare experiments"), title_align="left"))
    if not comparison.comparisons:
        parts.append(Text("No variant is in both experiments: nothing to pair.", style="yellow"))
    parts += [render_comparison(item, max_rows) for item in comparison.comparisons]
    return Group(*parts)
