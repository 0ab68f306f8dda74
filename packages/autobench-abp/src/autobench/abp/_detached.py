"""Spans whose lifetime is not a ``with`` block: calls that return streams.

:func:`~autobench.abp.start_span` binds the new span as the active span of the
calling context until its block exits. A stream span outlives the call that
opened it and may be ended from another frame, thread or finaliser, so a
:class:`DetachedSpan` enters ``start_span`` inside a private copy of the
caller's context: it gets the right parent and the standard start signal,
while the caller's active span is left alone. Code that runs *on behalf* of
the span (each stream step) binds it with :func:`bind_span`.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from contextvars import Context, Token, copy_context
from typing import Any

from autobench.abp._collector import TraceCollector
from autobench.abp._context import ActiveSpan, _span, start_span
from autobench.abp._model import InstrumentationScope, SpanError, SpanStatus
from autobench.abp._signals import SpanEndSignal


class DetachedSpan:
    """An open span that is not the caller's active span; end it exactly once."""

    __slots__ = ("_cm", "_ctx", "span")

    def __init__(
        self,
        operation: str,
        *,
        kind: str,
        scope: InstrumentationScope,
        collector: TraceCollector,
        input: Any = None,
        attributes: Mapping[str, Any] | None = None,
    ) -> None:
        self._ctx: Context = copy_context()
        self._cm: AbstractContextManager[ActiveSpan] = start_span(
            operation,
            kind=kind,
            scope=scope,
            input=input,
            attributes=attributes,
            collector=collector,
        )
        self.span: ActiveSpan = self._ctx.run(self._cm.__enter__)

    @property
    def ended(self) -> bool:
        return self.span.ended

    def end(
        self,
        status: SpanStatus = SpanStatus.OK,
        error: BaseException | None = None,
        *,
        partial: bool = False,
    ) -> None:
        """End the span; ``partial=True`` records it as interrupted, without a duration.

        A partial end carries the span's attributes and usage but not its
        output (an abandoned stream has produced none).
        """
        span = self.span
        if span.ended:
            return
        if partial:
            span.collector.emit(
                SpanEndSignal(
                    span_id=span.id,
                    status=status,
                    duration=None,
                    attributes=span.collector.capture.apply_mapping(dict(span.attributes)),
                    usage=dict(span.usage),
                    error=None
                    if error is None
                    else SpanError(
                        type=type(error).__name__, message=span.collector.capture.text(str(error))
                    ),
                    partial=True,
                )
            )
        else:
            span.end(status, error)
        # Leave start_span's block inside the private context, where its token lives.
        self._ctx.run(self._cm.__exit__, None, None, None)


def bind_span(span: ActiveSpan) -> Token[ActiveSpan | None]:
    """Make ``span`` the active span of the calling context; undo with :func:`unbind_span`."""
    return _span.set(span)


def unbind_span(token: Token[ActiveSpan | None]) -> None:
    """Restore the active span that :func:`bind_span` replaced."""
    _span.reset(token)
