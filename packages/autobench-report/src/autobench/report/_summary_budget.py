"""A character budget for Markdown that must stay under a size limit (the ``github`` summary:
a pull-request comment holds at most 65,536 characters).

Sections are added in the order a reader needs them; a table keeps the rows that fit and ends
with a line saying how many more there are, so the limit holds whatever the record's size.
"""

from __future__ import annotations

from collections.abc import Sequence

from autobench.report._export_markdown import escape

CELL_CHARS = 160
"""Longest cell text kept (an error message, a case id): longer ones end with an ellipsis."""

MORE_RESERVE = 120
"""Room kept free in a section for its ``N more`` line."""


def cell(text: str, limit: int = CELL_CHARS) -> str:
    """``text`` escaped for a pipe table (``|`` escaped, line breaks folded), cut to
    ``limit`` characters of source text with an ellipsis."""
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "\u2026"
    return escape(text)


def row_line(cells: Sequence[str]) -> str:
    """One pipe-table row of already escaped ``cells``."""
    return "| " + " | ".join(cells) + " |"


class Budget:
    """The characters left of a document of at most ``limit`` characters (lines joined with
    ``\\n``). ``reserve`` is kept back for what must come last (the artifact names)."""

    def __init__(self, limit: int, reserve: int = 0) -> None:
        if limit <= reserve + MORE_RESERVE:
            raise ValueError(f"a limit of {limit} characters leaves no room for content")
        self.limit = limit
        self.lines: list[str] = []
        self._used = 0
        self._reserve = reserve

    @property
    def left(self) -> int:
        """Characters still free for content (the reserve excluded)."""
        return self.limit - self._reserve - self._used

    def fits(self, lines: Sequence[str], spare: int = 0) -> bool:
        """Whether ``lines`` fit with ``spare`` characters left over."""
        return sum(len(line) + 1 for line in lines) + spare <= self.left

    def add(self, lines: Sequence[str]) -> bool:
        """Append ``lines`` when they all fit; returns whether they did."""
        if not self.fits(lines):
            return False
        self.lines.extend(lines)
        self._used += sum(len(line) + 1 for line in lines)
        return True

    def finish(self, last: Sequence[str]) -> str:
        """The document with ``last`` appended (it must fit in the reserve: ``ValueError``)."""
        self._reserve = 0
        if not self.add(last):
            raise ValueError("the closing lines do not fit in the reserve")
        text = "\n".join(self.lines)
        assert len(text) <= self.limit
        return text

    def section(
        self,
        title: Sequence[str],
        header: Sequence[str],
        rows: Sequence[Sequence[str]],
        *,
        max_rows: int,
        more: str = "more rows are in the HTML report",
    ) -> bool:
        """A section: ``title`` lines, then a pipe table of ``header`` and as many of
        ``rows`` (raw text, escaped here) as fit, at most ``max_rows``; a line ``N more ...``
        says what was left out. Returns ``False`` (nothing added) when not even the title,
        the header and the ``more`` line fit."""
        head = [*title, row_line([cell(h) for h in header]), row_line(["---"] * len(header))]
        if not self.fits(head, MORE_RESERVE):
            return False
        self.add(head)
        shown = 0
        for raw in rows[:max_rows]:
            line = row_line([cell(text) for text in raw])
            if not self.fits([line], MORE_RESERVE):
                break
            self.add([line])
            shown += 1
        tail = [""]
        if shown < len(rows):
            tail = ["", f"_{len(rows) - shown:,} {more}._", ""]
        self.add(tail)
        return True

    def bullets(
        self, title: Sequence[str], items: Sequence[str], *, max_items: int, more: str
    ) -> bool:
        """A section of ``title`` lines and one bullet per item (as many as fit, at most
        ``max_items``), with an ``N more`` line; ``False`` when nothing fits."""
        if not self.fits(title, MORE_RESERVE):
            return False
        self.add(title)
        shown = 0
        for item in items[:max_items]:
            if not self.add_within([f"- {item}"]):
                break
            shown += 1
        tail = [""]
        if shown < len(items):
            tail = ["", f"_{len(items) - shown:,} {more}._", ""]
        self.add(tail)
        return True

    def add_within(self, lines: Sequence[str]) -> bool:
        """:meth:`add`, keeping room for a section's ``N more`` line."""
        if not self.fits(lines, MORE_RESERVE):
            return False
        return self.add(lines)
