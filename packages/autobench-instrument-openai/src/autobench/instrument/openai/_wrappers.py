"""The wrappers :class:`~autobench.abp._patching.MethodPatch` installs on the SDK classes.

Request methods (``create``/``parse``): outside a run, while suppressed, or
when no installation is open they call straight through. Otherwise the span
of the call is bound as the active span for exactly the SDK's own work (the
request, its retries, response parsing) and the result or exception is
handed back untouched. A context-local flag marks a call in progress: a
wrapper reached again inside it (two stacked installations, a helper calling
``create``) calls straight through, so each logical call is recorded once.

Asynchronous resources come in two forms: ``AsyncResponses.create`` is a
coroutine function, while ``AsyncCompletions.create`` is a plain function
returning a coroutine (``openai._utils.required_args`` wraps it). Each keeps its
form: argument errors still raise where the SDK raises them, and the span
opens when the coroutine is awaited, in the awaiting task's context (the
async stream helpers create the coroutine in ``.stream()`` and await it in
``__aenter__``).

``parse`` of the HTTP response classes moves the span of a streamed raw call to the
stream it returns (``_streams``).

``close`` methods of streams and stream helpers end the span of a stream that
is still open with reason ``closed`` (after the SDK closed the response, with
the span bound so the HTTP layer's end nests under it).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from typing import Any

from autobench.abp._detached import bind_span, unbind_span
from autobench.abp._patching import MethodPatch, WrapperFactory
from autobench.abp._streams import end_reason_for
from autobench.instrument.openai._apis import Api
from autobench.instrument.openai._calls import Installation, current
from autobench.instrument.openai._streams import (
    StreamTracker,
    follow_parsed,
    open_tracker,
    parse_failed,
)

_in_call: ContextVar[bool] = ContextVar("autobench_openai_in_call", default=False)


async def _traced(
    installation: Installation,
    api: Api,
    resource: Any,
    kwargs: Mapping[str, Any],
    awaitable: Awaitable[Any],
) -> Any:
    if _in_call.get():
        return await awaitable
    detached = installation.open(api, resource, kwargs)
    if detached is None:
        return await awaitable
    span_token = bind_span(detached.span)
    call_token = _in_call.set(True)
    try:
        result = await awaitable
    except BaseException as exc:
        installation.fail(detached, kwargs, exc)
        raise
    finally:
        _in_call.reset(call_token)
        unbind_span(span_token)
    installation.settle(api, detached, kwargs, result)
    return result


def _sync_call(api: Api, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        installation = current()
        if installation is None or _in_call.get():
            return function(self, *args, **kwargs)
        detached = installation.open(api, self, kwargs)
        if detached is None:
            return function(self, *args, **kwargs)
        span_token = bind_span(detached.span)
        call_token = _in_call.set(True)
        try:
            result = function(self, *args, **kwargs)
        except BaseException as exc:
            installation.fail(detached, kwargs, exc)
            raise
        finally:
            _in_call.reset(call_token)
            unbind_span(span_token)
        installation.settle(api, detached, kwargs, result)
        return result

    return call


def _async_call(api: Api, function: Callable[..., Any]) -> Callable[..., Any]:
    if inspect.iscoroutinefunction(function):

        @functools.wraps(function)
        async def coroutine_call(self: Any, *args: Any, **kwargs: Any) -> Any:
            installation = current()
            if installation is None:
                return await function(self, *args, **kwargs)
            return await _traced(installation, api, self, kwargs, function(self, *args, **kwargs))

        return coroutine_call

    @functools.wraps(function)
    def awaitable_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        awaitable = function(self, *args, **kwargs)
        installation = current()
        if installation is None:
            return awaitable
        return _traced(installation, api, self, kwargs, awaitable)

    return awaitable_call


def call_wrapper(api: Api, *, asynchronous: bool) -> WrapperFactory:
    """The :class:`MethodPatch` factory of a request method of ``api``."""

    def make(function: Callable[..., Any], kind: str, patch: MethodPatch) -> Callable[..., Any]:
        return _async_call(api, function) if asynchronous else _sync_call(api, function)

    return make


def _tracker(stream: Any, helper: bool) -> StreamTracker | None:
    if helper:
        stream = getattr(stream, "_raw_stream", None)
        if stream is None:
            return None
    return open_tracker(stream)


def close_wrapper(*, helper: bool) -> WrapperFactory:
    """The :class:`MethodPatch` factory of a stream's ``close`` (``helper``: the object
    wraps an SDK stream in ``_raw_stream``, as the ``.stream()`` helpers do)."""

    def make(function: Callable[..., Any], kind: str, patch: MethodPatch) -> Callable[..., Any]:
        if inspect.iscoroutinefunction(function):

            @functools.wraps(function)
            async def aclose(self: Any, *args: Any, **kwargs: Any) -> Any:
                tracker = _tracker(self, helper)
                if tracker is None:
                    return await function(self, *args, **kwargs)
                token = bind_span(tracker.detached.span)
                try:
                    result = await function(self, *args, **kwargs)
                except BaseException as exc:
                    tracker.finish(end_reason_for(exc), exc)
                    raise
                finally:
                    unbind_span(token)
                tracker.finish("closed")
                return result

            return aclose

        @functools.wraps(function)
        def close(self: Any, *args: Any, **kwargs: Any) -> Any:
            tracker = _tracker(self, helper)
            if tracker is None:
                return function(self, *args, **kwargs)
            token = bind_span(tracker.detached.span)
            try:
                result = function(self, *args, **kwargs)
            except BaseException as exc:
                tracker.finish(end_reason_for(exc), exc)
                raise
            finally:
                unbind_span(token)
            tracker.finish("closed")
            return result

        return close

    return make


def parse_wrapper(streams: tuple[type, ...]) -> WrapperFactory:
    """The :class:`MethodPatch` factory of an HTTP response's ``parse`` (sync, or async for
    ``AsyncAPIResponse``): the result is handed back unchanged, after the span of the
    streamed call that returned the response (if one waits) moves to the stream in it
    (``_streams.follow_parsed``); a ``parse`` that raises ends that span with the error."""

    def make(function: Callable[..., Any], kind: str, patch: MethodPatch) -> Callable[..., Any]:
        if inspect.iscoroutinefunction(function):

            @functools.wraps(function)
            async def aparse(self: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    result = await function(self, *args, **kwargs)
                except BaseException as exc:
                    parse_failed(self, exc)
                    raise
                follow_parsed(self, result, streams)
                return result

            return aparse

        @functools.wraps(function)
        def parse(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                result = function(self, *args, **kwargs)
            except BaseException as exc:
                parse_failed(self, exc)
                raise
            follow_parsed(self, result, streams)
            return result

        return parse

    return make
