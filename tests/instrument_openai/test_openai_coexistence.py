"""The OpenAI layer beside another instrumentation of the same SDK, installed before or after it.

An application may instrument ``openai`` itself: ``OpenAIInstrumentor().instrument()`` of
opentelemetry-instrumentation-openai-v2 (which returns its own ``ChatStreamWrapper`` for
``stream=True``), Logfire's ``instrument_openai`` (which substitutes a ``Stream`` subclass),
or a wrapt ``ObjectProxy`` around the returned stream. Each case drives the real client over
``MockTransport`` with the other instrumentation installed first and last, and the span our
layer records must be exactly the one it records alone: same model, tokens, request count,
end reason and diagnostics, one span per call. The other instrumentation is taken off after
each test, in the reverse order of installation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from typing import Any

import logfire
import openai
import pytest
import wrapt
from openai.resources.chat.completions import AsyncCompletions, Completions
from openai_support import (
    ACCOUNTING_CHAT_USAGE,
    ACCOUNTING_SPAN_USAGE,
    MODEL,
    MODEL_VERSION,
    FakeAPI,
    async_client,
    only_span,
    openai_spans,
    recording,
    sync_client,
)
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

from autobench.abp import InstrumentationManager, SpanRecord, TraceCollector
from autobench.instrument.openai import create
from autobench.instrument.openai._calls import STREAM_UNTRACKED

MESSAGES = [{"role": "user", "content": "Say hello"}]
WITH_USAGE = {"include_usage": True}
TIMINGS = {"stream.first_item_seconds"}


@contextmanager
def _openai_v2() -> Iterator[None]:
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument()
    try:
        yield
    finally:
        instrumentor.uninstrument()


@contextmanager
def _logfire() -> Iterator[None]:
    instance = logfire.configure(local=True, send_to_logfire=False, console=False, metrics=False)
    with instance.instrument_openai():
        yield


def _proxy_stream(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
    result = wrapped(*args, **kwargs)
    return wrapt.ObjectProxy(result) if kwargs.get("stream") else result


class _AsyncStreamProxy(wrapt.ObjectProxy):  # type: ignore[misc]
    """``ObjectProxy`` forwards no ``__aiter__``; an application proxy of an async stream
    adds it."""

    def __aiter__(self) -> Any:
        return self.__wrapped__.__aiter__()


async def _proxy_async_stream(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
    result = await wrapped(*args, **kwargs)
    return _AsyncStreamProxy(result) if kwargs.get("stream") else result


@contextmanager
def _wrapt_proxy() -> Iterator[None]:
    """An application's own wrapt patch returning an ``ObjectProxy`` around each stream."""
    originals = {cls: cls.__dict__["create"] for cls in (Completions, AsyncCompletions)}
    wrapt.wrap_function_wrapper(Completions, "create", _proxy_stream)
    wrapt.wrap_function_wrapper(AsyncCompletions, "create", _proxy_async_stream)
    try:
        yield
    finally:
        for cls, original in originals.items():
            setattr(cls, "create", original)  # noqa: B010


@contextmanager
def _openai_v2_and_logfire() -> Iterator[None]:
    with _logfire(), _openai_v2():
        yield


OTHERS: dict[str, Callable[[], AbstractContextManager[None]]] = {
    "openai-v2": _openai_v2,
    "logfire": _logfire,
    "wrapt-proxy": _wrapt_proxy,
    "openai-v2+logfire": _openai_v2_and_logfire,
}


@contextmanager
def instrumented(other: str | None, order: str) -> Iterator[None]:
    """Our layer and ``other`` installed (``order``: which goes first); taken off in reverse."""
    with ExitStack() as stack:
        if other is not None and order == "other-first":
            stack.enter_context(OTHERS[other]())
        manager = stack.enter_context(InstrumentationManager())
        manager.install(create(None))
        if other is not None and order == "ours-first":
            stack.enter_context(OTHERS[other]())
        yield


