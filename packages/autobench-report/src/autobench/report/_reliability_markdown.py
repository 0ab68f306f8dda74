"""Reliability over repeats as Markdown: the section :func:`render_markdown` adds when the
report has repeats."""

from __future__ import annotations

from collections.abc import Sequence

from autobench.report._model import Reliability
from autobench.report._reliability_text import (
    case_header,
    case_row,
    notes,
    title,
    unsteady_cases,
    variant_header,
    variant_row,
)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "<br>")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A pipe table, as :func:`autobench.report._export_markdown.table` writes one."""
    lines = ["| " + " | ".join(_escape(h) for h in header) + " |"]
    lines.append("| " + " | ".join("---" for _ in header) + " |")
    lines += ["| " + " | ".join(_escape(c) for c in row) + " |" for row in rows]
    return [*lines, ""]


def reliability_markdown(reliability: Reliability | None) -> list[str]:
    """Markdown lines: the per-variant table, the cases that did not pass every repeat and
    the flaky cases; no lines without repeats (``None``)."""
    if reliability is None:
        return []
    lines = [f"## {title(reliability)}", ""]
    lines += markdown_table(
        variant_header(reliability), [variant_row(i) for i in reliability.variants]
    )
    unsteady = unsteady_cases(reliability)
    if unsteady:
        lines += ["Cases that did not pass every repeat:", ""]
        lines += markdown_table(case_header(reliability), [case_row(v, c) for v, c in unsteady])
    lines += [f"- {_escape(line)}" for line in notes(reliability)] + [""]
    return lines
