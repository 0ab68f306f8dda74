"""The headline for the terminal: a titled block printed first by ``report``, ``run``,
``compare`` and ``compare`` of two experiments.

The words are those of :mod:`autobench.report._headline_text`. Each item is laid out in
aligned columns (name, change, interval, verdict) when they fit the console width, else as
one line per item that breaks only between its parts (never inside a number, an interval
or a verdict), continued under a deeper indent. Notes and the Pareto line are free text:
they break between words. Colour only repeats what the verdict word says, so ``NO_COLOR``
and a pipe read the same.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from autobench.report._headline_text import (
    HEADLINE_TITLE,
    NOTHING_TO_COMPARE,
    ItemParts,
    comparison_level,
    comparison_title,
    item_parts,
    pareto_text,
)
from autobench.report._model import Headline, HeadlineComparison, Verdict

VERDICT_STYLES = {
    Verdict.IMPROVED: "green",
    Verdict.REGRESSED: "bold red",
    Verdict.TOO_FEW_CASES: "yellow",
}
"""The colour of a verdict (a hint only: the verdict is always written out)."""

_INDENT = 2
_HANG = 6
_GAP = 2


def _words(text: str, first: int, width: int, hang: int) -> list[str]:
    """``text`` broken between words into lines, the first ``first`` columns narrower than
    ``width``, the others indented by ``hang``; a word wider than a line stays whole."""
    lines: list[str] = []
    line = ""
    room = width - first
    for word in text.split():
        wanted = cell_len(word) + (cell_len(line) + 1 if line else 0)
        if wanted > room and (line or first > hang):
            lines.append(line)
            line, room = "", width - hang
        line = f"{line} {word}" if line else word
    lines.append(line)
    return lines


class HeadlineView:
    """A :class:`Headline` laid out for the console width (module docstring)."""

    def __init__(self, headline: Headline) -> None:
        self.headline = headline

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        yield Text(HEADLINE_TITLE, style="bold underline")
        for comparison in self.headline.comparisons:
            yield from self._comparison(comparison, width)
        if self.headline.pareto is not None:
            for index, line in enumerate(_words(pareto_text(self.headline.pareto), 0, width, 2)):
                yield Text(" " * (2 if index else 0) + line)
        yield Text()

    def _comparison(self, comparison: HeadlineComparison, width: int) -> RenderResult:
        title = comparison_title(comparison, comparison_level(comparison))
        for index, line in enumerate(_words(title, 0, width, 2)):
            yield Text(" " * (2 if index else 0) + line, style="bold" if not index else "")
        if not comparison.items:
            yield Text(" " * _INDENT + NOTHING_TO_COMPARE)
            return
        parts = [item_parts(item) for item in comparison.items]
        aligned = _aligned(parts, width)
        for item, words in zip(comparison.items, parts, strict=True):
            style = "" if item.verdict is None else VERDICT_STYLES.get(item.verdict, "")
            lines = _aligned_lines(words, aligned, width) if aligned else _flowing(words, width)
            for line in lines:
                yield _styled(line, words.verdict, style)


def _styled(line: str, verdict: str, style: str) -> Text:
    text = Text(line)
    if verdict and style:
        start = line.find(verdict)
        if start >= 0:
            text.stylize(style, start, start + len(verdict))
    return text


def _aligned(parts: Sequence[ItemParts], width: int) -> list[int] | None:
    """The widths of the name, change and interval columns when every item's columns and
    verdict fit in ``width``; ``None`` when they do not."""
    widths = [
        max(cell_len(getattr(item, field)) for item in parts)
        for field in ("name", "change", "interval")
    ]
    verdict = max(cell_len(item.verdict) for item in parts)
    columns = [w for w in widths if w]
    total = _INDENT + sum(columns) + _GAP * len(columns) + verdict
    return widths if total <= width else None


def _aligned_lines(item: ItemParts, widths: list[int], width: int) -> list[str]:
    cells = [
        item.name.ljust(widths[0]),
        item.change.rjust(widths[1]),
        item.interval.ljust(widths[2]),
    ]
    head = " " * _INDENT + (" " * _GAP).join(
        cell for cell, w in zip(cells, widths, strict=True) if w
    )
    line = head + " " * _GAP + item.verdict
    return [text.rstrip() for text in _with_note(line, item.note, width, _HANG)]


def _flowing(item: ItemParts, width: int) -> list[str]:
    """The item's parts joined by spaces, broken only between parts (the note between words)."""
    pieces = [piece for piece in (item.name, item.change, item.interval, item.verdict) if piece]
    lines = [" " * _INDENT + pieces[0]]
    for piece in pieces[1:]:
        if cell_len(lines[-1]) + 1 + cell_len(piece) > width:
            lines.append(" " * _HANG + piece)
        else:
            lines[-1] += " " + piece
    return [*lines[:-1], *_with_note(lines[-1], item.note, width, _HANG)]


def _with_note(line: str, note: str, width: int, hang: int) -> list[str]:
    """``line`` followed by ``(note)``, the note broken between words and continued under
    ``hang`` columns of indent (on the next line already when not even its first word fits)."""
    if not note:
        return [line]
    words = _words(f"({note})", cell_len(line) + 1, width, hang)
    first = [f"{line} {words[0]}"] if words[0] else [line]
    return first + [" " * hang + rest for rest in words[1:]]


def render_headline(headline: Headline) -> HeadlineView | None:
    """The headline as a renderable; ``None`` when it holds nothing (no comparison and no
    Pareto front), so nothing is printed."""
    if not headline.comparisons and headline.pareto is None:
        return None
    return HeadlineView(headline)
