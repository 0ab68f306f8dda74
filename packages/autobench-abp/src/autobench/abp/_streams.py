"""Stream-aware call tracking: generators, async generators and context managers.

A call that returns a stream keeps its span open until the stream really
ends. The wrappers here pass items, ``send``/``throw``/``close`` (and their
async forms) and ``__enter__``/``__exit__`` through unchanged, bind the span
as the active parent while the stream body runs, and end the span when the
stream completes (``completed``), raises (``error``), is cancelled
(``cancelled``), is closed early (``closed``), is garbage-collected unfinished
(``abandoned``: the span is recorded as partial) or is still open when its run
ends (``open_at_run_end``: partial too, ended by the runtime through the
collector's :meth:`~autobench.abp.TraceCollector.end_open_streams` before the
trace is materialized). A stream that never reached its end (abandoned, open at
run end) ends with everything its span gathered so far (attributes, usage, the
output set so far) and a warning diagnostic ``instrumentation.stream_not_consumed``.
Only the item count and the last item are kept, so memory does not grow with the
stream.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import AsyncGenerator, Callable, Generator
from types import TracebackType
from typing import Any

from autobench.abp._context import _span
from autobench.abp._detached import DetachedSpan, bind_span, unbind_span
from autobench.abp._extract import InstrumentCall
from autobench.abp._facts import Severity
from autobench.abp._model import SpanStatus

_bind = _span.set
_unbind = _span.reset
""":func:`bind_span` / :func:`unbind_span` without their frames, for the per-item path."""

END_REASON = "end_reason"
ITEMS = "stream.items"
FIRST_ITEM = "stream.first_item_seconds"
OPEN_AT_RUN_END = "open_at_run_end"
"""The end reason of a stream span still open when its run ended."""
STREAM_NOT_CONSUMED = "instrumentation.stream_not_consumed"
"""The diagnostic code of a stream span that ended before its stream did (abandoned, or
open at run end)."""


def not_consumed(span: Any, reason: str, items: int) -> None:
    """Add the ``instrumentation.stream_not_consumed`` warning to the open ``span`` (an
    :class:`~autobench.abp.ActiveSpan`) of a stream that ended with ``reason`` after
    ``items`` items."""
    span.add_diagnostic(
        STREAM_NOT_CONSUMED,
        f"{span.operation}: the stream was not consumed to its end ({reason} after "
        f"{items} items); the span keeps what was read",
        severity=Severity.WARNING,
        attributes={END_REASON: reason, ITEMS: items},
    )


class CallTracker:
    """The span and extraction state of one instrumented call, ended exactly once.

    ``on_end`` runs once with the finished :class:`InstrumentCall` (not for
    abandoned streams, whose run may already be over).
    """

    __slots__ = ("call", "detached", "finalizer", "on_end")

    def __init__(
        self,
        detached: DetachedSpan,
        call: InstrumentCall,
        on_end: Callable[[CallTracker], None],
    ) -> None:
        self.detached = detached
        self.call = call
        self.on_end = on_end
        self.finalizer: weakref.finalize[Any, Any] | None = None

    @property
    def ended(self) -> bool:
        return self.detached.span._ended

    def item(self, value: Any) -> None:
        """Count one stream item."""
        call = self.call
        if call.item_count == 0:
            span = self.detached.span
            span.set_attribute(FIRST_ITEM, (time.perf_counter_ns() - span.start_ns) / 1e9)
        call.item_count += 1
        call.last_item = value

    def finish(
        self, reason: str, error: BaseException | None = None, *, partial: bool = False
    ) -> None:
        """End the span with ``reason`` (``completed``, ``closed``, ``error``, ``cancelled``;
        ``open_at_run_end`` with ``partial``, see :meth:`end_at_run_end`)."""
        if self.detached.ended:
            return
        watched = self.finalizer is not None
        self._release()
        call = self.call
        call.error = error
        call.end_reason = reason
        span = self.detached.span
        span.set_attribute(END_REASON, reason)
        if watched:
            span.set_attribute(ITEMS, call.item_count)
        try:
            self.on_end(self)
        finally:
            if isinstance(error, asyncio.CancelledError):
                status = SpanStatus.CANCELLED
            elif error is None:
                status = SpanStatus.OK
            else:
                status = SpanStatus.ERROR
            self.detached.end(status, error, partial=partial)

    def end_at_run_end(self) -> None:
        """End the span of a stream its run left open: partial, reason ``open_at_run_end``,
        with the facts gathered so far (``on_end`` runs: the run is still there) and the
        ``instrumentation.stream_not_consumed`` warning."""
        if self.detached.ended:
            return
        not_consumed(self.detached.span, OPEN_AT_RUN_END, self.call.item_count)
        self.finish(OPEN_AT_RUN_END, partial=True)

    def abandon(self) -> None:
        """End the span as partial with reason ``abandoned`` (finaliser of a stream wrapper)."""
        if self.detached.ended:
            return
        self._release()
        span = self.detached.span
        span.set_attribute(END_REASON, "abandoned")
        span.set_attribute(ITEMS, self.call.item_count)
        not_consumed(span, "abandoned", self.call.item_count)
        self.call.end_reason = "abandoned"
        self.detached.end(SpanStatus.CANCELLED, partial=True)

    def watch(self, owner: object) -> None:
        """Abandon the span when ``owner`` is garbage-collected (or at interpreter exit);
        until it ends, the run's collector holds it as an open stream. Watching a second
        owner moves the watch to it (the call's result was an HTTP response, and the stream
        parsed from it now carries the span)."""
        if self.finalizer is not None:
            self.finalizer.detach()
        self.finalizer = weakref.finalize(owner, self.abandon)
        self.detached.span.collector.hold_stream(self)

    def _release(self) -> None:
        if self.finalizer is not None:
            self.finalizer.detach()
            self.detached.span.collector.release_stream(self)


def end_reason_for(exc: BaseException) -> str:
    """``cancelled`` for :class:`asyncio.CancelledError`, ``error`` for anything else."""
    return "cancelled" if isinstance(exc, asyncio.CancelledError) else "error"


class InstrumentedGenerator(Generator[Any, Any, Any]):
    """A generator wrapper that keeps the call's span open until the generator ends."""

    __slots__ = ("__weakref__", "_gen", "_tracker")

    def __init__(self, gen: Generator[Any, Any, Any], tracker: CallTracker) -> None:
        self._gen = gen
        self._tracker = tracker
        tracker.watch(self)

    def __iter__(self) -> InstrumentedGenerator:
        return self

    def __next__(self) -> Any:
        # the path of every item: _step's work without the lambda and two calls
        tracker = self._tracker
        token = _bind(tracker.detached.span)
        try:
            item = self._gen.__next__()
        except StopIteration:
            tracker.finish("completed")
            raise
        except BaseException as exc:
            tracker.finish(end_reason_for(exc), exc)
            raise
        finally:
            _unbind(token)
        tracker.item(item)
        return item

    def _step(self, step: Callable[[], Any]) -> Any:
        tracker = self._tracker
        token = bind_span(tracker.detached.span)
        try:
            item = step()
        except StopIteration:
            tracker.finish("completed")
            raise
        except BaseException as exc:
            tracker.finish(end_reason_for(exc), exc)
            raise
        finally:
            unbind_span(token)
        tracker.item(item)
        return item

    def send(self, value: Any) -> Any:
        """Send ``value`` into the wrapped generator (``next`` sends ``None``)."""
        return self._step(lambda: self._gen.send(value))

    def throw(self, typ: Any, val: Any = None, tb: TracebackType | None = None) -> Any:
        """Raise an exception inside the wrapped generator."""
        if val is None and tb is None:
            return self._step(lambda: self._gen.throw(typ))
        return self._step(lambda: self._gen.throw(typ, val, tb))

    def close(self) -> None:
        """Close the wrapped generator; an unfinished stream ends with reason ``closed``."""
        tracker = self._tracker
        if tracker.ended:
            self._gen.close()
            return
        token = bind_span(tracker.detached.span)
        try:
            self._gen.close()
        except BaseException as exc:
            tracker.finish(end_reason_for(exc), exc)
            raise
        finally:
            unbind_span(token)
        tracker.finish("closed")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._gen, name)


