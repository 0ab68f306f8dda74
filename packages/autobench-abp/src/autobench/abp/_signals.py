"""Signals: the facts instrumentation emits while a trace is being recorded.

A span is described by exactly two signals, :class:`SpanStartSignal` and
:class:`SpanEndSignal`; the collector joins them into a :class:`SpanRecord`.
Signals are immutable and carry the protocol version so a stream of them can
be stored or shipped on its own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from autobench.abp._model import PROTOCOL_VERSION, SpanError, SpanStatus


class SpanStartSignal(BaseModel):
    """A span began. ``offset`` is monotonic seconds from the trace start."""

    model_config = ConfigDict(frozen=True)

    type: Literal["span_start"] = "span_start"
    protocol_version: int = PROTOCOL_VERSION
    span_id: str
    parent_id: str | None
    operation: str
    kind: str
    scope: str
    started_at: datetime
    offset: float
    input: Any = None
    attributes: dict[str, Any] = Field(default_factory=dict)
    tags: dict[str, str] = Field(default_factory=dict)


class SpanEndSignal(BaseModel):
    """A span ended after ``duration`` monotonic seconds, with its final data."""

    model_config = ConfigDict(frozen=True)

    type: Literal["span_end"] = "span_end"
    protocol_version: int = PROTOCOL_VERSION
    span_id: str
    status: SpanStatus
    duration: float | None
    output: Any = None
    attributes: dict[str, Any] = Field(default_factory=dict)
    usage: dict[str, Any] = Field(default_factory=dict)
    error: SpanError | None = None
    partial: bool = False


Signal = SpanStartSignal | SpanEndSignal
