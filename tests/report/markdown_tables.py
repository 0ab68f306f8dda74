"""Markdown checks shared by the summary tests: every pipe table parses as a table with the
same number of cells in every row (markdown-it-py, GitHub-flavoured tables enabled)."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

_PIPE = re.compile(r"(?<!\\)\|")


def check_tables(text: str) -> int:
    """Assert every line starting with ``|`` belongs to a table markdown-it parses, and
    that each row of each table has as many cells as its header, counted both by the
    parser and by the unescaped pipes of the source line. Returns the number of tables."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    lines = text.split("\n")
    in_tables: set[int] = set()
    tables = 0
    for index, token in enumerate(tokens):
        if token.type != "table_open":
            continue
        tables += 1
        assert token.map is not None
        start, end = token.map
        in_tables.update(range(start, end))
        header: int | None = None
        cells = 0
        for inner in tokens[index + 1 :]:
            if inner.type == "table_close":
                break
            if inner.type == "tr_open":
                cells = 0
            elif inner.type in ("th_open", "td_open"):
                cells += 1
            elif inner.type == "tr_close":
                if header is None:
                    header = cells
                assert cells == header, (start, cells, header)
        assert header is not None and header > 1
        for number in range(start, end):
            if number != start + 1:  # the delimiter row
                assert len(_PIPE.findall(lines[number])) == header + 1, lines[number]
    stray = [line for n, line in enumerate(lines) if line.startswith("|") and n not in in_tables]
    assert not stray, stray[:3]
    return tables
