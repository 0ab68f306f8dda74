"""Streamed response bodies: the HTTP span stays open until the body really ends.

``client.send(request, stream=True)`` (and ``client.stream(...)``) returns a
response whose body is read later. The instrumentor replaces
``response.stream`` (the SDK's ``BoundSyncStream``/``BoundAsyncStream``) with a
wrapper that is an instance of the same flavour's ``SyncByteStream`` /
``AsyncByteStream``, so every ``Response`` method (``iter_raw``/``iter_bytes``/
``iter_text``/``iter_lines``, their ``aiter_*`` forms, ``read``/``aread``,
``close``/``aclose``, the context managers) behaves exactly as before; other
attribute reads (``elapsed``) go to the wrapped stream.

The span ends (ABP stream conventions, ``autobench.abp._streams``) with
``end_reason``:

- ``completed`` when the body's last chunk has been delivered;
- ``error`` (``cancelled`` for :class:`asyncio.CancelledError`) when reading raises;
- ``closed`` when the response is closed before its end;
- ``abandoned`` (a partial span) when the response is garbage-collected
  unfinished or the instrumentor is uninstalled while it is open;
- ``open_at_run_end`` (a partial span) when the response is still open as its run
  ends (the run's collector holds it until then).

The last two add the ``instrumentation.stream_not_consumed`` warning.

``stream.items`` counts the raw chunks and ``stream.first_item_seconds`` is
the time from the span start to the first chunk; nothing else is kept per
chunk, so memory does not grow with the stream (with body capture on, at
most ``max_body_bytes`` of prefix and one digest state).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from types import ModuleType
from typing import Any

from autobench.abp import SpanStatus
from autobench.abp._detached import DetachedSpan
from autobench.abp._streams import END_REASON, FIRST_ITEM, ITEMS, OPEN_AT_RUN_END, not_consumed
from autobench.instrument.httpx._body import BodyCapture

RESPONSE_BODY_SIZE = "http.response.body.size"


class StreamSpan:
    """The span of one streamed response and its running counts; ended exactly once.

    ``on_complete(stream_span)`` runs once, when the body ended normally and
    before the span ends, to add final attributes (a captured body).
    ``registry`` holds the open stream spans of the installation so
    uninstalling can abandon them.
    """

    __slots__ = (
        "body",
        "chunks",
        "detached",
        "finalizer",
        "on_complete",
        "registry",
        "size",
    )

    def __init__(
        self,
        detached: DetachedSpan,
        registry: set[StreamSpan],
        *,
        body: BodyCapture | None = None,
        on_complete: Callable[[StreamSpan], None] | None = None,
    ) -> None:
        self.detached = detached
        self.registry = registry
        self.body = body
        self.on_complete = on_complete
        self.chunks = 0
        self.size = 0
        self.finalizer: weakref.finalize[Any, Any] | None = None
        registry.add(self)

    @property
    def ended(self) -> bool:
        return self.detached.ended

    def chunk(self, data: bytes) -> None:
        """Count one raw chunk of ``len(data)`` bytes."""
        if self.chunks == 0:
            span = self.detached.span
            span.set_attribute(FIRST_ITEM, (time.perf_counter_ns() - span.start_ns) / 1e9)
        self.chunks += 1
        self.size += len(data)
        if self.body is not None:
            self.body.feed(data)

    def finish(self, reason: str, error: BaseException | None = None) -> None:
        """End the span with ``reason`` (``completed``, ``closed``, ``error``, ``cancelled``)."""
        detached = self.detached
        if detached.ended:
            return
        self._release()
        span = detached.span
        span.set_attribute(END_REASON, reason)
        span.set_attribute(ITEMS, self.chunks)
        try:
            if reason == "completed":
                span.set_attribute(RESPONSE_BODY_SIZE, self.size)
                if self.on_complete is not None:
                    self.on_complete(self)
        finally:
            if isinstance(error, asyncio.CancelledError):
                detached.end(SpanStatus.CANCELLED, error)
            elif error is None:
                detached.end(SpanStatus.OK)
            else:
                detached.end(SpanStatus.ERROR, error)

    def abandon(self) -> None:
        """End the span as partial with reason ``abandoned``."""
        self._partial("abandoned", SpanStatus.CANCELLED)

    def end_at_run_end(self) -> None:
        """End the span as partial with reason ``open_at_run_end`` (the run is ending)."""
        self._partial(OPEN_AT_RUN_END, SpanStatus.OK)

    def _partial(self, reason: str, status: SpanStatus) -> None:
        detached = self.detached
        if detached.ended:
            return
        self._release()
        span = detached.span
        span.set_attribute(END_REASON, reason)
        span.set_attribute(ITEMS, self.chunks)
        not_consumed(span, reason, self.chunks)
        detached.end(status, partial=True)

    def watch(self, owner: object) -> None:
        """Abandon the span when ``owner`` (the stream wrapper) is garbage-collected; until
        it ends, the run's collector holds it as an open stream."""
        self.finalizer = weakref.finalize(owner, self.abandon)
        self.detached.span.collector.hold_stream(self)

    def _release(self) -> None:
        self.registry.discard(self)
        if self.finalizer is not None:
            self.finalizer.detach()
            self.detached.span.collector.release_stream(self)


