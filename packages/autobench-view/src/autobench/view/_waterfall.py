"""A run's trace as a virtualised waterfall: the spans in tree order as compact rows, served
a window at a time, and one span's details on request.

The rows are in display order: a depth-first walk of the span tree, children in start
order; a span whose parent is not in the trace is a root. So every subtree is a contiguous
run of rows, and collapsing a row skips its ``size`` descendants. The walk is iterative
(a 100,000-deep chain is fine).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autobench.abp import SpanRecord, Trace

MAX_WINDOW = 5000
"""Rows one request for a window may ask for."""

OK, FAILED, PARTIAL = 0, 1, 2
"""The ``state`` of a row: ended normally, ended with an error, interrupted (no end)."""


def _state(span: SpanRecord) -> int:
    if span.error is not None or str(getattr(span.status, "value", span.status)) == "error":
        return FAILED
    return PARTIAL if span.partial or span.duration is None else OK


@dataclass(frozen=True)
class Waterfall:
    """The trace of a run laid out for the page: ``order`` holds indexes into ``spans`` in
    display order, ``depth`` and ``size`` (descendants) per display row, ``start`` the
    earliest offset and ``extent`` the seconds from it to the latest end (never 0)."""

    spans: tuple[SpanRecord, ...]
    order: tuple[int, ...]
    depth: tuple[int, ...]
    size: tuple[int, ...]
    start: float
    extent: float

    @property
    def total(self) -> int:
        return len(self.order)

    def rows(self, first: int, count: int) -> list[list[Any]]:
        """Rows ``first`` to ``first + count`` (clipped at the end), each
        ``[depth, size, offset_ms, duration_ms, state, operation, kind]``: ``offset_ms``
        from the trace's earliest start, ``duration_ms`` ``None`` for a partial span,
        ``state`` one of :data:`OK`, :data:`FAILED`, :data:`PARTIAL`."""
        found = []
        for row in range(first, min(first + count, self.total)):
            span = self.spans[self.order[row]]
            found.append(
                [
                    self.depth[row],
                    self.size[row],
                    round((span.offset - self.start) * 1000, 3),
                    None if span.duration is None else round(span.duration * 1000, 3),
                    _state(span),
                    span.operation,
                    span.kind,
                ]
            )
        return found

    def detail(self, row: int) -> dict[str, Any]:
        """What span ``row`` (a display index) recorded, JSON-ready: ids, operation, kind,
        status, offset and duration in seconds, attributes, usage, input, output, error,
        events and measurements (as recorded). Raises ``IndexError`` out of range."""
        if not 0 <= row < self.total:
            raise IndexError(row)
        span = self.spans[self.order[row]]
        data = span.model_dump(mode="json", by_alias=True, exclude_none=True)
        return {
            "row": row,
            "id": span.id,
            "parent": span.parent,
            "operation": span.operation,
            "kind": span.kind,
            "scope": span.scope,
            "status": str(getattr(span.status, "value", span.status)),
            "partial": span.partial,
            "offset": span.offset - self.start,
            "duration": span.duration,
            **{
                key: data[key]
                for key in (
                    "attributes",
                    "usage",
                    "input",
                    "output",
                    "error",
                    "events",
                    "measurements",
                )
                if data.get(key) not in (None, {}, [])
            },
        }


def waterfall(trace: Trace | None) -> Waterfall:
    """The :class:`Waterfall` of ``trace`` (an empty one for ``None``)."""
    spans = () if trace is None else tuple(trace.spans)
    if not spans:
        return Waterfall((), (), (), (), 0.0, 1e-9)
    start = min(span.offset for span in spans)
    end = max(span.offset + (span.duration or 0.0) for span in spans)
    known = {span.id for span in spans}
    children: dict[str | None, list[int]] = {}
    for index, span in enumerate(spans):
        parent = span.parent if span.parent in known and span.parent != span.id else None
        children.setdefault(parent, []).append(index)
    for siblings in children.values():
        siblings.sort(key=lambda index: spans[index].offset)  # stable: ties keep record order
    order: list[int] = []
    depth: list[int] = []
    size = [0] * len(spans)
    visited = [False] * len(spans)
    # Each stack entry: (span index, depth, whether its children were pushed already).
    stack: list[tuple[int, int, bool]] = [(i, 0, False) for i in reversed(children.get(None, []))]
    position: dict[int, int] = {}
    while stack:
        index, level, done = stack.pop()
        if done:
            size[position[index]] = len(order) - position[index] - 1
            continue
        if visited[index]:
            continue  # a span listed twice under one id: shown once
        visited[index] = True
        position[index] = len(order)
        order.append(index)
        depth.append(level)
        stack.append((index, level, True))
        for child in reversed(children.get(spans[index].id, [])):
            stack.append((child, level + 1, False))
    # Spans on a parent cycle are reached from no root: shown at the end as roots.
    for index in range(len(spans)):
        if not visited[index]:
            visited[index] = True
            order.append(index)
            depth.append(0)
    return Waterfall(
        spans=spans,
        order=tuple(order),
        depth=tuple(depth),
        size=tuple(size[: len(order)]),
        start=start,
        extent=(end - start) or 1e-9,
    )
