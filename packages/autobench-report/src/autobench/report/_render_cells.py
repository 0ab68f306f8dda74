"""Pieces every Rich table of the report shares: the table style, headers that never break
inside a word, and aggregate cells in a column's number format."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from autobench.report._display import NumberFormat
from autobench.report._format import aggregate_text
from autobench.report._model import AggregateValue

BEST_MARK = "*"
"""Written before the best value of a metric; plain text, so it survives NO_COLOR and pipes."""


def table(title: str, caption: str | None = None) -> Table:
    return Table(
        title=title,
        title_justify="left",
        title_style="bold",
        caption=caption,
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )


def longest_word(text: str) -> int:
    """The width a column needs so that ``text`` wraps only between words."""
    return max((len(word) for word in text.split()), default=1)


def add_metric_column(grid: Table, header: str, *, min_width: int = 8) -> None:
    """A right-aligned metric column whose header folds between words only."""
    grid.add_column(
        Text(header),
        justify="right",
        overflow="fold",
        min_width=max(min_width, longest_word(header)),
    )


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
