"""Tables laid out for the width they are printed at.

A :class:`FitTable` holds key columns (which say what a row is: a case, a variant,
a metric) and value columns. When it is printed it measures every column and,
when the value columns do not fit beside the keys in the console width, splits
them over several tables, each repeating the keys and titled ``(1/2)``,
``(2/2)``, ... Ids and numbers are never wrapped, cropped or shortened: each such
column is given the width of its widest cell. Only free text (a reason, a label)
and headers wrap, and only between words. The title and the note below the table
are plain text printed at the console width, so they too break only at spaces.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

_UNBOUNDED = 1_000_000


def longest_word(text: str) -> int:
    """The width ``text`` needs to wrap only between words."""
    return max((cell_len(word) for word in text.split()), default=1)


def longest_line(text: str) -> int:
    """The width ``text`` needs with each of its lines kept whole."""
    return max((cell_len(line) for line in text.split("\n")), default=0)


@dataclass(slots=True)
class Column:
    """A header and one cell per row. ``wrap`` marks free text, which may wrap between
    words; any other cell (an id, a number) keeps each of its lines whole (a cell may
    stack a few short lines: a delta over its interval)."""

    header: str
    cells: list[Text] = field(default_factory=list)
    justify: Literal["left", "right"] = "left"
    wrap: bool = False
    style: str | None = None

    def minimum(self) -> int:
        widths = [longest_word(self.header)]
        for cell in self.cells:
            widths.append(longest_word(cell.plain) if self.wrap else longest_line(cell.plain))
        return max(widths)

    def maximum(self) -> int:
        return max([cell_len(self.header), *(longest_line(cell.plain) for cell in self.cells)])


def _grid(columns: Sequence[Column], widths: Sequence[int | None], leading: int = 0) -> Table:
    grid = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, leading=leading)
    for column, width in zip(columns, widths, strict=True):
        grid.add_column(
            Text(column.header),
            justify=column.justify,
            style=column.style,
            overflow="fold",
            width=width,
        )
    return grid


def _overhead(console: Console, options: ConsoleOptions, count: int) -> int:
    """Width a table of ``count`` columns takes beyond its cells: edges, gaps and padding."""
    probe = _grid([Column("")] * count, [1] * count)
    return Measurement.get(console, options.update_width(_UNBOUNDED), probe).maximum - count


def _widths(columns: Sequence[Column], room: int) -> list[int] | None:
    """Each column at its minimum, then the spare room given to the columns that need the
    least of it to show in full (their headers stop wrapping first); ``None`` when even the
    minimums do not fit in ``room``."""
    widths = [column.minimum() for column in columns]
    spare = room - sum(widths)
    if spare < 0:
        return None
    wanted = [column.maximum() - width for column, width in zip(columns, widths, strict=True)]
    for index in sorted(range(len(columns)), key=wanted.__getitem__):
        grow = min(spare, wanted[index])
        widths[index] += grow
        spare -= grow
    return widths


class FitTable:
    """Key columns and value columns, split into as many tables as the width needs;
    ``leading`` blank lines between rows (for rows of several lines)."""

    def __init__(
        self,
        title: str,
        keys: Sequence[Column],
        values: Sequence[Column] = (),
        note: str | None = None,
        *,
        leading: int = 0,
    ) -> None:
        self.title = title
        self.keys = list(keys)
        self.values = list(values)
        self.note = note
        self.leading = leading

    def parts(self, console: Console, options: ConsoleOptions) -> list[list[Column]]:
        """The value columns of each table: consecutive columns, as many per table as fit
        beside the keys in ``options.max_width`` (at least one)."""
        parts: list[list[Column]] = [[]]
        for column in self.values:
            trial = [*parts[-1], column]
            if parts[-1] and not self._fits(console, options, trial):
                parts.append([column])
            else:
                parts[-1] = trial
        return parts

    def fits(self, console: Console, options: ConsoleOptions) -> bool:
        """Whether every column fits in one table."""
        return self._fits(console, options, self.values)

    def _fits(self, console: Console, options: ConsoleOptions, values: list[Column]) -> bool:
        columns = [*self.keys, *values]
        room = options.max_width - _overhead(console, options, len(columns))
        return _widths(columns, room) is not None

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        parts = self.parts(console, options)
        for number, values in enumerate(parts, start=1):
            title = self.title
            if len(parts) > 1:
                title = f"{title} ({number}/{len(parts)})".strip()
            if title:
                yield Text(title, style="bold", overflow="fold")
            yield self._table(console, options, [*self.keys, *values])
            yield Text()
        if self.note:
            yield Text(self.note, overflow="fold")
            yield Text()

    def _table(self, console: Console, options: ConsoleOptions, columns: list[Column]) -> Table:
        room = options.max_width - _overhead(console, options, len(columns))
        widths: Sequence[int | None] = _widths(columns, room) or [None] * len(columns)
        grid = _grid(columns, widths, self.leading)
        rows = max((len(column.cells) for column in columns), default=0)
        for row in range(rows):
            grid.add_row(
                *(column.cells[row] if row < len(column.cells) else Text() for column in columns)
            )
        return grid
