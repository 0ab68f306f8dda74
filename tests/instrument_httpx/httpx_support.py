"""Helpers of the HTTPX instrumentor tests: a recorded run and span lookups."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from autobench.abp import ActiveSpan, SpanRecord, Trace, TraceCollector, bind_collector, start_span


@dataclass
class Run:
    """One recorded run: its collector and, once the block ended, its root span id."""

    collector: TraceCollector = field(default_factory=TraceCollector)
    root: ActiveSpan | None = None

    def trace(self) -> Trace:
        return self.collector.materialize()

    def http_spans(self) -> list[SpanRecord]:
        return [span for span in self.trace().spans if span.kind == "http"]

    def only_http_span(self) -> SpanRecord:
        spans = self.http_spans()
        assert len(spans) == 1, spans
        return spans[0]


@contextmanager
def recorded_run() -> Iterator[Run]:
    """Bind a fresh collector and open a root ``task`` span for the block."""
    run = Run()
    with bind_collector(run.collector), start_span("task", kind="task") as root:
        run.root = root
        yield run


def text_stream(chunks: int, size: int = 8) -> Iterator[bytes]:
    """A lazy body of ``chunks`` chunks of ``size`` bytes (a streamed MockTransport body)."""
    for index in range(chunks):
        yield bytes([97 + index % 26]) * size


async def async_text_stream(chunks: int, size: int = 8) -> Any:
    """The async form of :func:`text_stream`."""
    for index in range(chunks):
        yield bytes([97 + index % 26]) * size