class InstrumentedAsyncGenerator(AsyncGenerator[Any, Any]):
    """An async generator wrapper that keeps the call's span open until the stream ends."""

    __slots__ = ("__weakref__", "_agen", "_tracker")

    def __init__(self, agen: AsyncGenerator[Any, Any], tracker: CallTracker) -> None:
        self._agen = agen
        self._tracker = tracker
        tracker.watch(self)

    def __aiter__(self) -> InstrumentedAsyncGenerator:
        return self

    async def __anext__(self) -> Any:
        # the path of every item: _step's work without the lambda and two calls
        tracker = self._tracker
        token = _bind(tracker.detached.span)
        try:
            item = await self._agen.__anext__()
        except StopAsyncIteration:
            tracker.finish("completed")
            raise
        except BaseException as exc:
            tracker.finish(end_reason_for(exc), exc)
            raise
        finally:
            _unbind(token)
        tracker.item(item)
        return item

    async def _step(self, step: Callable[[], Any]) -> Any:
        tracker = self._tracker
        token = bind_span(tracker.detached.span)
        try:
            item = await step()
        except StopAsyncIteration:
            tracker.finish("completed")
            raise
        except BaseException as exc:
            tracker.finish(end_reason_for(exc), exc)
            raise
        finally:
            unbind_span(token)
        tracker.item(item)
        return item

    async def asend(self, value: Any) -> Any:
        """Send ``value`` into the wrapped async generator."""
        return await self._step(lambda: self._agen.asend(value))

    async def athrow(self, typ: Any, val: Any = None, tb: TracebackType | None = None) -> Any:
        """Raise an exception inside the wrapped async generator."""
        if val is None and tb is None:
            return await self._step(lambda: self._agen.athrow(typ))
        return await self._step(lambda: self._agen.athrow(typ, val, tb))

    async def aclose(self) -> None:
        """Close the wrapped async generator; an unfinished stream ends with reason ``closed``."""
        tracker = self._tracker
        if tracker.ended:
            await self._agen.aclose()
            return
        token = bind_span(tracker.detached.span)
        try:
            await self._agen.aclose()
        except BaseException as exc:
            tracker.finish(end_reason_for(exc), exc)
            raise
        finally:
            unbind_span(token)
        tracker.finish("closed")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._agen, name)


