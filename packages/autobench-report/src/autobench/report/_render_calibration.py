"""The terminal view of a calibration: agreement statistics with intervals, the confusion
matrix, and every run or label that could not be compared (named, never dropped)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from autobench.report._calibration import STATISTIC_TITLES
from autobench.report._calibration_text import (
    calibration_title,
    interval_text,
    listed_problems,
    number_text,
)
from autobench.report._model import Calibration


def _statistics_table(calibration: Calibration) -> Table:
    table = Table()
    table.add_column("statistic", style="bold")
    table.add_column("estimate", justify="right")
    table.add_column(f"{calibration.level:.0%} interval", justify="right")
    for item in calibration.statistics:
        table.add_row(STATISTIC_TITLES[item.name], number_text(item.estimate), interval_text(item))
    return table


def _confusion_table(calibration: Calibration) -> Table:
    table = Table()
    table.add_column(f"person vs {calibration.score}", style="bold")
    for category in calibration.categories:
        table.add_column(category, justify="right")
    for category, row in zip(calibration.categories, calibration.confusion, strict=True):
        table.add_row(category, *(str(count) for count in row))
    return table


def render_calibration(calibration: Calibration, max_rows: int = 20) -> RenderableType:
    """The statistics table, the confusion matrix and the lines of
    :func:`listed_problems` of ``calibration``."""
    parts: list[RenderableType] = [
        Text(calibration_title(calibration), style="bold"),
        _statistics_table(calibration),
        Text(
            f"Intervals: percentile bootstrap over the labelled runs ({calibration.resamples} "
            f"resamples, seed {calibration.seed}). Confusion matrix, rows: what people said, "
            f"columns: {calibration.score}:",
            style="dim",
        ),
        _confusion_table(calibration),
    ]
    problems = listed_problems(calibration, max_rows)
    if problems:
        parts.append(Text("\n".join(f"- {line}" for line in problems), style="yellow"))
    return Group(*parts)


def render_calibrations(
    calibrations: Sequence[Calibration], max_rows: int = 20
) -> list[RenderableType]:
    """:func:`render_calibration` of each."""
    return [render_calibration(item, max_rows) for item in calibrations]
