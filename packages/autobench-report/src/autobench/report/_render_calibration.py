"""The terminal view of a calibration: agreement statistics with intervals, the confusion
matrix, and every run or label that could not be compared (named, never dropped)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from autobench.report._calibration import STATISTIC_TITLES
from autobench.report._model import AgreementStatistic, Calibration


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def interval_text(item: AgreementStatistic) -> str:
    """``[low, high]``, or ``n/a`` when the interval cannot be estimated."""
    if item.low is None or item.high is None:
        return "n/a"
    return f"[{item.low:.3f}, {item.high:.3f}]"


def calibration_title(calibration: Calibration) -> str:
    """``Calibration of <score> (<scale>) against <n> human labels``."""
    source = f" from {calibration.labels_file}" if calibration.labels_file else ""
    return (
        f"Calibration of {calibration.score} ({calibration.scale}) against "
        f"{calibration.items} human label(s){source}"
    )


def listed_problems(calibration: Calibration, max_rows: int = 20) -> list[str]:
    """One line per kind of item left out of the statistics, with its count and (up to
    ``max_rows``) names."""
    lines = []
    for what, names in (
        ("run(s) with a score but no label", calibration.unlabelled_runs),
        ("label(s) for no run of the record", calibration.unknown_labels),
        ("label(s) naming several runs (give run_id)", calibration.ambiguous_labels),
        ("labelled run(s) without a value of the score", calibration.unscored_runs),
    ):
        if names:
            shown = ", ".join(names[:max_rows])
            more = f", and {len(names) - max_rows} more" if len(names) > max_rows else ""
            lines.append(f"{len(names)} {what}: {shown}{more}")
    return lines


def _statistics_table(calibration: Calibration) -> Table:
    table = Table()
    table.add_column("statistic", style="bold")
    table.add_column("estimate", justify="right")
    table.add_column(f"{calibration.level:.0%} interval", justify="right")
    for item in calibration.statistics:
        table.add_row(STATISTIC_TITLES[item.name], _number(item.estimate), interval_text(item))
    return table


def _confusion_table(calibration: Calibration) -> Table:
    table = Table()
    table.add_column(f"person \\ {calibration.score}", style="bold")
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