class InstrumentedContextManager:
    """A context-manager wrapper whose span lasts until ``__exit__``/``__aexit__``.

    The value ``__enter__`` returns passes through (and becomes the call's
    ``result`` for extraction); an exception the inner ``__exit__`` suppresses
    ends the span ``ok``. Other attributes are read from the wrapped object.
    """

    __slots__ = ("__weakref__", "_inner", "_token", "_tracker")

    def __init__(self, inner: Any, tracker: CallTracker) -> None:
        self._inner = inner
        self._tracker = tracker
        self._token: Any = None
        tracker.watch(self)

    def _entered(self, value: Any) -> Any:
        self._tracker.call.result = value
        return value

    def _exited(self, suppressed: Any, exc: BaseException | None) -> Any:
        if exc is None or suppressed:
            self._tracker.finish("completed")
        else:
            self._tracker.finish(end_reason_for(exc), exc)
        return suppressed

    def __enter__(self) -> Any:
        self._token = bind_span(self._tracker.detached.span)
        try:
            return self._entered(self._inner.__enter__())
        except BaseException as exc:
            self._release()
            self._tracker.finish(end_reason_for(exc), exc)
            raise

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Any:
        try:
            suppressed = self._inner.__exit__(exc_type, exc, tb)
        except BaseException as raised:
            self._release()
            self._tracker.finish(end_reason_for(raised), raised)
            raise
        self._release()
        return self._exited(suppressed, exc)

    async def __aenter__(self) -> Any:
        self._token = bind_span(self._tracker.detached.span)
        try:
            return self._entered(await self._inner.__aenter__())
        except BaseException as exc:
            self._release()
            self._tracker.finish(end_reason_for(exc), exc)
            raise

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Any:
        try:
            suppressed = await self._inner.__aexit__(exc_type, exc, tb)
        except BaseException as raised:
            self._release()
            self._tracker.finish(end_reason_for(raised), raised)
            raise
        self._release()
        return self._exited(suppressed, exc)

    def _release(self) -> None:
        token, self._token = self._token, None
        if token is not None:
            unbind_span(token)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
