"""A calibration as text for people: the lines the terminal view and the Markdown export
share (no Rich here)."""

from __future__ import annotations

from collections.abc import Sequence

from autobench.report._calibration import STATISTIC_TITLES
from autobench.report._model import AgreementStatistic, Calibration
from autobench.report._reliability_markdown import markdown_table


def number_text(value: float | None) -> str:
    """Three decimals, or ``n/a`` for an undefined value."""
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


def calibration_markdown(calibrations: Sequence[Calibration]) -> list[str]:
    """Markdown lines: per calibration, a section with the statistics, the confusion matrix
    and the items left out; no lines without calibrations."""
    lines: list[str] = []
    for item in calibrations:
        lines += [f"## {calibration_title(item)}", ""]
        lines += markdown_table(
            ["statistic", "estimate", f"{item.level:.0%} interval"],
            [
                [STATISTIC_TITLES[stat.name], number_text(stat.estimate), interval_text(stat)]
                for stat in item.statistics
            ],
        )
        lines += markdown_table(
            [f"person vs {item.score}", *item.categories],
            [
                [category, *(str(count) for count in row)]
                for category, row in zip(item.categories, item.confusion, strict=True)
            ],
        )
        lines += [f"- {line}" for line in listed_problems(item)]
        if listed_problems(item):
            lines.append("")
    return lines


def calibration_views(calibrations: Sequence[Calibration]) -> list[dict[str, object]]:
    """The HTML report's calibration sections, as plain data: title, statistics rows,
    confusion header and rows, the lines of :func:`listed_problems` and the method note."""
    return [
        {
            "title": calibration_title(item),
            "level": f"{item.level:.0%} interval",
            "statistics": [
                [STATISTIC_TITLES[stat.name], number_text(stat.estimate), interval_text(stat)]
                for stat in item.statistics
            ],
            "confusion_header": [f"person vs {item.score}", *item.categories],
            "confusion": [
                [category, *(str(count) for count in row)]
                for category, row in zip(item.categories, item.confusion, strict=True)
            ],
            "problems": listed_problems(item),
            "method": (
                f"Intervals: percentile bootstrap over the labelled runs ({item.resamples} "
                f"resamples, seed {item.seed}). Rows: what people said; columns: {item.score}."
            ),
        }
        for item in calibrations
    ]