def observed(collector: TraceCollector) -> dict[str, Any]:
    """What the report is made of: the one OpenAI span without its timings, and the
    diagnostics of the trace."""
    span: SpanRecord = only_span(collector)
    attributes = {key: value for key, value in span.attributes.items() if key not in TIMINGS}
    codes = sorted(diagnostic.code for diagnostic in collector.materialize().diagnostics)
    return {
        "status": span.status,
        "partial": span.partial,
        "attributes": attributes,
        "usage": span.usage,
        "diagnostics": codes,
    }


def _sync_stream(
    options: dict[str, Any] | None, how: str = "plain"
) -> tuple[dict[str, Any], FakeAPI]:
    """One streamed chat call read to its end, made ``how``: ``plain`` (``create``), ``raw``
    (``with_raw_response.create`` then ``parse()``) or ``streaming``
    (``with_streaming_response.create`` then ``parse()`` inside its context)."""
    api = FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE)
    client = sync_client(api)
    extra = {} if options is None else {"stream_options": options}
    request = {"model": MODEL, "messages": MESSAGES, "stream": True, **extra}
    completions = client.chat.completions
    with recording() as collector:
        if how == "streaming":
            with completions.with_streaming_response.create(**request) as response:
                texts = [
                    chunk.choices[0].delta.content for chunk in response.parse() if chunk.choices
                ]
        else:
            made = completions.with_raw_response.create(**request) if how == "raw" else None
            stream = made.parse() if made is not None else completions.create(**request)
            texts = [chunk.choices[0].delta.content for chunk in stream if chunk.choices]
    assert texts == ["Hel", "lo", "!", None]
    return observed(collector), api


async def _async_stream(
    options: dict[str, Any] | None, how: str = "plain"
) -> tuple[dict[str, Any], FakeAPI]:
    """:func:`_sync_stream` with the async client (``AsyncAPIResponse.parse`` is awaited)."""
    api = FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE)
    client = async_client(api)
    extra = {} if options is None else {"stream_options": options}
    request = {"model": MODEL, "messages": MESSAGES, "stream": True, **extra}
    completions = client.chat.completions
    with recording() as collector:
        if how == "streaming":
            async with completions.with_streaming_response.create(**request) as response:
                stream = await response.parse()
                texts = [chunk.choices[0].delta.content async for chunk in stream if chunk.choices]
        else:
            if how == "raw":
                stream = (await completions.with_raw_response.create(**request)).parse()
            else:
                stream = await completions.create(**request)
            texts = [chunk.choices[0].delta.content async for chunk in stream if chunk.choices]
    assert texts == ["Hel", "lo", "!", None]
    return observed(collector), api


EXPECTED = {
    "status": "ok",
    "partial": False,
    "attributes": {
        "llm.provider": "openai",
        "server.address": "api.openai.com",
        "llm.stream": True,
        "llm.model.requested": MODEL,
        "llm.model.response": MODEL_VERSION,
        "llm.response.id": "chatcmpl-s",
        "end_reason": "completed",
        "stream.items": 5,
    },
    "usage": ACCOUNTING_SPAN_USAGE,
    "diagnostics": [],
}

COMBINATIONS = [
    pytest.param(other, order, id=f"{other}-{order}")
    for other in OTHERS
    for order in ("other-first", "ours-first")
]


def test_alone_the_stream_is_measured_exactly() -> None:
    with instrumented(None, "ours-first"):
        alone, api = _sync_stream(WITH_USAGE)
    assert alone == EXPECTED and len(api.requests) == 1


@pytest.mark.parametrize(("other", "order"), COMBINATIONS)
def test_a_stream_under_another_instrumentation(other: str, order: str) -> None:
    with instrumented(other, order):
        seen, api = _sync_stream(WITH_USAGE)
    assert seen == EXPECTED
    assert len(api.requests) == 1


@pytest.mark.parametrize(("other", "order"), COMBINATIONS)
async def test_an_async_stream_under_another_instrumentation(other: str, order: str) -> None:
    with instrumented(other, order):
        seen, api = await _async_stream(WITH_USAGE)
    assert seen == EXPECTED
    assert len(api.requests) == 1


