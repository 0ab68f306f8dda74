"""Cells every Rich table of the report shares: aggregates in a column's number format, the
best variant marked."""

from __future__ import annotations

from rich.text import Text

from autobench.report._display import NumberFormat
from autobench.report._format import varies
from autobench.report._model import AggregateValue

BEST_MARK = "*"
"""Written before the best value of a metric; plain text, so it survives NO_COLOR and pipes."""


def aggregate_cell(
    aggregate: AggregateValue | None, number: NumberFormat, *, best: bool = False
) -> Text:
    """``aggregate`` in ``number``'s notation, with ``±0.05`` for the spread between repeats
    (none for a value that never varies: no spread, or a spread of 0) and ``(n=3/4)`` when
    some runs (cases, with repeats) had no value;
    ``best`` puts :data:`BEST_MARK` in front (so right-aligned digits stay aligned)."""
    if aggregate is None:
        text = Text("-", style="dim")
    elif aggregate.value is None:
        text = Text(f"no value (n=0/{aggregate.total})", style="dim")
    else:
        value = number.text(aggregate.value)
        spread = aggregate.spread
        if spread is not None and varies(aggregate):  # between repeats, column's notation
            value += f" \u00b1{number.text(spread)}"
        if aggregate.n != aggregate.total:
            value += f" (n={aggregate.n}/{aggregate.total})"
        text = Text(value)
    if best:
        text.stylize("bold")
        text = Text.assemble((f"{BEST_MARK} ", "bold"), text)
    return text