def end_reason(exc: BaseException) -> str:
    """``cancelled`` for :class:`asyncio.CancelledError`, ``error`` for anything else."""
    return "cancelled" if isinstance(exc, asyncio.CancelledError) else "error"


class _StreamWrapper:
    """Shared part of the sync and async wrappers: the wrapped stream and the span state.

    ``consumed`` is the flavour's ``StreamConsumed``: iterating a stream again after it was
    read (as the OpenAI SDK does to drain a response it stopped reading) raises it, and that
    says nothing about the request, so the span is left to end when the response closes.
    """

    __slots__ = ("_inner", "_state")
    consumed: type[BaseException] = ()  # type: ignore[assignment]

    def __init__(self, inner: Any, state: StreamSpan) -> None:
        self._inner = inner
        self._state = state
        state.watch(self)

    def __getattr__(self, name: str) -> Any:
        if name in ("_inner", "_state"):
            raise AttributeError(name)
        return getattr(self._inner, name)


class SyncStreamMixin(_StreamWrapper):
    """The sync wrapper's behaviour; combined with the flavour's ``SyncByteStream``."""

    __slots__ = ()

    def __iter__(self) -> Iterator[bytes]:
        state = self._state
        try:
            for chunk in self._inner:
                state.chunk(chunk)
                yield chunk
        except GeneratorExit:
            raise
        except self.consumed:
            raise
        except BaseException as exc:
            state.finish(end_reason(exc), exc)
            raise
        state.finish("completed")

    def close(self) -> None:
        state = self._state
        try:
            self._inner.close()
        except BaseException as exc:
            state.finish(end_reason(exc), exc)
            raise
        state.finish("closed")


class AsyncStreamMixin(_StreamWrapper):
    """The async wrapper's behaviour; combined with the flavour's ``AsyncByteStream``."""

    __slots__ = ()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        state = self._state
        iterator = self._inner.__aiter__()
        try:
            async for chunk in iterator:
                state.chunk(chunk)
                yield chunk
        except GeneratorExit:
            raise
        except self.consumed:
            raise
        except BaseException as exc:
            state.finish(end_reason(exc), exc)
            raise
        finally:
            # Close the wrapped iterator as the SDK's own stream does (httpx2 BoundAsyncStream).
            if isinstance(iterator, AsyncGenerator):
                await iterator.aclose()
        state.finish("completed")

    async def aclose(self) -> None:
        state = self._state
        try:
            await self._inner.aclose()
        except BaseException as exc:
            state.finish(end_reason(exc), exc)
            raise
        state.finish("closed")


def stream_types(module: ModuleType) -> tuple[type[SyncStreamMixin], type[AsyncStreamMixin]]:
    """The sync and async stream wrapper classes for one flavour (``httpx`` or ``httpx2``).

    Each is a subclass of the module's ``SyncByteStream``/``AsyncByteStream``,
    which ``Response.iter_raw``/``close`` (and the async forms) check with
    ``isinstance``. Construct them as ``cls(inner_stream, stream_span)``.
    """
    namespace = {"__slots__": (), "__module__": __name__, "consumed": module.StreamConsumed}
    sync = type("InstrumentedSyncStream", (SyncStreamMixin, module.SyncByteStream), namespace)
    asynchronous = type(
        "InstrumentedAsyncStream", (AsyncStreamMixin, module.AsyncByteStream), dict(namespace)
    )
    return sync, asynchronous
