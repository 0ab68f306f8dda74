"""Spans whose lifetime is not a ``with`` block: calls that return streams.

:func:`~autobench.abp.start_span` binds the new span as the active span of the
calling context until its block exits. A stream span outlives the call that
opened it and may be ended from another frame, thread or finaliser, so a
:class:`DetachedSpan` starts its span the same way (parent from the caller's
context, the standard start signal) without binding it: the caller's active
span is left alone. Code that runs *on behalf* of the span (each stream step)
binds it with :func:`bind_span`.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import Token
from typing import Any

from autobench.abp._collector import TraceCollector
from autobench.abp._context import ActiveSpan, _span, open_span_handle
from autobench.abp._model import InstrumentationScope, SpanError, SpanStatus
from autobench.abp._signals import SpanEndSignal

_new_detached = object.__new__


class DetachedSpan:
    """An open span that is not the caller's active span; end it exactly once.

    ``parent`` names the parent span instead of the caller's active span (see
    :func:`~autobench.abp._context.open_span_handle`).
    """

    __slots__ = ("span",)

    def __init__(
        self,
        operation: str,
        *,
        kind: str,
        scope: InstrumentationScope,
        collector: TraceCollector,
        input: Any = None,
        attributes: Mapping[str, Any] | None = None,
        parent: ActiveSpan | None = None,
    ) -> None:
        self.span: ActiveSpan = open_span_handle(
            operation, kind, scope, input, attributes, None, collector, parent
        )

    @classmethod
    def of(cls, span: ActiveSpan) -> DetachedSpan:
        """The detached handle of ``span``, a span opened with
        :func:`~autobench.abp._context.open_span_handle` (without ``__init__``'s keyword
        parsing: this is the path of every instrumentor span)."""
        detached = _new_detached(cls)
        detached.span = span
        return detached

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

        A partial end carries the span's attributes, usage and output (an output
        set so far, such as the text a stream had produced when its run ended,
        passes the capture policy as at a normal end).
        """
        span = self.span
        if span._ended:
            return
        if partial:
            span._ended = True  # a late stream step or close must not end it again
            collector = span.collector
            output = span.output
            if output is not None:
                output = collector.capture_payload(
                    output, name=f"{span.operation}.output", span_id=span.id
                )
            collector.emit(
                SpanEndSignal(
                    span_id=span.id,
                    status=status,
                    duration=None,
                    output=output,
                    attributes=dict(span.attributes),  # the policy applies on materialize
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


def bind_span(span: ActiveSpan | None) -> Token[ActiveSpan | None]:
    """Make ``span`` the active span of the calling context (``None``: no span is active);
    undo with :func:`unbind_span`."""
    return _span.set(span)


def unbind_span(token: Token[ActiveSpan | None]) -> None:
    """Restore the active span that :func:`bind_span` replaced."""
    _span.reset(token)
