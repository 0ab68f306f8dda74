"""A run's trace as rows of a waterfall: depth, offset and duration, and what each span
recorded (attributes, usage, input and output, error)."""

from __future__ import annotations

from typing import Any

from autobench.abp import Trace

MAX_SPANS = 5000
"""Spans drawn on a run page; the page says how many more the trace holds."""


def span_rows(trace: Trace | None) -> dict[str, Any]:
    """``{"rows": [...], "total": n, "extent": seconds}``: one row per span in start order
    (up to :data:`MAX_SPANS`), each with ``depth`` (0 for a root), ``left`` and ``width`` in
    percent of the trace's extent (from its earliest span's start to its latest end), and
    the span itself."""
    if trace is None or not trace.spans:
        return {"rows": [], "total": 0, "extent": 0.0}
    start = min(span.offset for span in trace.spans)
    extent = max(span.offset + (span.duration or 0.0) for span in trace.spans) - start or 1e-9
    depth: dict[str, int] = {}
    rows: list[dict[str, Any]] = []
    for span in trace.spans:
        level = depth[span.parent] + 1 if span.parent in depth else 0
        depth[span.id] = level
        if len(rows) >= MAX_SPANS:
            continue
        failed = (
            span.error is not None or str(getattr(span.status, "value", span.status)) == "error"
        )
        rows.append(
            {
                "span": span,
                "depth": level,
                "left": round(100 * (span.offset - start) / extent, 3),
                "width": round(max(100 * (span.duration or 0.0) / extent, 0.3), 3),
                "failed": failed,
                "status": str(getattr(span.status, "value", span.status)),
            }
        )
    return {"rows": rows, "total": len(trace.spans), "extent": extent}
