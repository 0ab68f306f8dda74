"""Cells every Rich table of the report shares: aggregates in a column's number format, the
best variant marked."""

from __future__ import annotations

from rich.text import Text

from autobench.report._display import NumberFormat
from autobench.report._format import aggregate_text
from autobench.report._model import AggregateValue

BEST_MARK = "*"
"""Written before the best value of a metric; plain text, so it survives NO_COLOR and pipes."""


def aggregate_cell(
    aggregate: AggregateValue | None, number: NumberFormat, *, best: bool = False
) -> Text:
    """``aggregate`` in ``number``'s notation, with ``(n=3/4)`` when some runs had no value;
    ``best`` puts :data:`BEST_MARK` in front (so right-aligned digits stay aligned)."""
    if aggregate is None:
        text = Text("-", style="dim")
    elif aggregate.value is None:
        text = Text(f"no value (n=0/{aggregate.total})", style="dim")
    else:
        value = number.text(aggregate.value)
        text = Text(value if aggregate.n == aggregate.total else aggregate_text(aggregate, value))
    if best:
        text.stylize("bold")
        text = Text.assemble((f"{BEST_MARK} ", "bold"), text)
    return text
