"""The terminal view of reliability over repeats: a table per variant (pass@k, pass^k and
their intervals), the cases that did not pass every repeat, and the flaky cases."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from autobench.report._fit import Column, FitTable
from autobench.report._model import Report
from autobench.report._reliability_text import (
    case_header,
    case_row,
    notes,
    title,
    unsteady_cases,
    variant_header,
    variant_row,
)


def _columns(
    header: list[str], rows: list[list[str]], keys: int
) -> tuple[list[Column], list[Column]]:
    columns = [
        Column(
            name,
            [Text(row[index]) for row in rows],
            justify="left" if index < keys else "right",
            style="bold" if index == 0 else None,
        )
        for index, name in enumerate(header)
    ]
    return columns[:keys], columns[keys:]


def render_reliability(report: Report, max_rows: int = 20) -> list[RenderableType]:
    """The reliability tables of ``report`` (none without repeats): at most ``max_rows``
    cases that did not pass every repeat, and as many case ids a line of notes."""
    reliability = report.reliability
    if reliability is None:
        return []
    keys, values = _columns(
        variant_header(reliability), [variant_row(item) for item in reliability.variants], 1
    )
    parts: list[RenderableType] = [
        FitTable(title(reliability), keys, values, note="\n".join(notes(reliability, max_rows)))
    ]
    unsteady = unsteady_cases(reliability)
    if unsteady:
        shown = unsteady[:max_rows]
        keys, values = _columns(
            case_header(reliability), [case_row(variant, case) for variant, case in shown], 2
        )
        more = len(unsteady) - len(shown)
        note = (
            f"{more} more not shown (all of them: autobench export --format yaml)" if more else None
        )
        parts.append(FitTable("Cases that did not pass every repeat", keys, values, note=note))
    return parts