@pytest.mark.parametrize("how", ["raw", "streaming"])
def test_a_raw_stream_is_followed_alone_and_in_every_order(how: str) -> None:
    """``with_raw_response`` / ``with_streaming_response`` with ``stream=True``: the span
    follows the stream ``parse()`` makes, alone and beside each other instrumentation,
    installed before or after ours (openai-v2 parses the raw response itself)."""
    with instrumented(None, "ours-first"):
        alone, _ = _sync_stream(WITH_USAGE, how)
    assert alone == EXPECTED
    for other, order in [param.values for param in COMBINATIONS]:
        with instrumented(other, order):
            seen, api = _sync_stream(WITH_USAGE, how)
        assert (other, order, seen) == (other, order, EXPECTED)
        assert len(api.requests) == 1


@pytest.mark.parametrize("how", ["raw", "streaming"])
async def test_an_async_raw_stream_is_followed_alone_and_in_every_order(how: str) -> None:
    with instrumented(None, "ours-first"):
        alone, _ = await _async_stream(WITH_USAGE, how)
    assert alone == EXPECTED
    for other, order in [param.values for param in COMBINATIONS]:
        if how == "streaming" and "openai-v2" in other:
            continue  # openai-v2 alone breaks it: its wrapper never awaits AsyncAPIResponse.parse
        with instrumented(other, order):
            seen, api = await _async_stream(WITH_USAGE, how)
        assert (other, order, seen) == (other, order, EXPECTED)
        assert len(api.requests) == 1


@pytest.mark.parametrize(("other", "order"), COMBINATIONS)
def test_a_stream_without_usage_is_unmeasured_in_every_order(other: str, order: str) -> None:
    with instrumented(None, "ours-first"):
        alone, _ = _sync_stream(None)
    with instrumented(other, order):
        seen, _ = _sync_stream(None)
    assert seen == alone
    assert seen["usage"] == {"requests": 1}
    assert seen["diagnostics"] == ["instrumentation.usage_unmeasured"]


@pytest.mark.parametrize("order", ["other-first", "ours-first"])
def test_closing_the_openai_v2_wrapper_ends_our_span(order: str) -> None:
    api = FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE)
    client = sync_client(api)
    with instrumented("openai-v2", order), recording() as collector:
        stream = client.chat.completions.create(
            model=MODEL, messages=MESSAGES, stream=True, stream_options=WITH_USAGE
        )
        assert not isinstance(stream, openai.Stream)  # the other library's wrapper
        next(iter(stream))
        stream.close()
        (span,) = openai_spans(collector)
        assert not span.partial  # ended by the close, before the run ends
    span = only_span(collector)
    assert span.attributes["end_reason"] == "closed"
    assert span.attributes["stream.items"] == 1
    assert span.attributes["llm.model.response"] == MODEL_VERSION
    assert span.usage == {"requests": 1}


def _opaque(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
    result = wrapped(*args, **kwargs)
    if not kwargs.get("stream"):
        return result
    return (chunk for chunk in result)  # holds the stream only in a generator frame


def test_a_wrapper_hiding_the_stream_is_reported_not_silent() -> None:
    api = FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE)
    client = sync_client(api)
    original = Completions.__dict__["create"]
    wrapt.wrap_function_wrapper(Completions, "create", _opaque)
    try:
        with instrumented(None, "ours-first"), recording() as collector:
            chunks = list(
                client.chat.completions.create(
                    model=MODEL, messages=MESSAGES, stream=True, stream_options=WITH_USAGE
                )
            )
    finally:
        setattr(Completions, "create", original)  # noqa: B010
    assert len(chunks) == 5
    span = only_span(collector)
    assert span.usage == {"requests": 1}
    codes = [diagnostic.code for diagnostic in collector.materialize().diagnostics]
    assert codes == [STREAM_UNTRACKED]
