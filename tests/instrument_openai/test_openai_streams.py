"""Streamed calls: the span stays open until the stream completes, closes, fails or is lost."""

from __future__ import annotations

import asyncio
import gc

import openai
import pytest
from openai_support import (
    ACCOUNTING_CHAT_USAGE,
    ACCOUNTING_SPAN_USAGE,
    MODEL,
    MODEL_VERSION,
    RESPONSE_EVENT_TYPES,
    RESPONSES_SPAN_USAGE,
    FakeAPI,
    async_client,
    only_span,
    openai_spans,
    recording,
    root_id,
    sync_client,
)

from autobench.abp import InstrumentationManager
from autobench.core.native import OpenAIInstrumentation
from autobench.instrument.openai import create

MESSAGES = [{"role": "user", "content": "Say hello"}]
WITH_USAGE = {"include_usage": True}


@pytest.mark.usefixtures("installed")
def test_a_finished_stream_with_usage() -> None:
    api = FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE)
    client = sync_client(api)
    with recording() as collector:
        stream = client.chat.completions.create(
            model=MODEL, messages=MESSAGES, stream=True, stream_options=WITH_USAGE
        )
        assert type(stream) is openai.Stream and stream is client.last
        (open_span,) = openai_spans(collector)
        assert open_span.partial  # returned, not finished
        texts = [chunk.choices[0].delta.content for chunk in stream if chunk.choices]
    assert texts == ["Hel", "lo", "!", None]
    span = only_span(collector)
    assert span.status == "ok" and not span.partial and span.duration is not None
    assert span.parent == root_id(collector)
    assert span.attributes["end_reason"] == "completed"
    assert span.attributes["stream.items"] == 5  # four chunks and the usage chunk
    assert 0 < span.attributes["stream.first_item_seconds"] <= span.duration
    assert span.attributes["llm.stream"] is True
    assert span.attributes["llm.model.response"] == MODEL_VERSION
    assert span.attributes["llm.response.id"] == "chatcmpl-s"
    assert span.usage == ACCOUNTING_SPAN_USAGE
    # the request and every body chunk were read with the OpenAI span active
    assert api.request_spans == [span.id]
    assert api.chunk_spans and set(api.chunk_spans) == {span.id}


@pytest.mark.usefixtures("installed")
async def test_a_finished_async_stream_with_usage() -> None:
    api = FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE)
    client = async_client(api)
    with recording() as collector:
        stream = await client.chat.completions.create(
            model=MODEL, messages=MESSAGES, stream=True, stream_options=WITH_USAGE
        )
        assert type(stream) is openai.AsyncStream and stream is client.last
        items = [chunk async for chunk in stream]
    assert len(items) == 5
    span = only_span(collector)
    assert span.attributes["end_reason"] == "completed" and span.usage == ACCOUNTING_SPAN_USAGE
    assert set(api.chunk_spans) == {span.id}


@pytest.mark.usefixtures("installed")
def test_a_stream_without_include_usage_has_no_token_counts() -> None:
    with recording() as collector:
        stream = sync_client(FakeAPI()).chat.completions.create(
            model=MODEL, messages=MESSAGES, stream=True
        )
        assert len(list(stream)) == 4
    assert only_span(collector).usage == {"requests": 1}


@pytest.mark.usefixtures("installed")
async def test_a_stream_closed_early() -> None:
    api = FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE)
    with recording() as collector:
        stream = sync_client(api).chat.completions.create(
            model=MODEL, messages=MESSAGES, stream=True, stream_options=WITH_USAGE
        )
        with stream:
            first = next(stream)
        astream = await async_client(api).chat.completions.create(
            model=MODEL, messages=MESSAGES, stream=True
        )
        await astream.__anext__()
        await astream.close()
    assert first.choices[0].delta.content == "Hel"
    spans = openai_spans(collector)
    assert [span.attributes["end_reason"] for span in spans] == ["closed", "closed"]
    for span in spans:
        assert span.status == "ok" and not span.partial
        assert span.attributes["stream.items"] == 1
        assert span.usage == {"requests": 1}  # the usage chunk was never read


@pytest.mark.usefixtures("installed")
async def test_a_stream_raising_mid_stream() -> None:
    api = FakeAPI(stream_error=True)
    with recording() as collector:
        stream = sync_client(api).chat.completions.create(
            model=MODEL, messages=MESSAGES, stream=True
        )
        received = []
        with pytest.raises(openai.APIError, match="overloaded") as raised:
            for chunk in stream:
                received.append(chunk)
        astream = await async_client(api).chat.completions.create(
            model=MODEL, messages=MESSAGES, stream=True
        )
        with pytest.raises(openai.APIError, match="overloaded"):
            async for _ in astream:
                pass
    assert len(received) == 1 and type(raised.value) is openai.APIError
    for span in openai_spans(collector):
        assert span.status == "error" and span.error is not None
        assert span.error.type == "APIError" and span.error.message == "overloaded"
        assert span.attributes["end_reason"] == "error"
        assert span.attributes["stream.items"] == 1


@pytest.mark.usefixtures("installed")
async def test_a_cancelled_request_and_a_cancelled_stream() -> None:
    waiting = async_client(FakeAPI(delay=10))
    slow = async_client(FakeAPI(frame_delay=10))

    async def consume() -> None:
        stream = await slow.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)
        async for _ in stream:
            pass

    with recording() as collector:
        for work in (waiting.chat.completions.create(model=MODEL, messages=MESSAGES), consume()):
            task = asyncio.ensure_future(work)
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
    request, stream = openai_spans(collector)
    assert request.status == "cancelled" and "end_reason" not in request.attributes
    assert stream.status == "cancelled" and stream.attributes["end_reason"] == "cancelled"
    assert stream.attributes["stream.items"] == 1 and not stream.partial


@pytest.mark.usefixtures("installed")
def test_an_abandoned_stream_is_partial() -> None:
    with recording() as collector:
        stream = sync_client(FakeAPI()).chat.completions.create(
            model=MODEL, messages=MESSAGES, stream=True
        )
        next(stream)
        del stream
        gc.collect()
        span = only_span(collector)
    assert span.partial and span.duration is None and span.status == "cancelled"
    assert span.attributes["end_reason"] == "abandoned"
    assert span.attributes["stream.items"] == 1
    assert span.usage == {"requests": 1}


def test_closing_the_manager_abandons_open_streams(manager: InstrumentationManager) -> None:
    manager.install(create(None))
    with recording() as collector:
        stream = sync_client(FakeAPI()).chat.completions.create(
            model=MODEL, messages=MESSAGES, stream=True
        )
        next(stream)
        manager.close()
        assert only_span(collector).attributes["end_reason"] == "abandoned"
        assert len(list(stream)) == 3  # the stream itself still works
    assert only_span(collector).partial


@pytest.mark.usefixtures("installed")
async def test_the_chat_stream_helper_is_recorded_once() -> None:
    api = FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE)
    with recording() as collector:
        with sync_client(api).chat.completions.stream(
            model=MODEL, messages=MESSAGES, stream_options=WITH_USAGE
        ) as stream:
            completion = stream.get_final_completion()
        async with async_client(api).chat.completions.stream(
            model=MODEL, messages=MESSAGES, stream_options=WITH_USAGE
        ) as astream:
            acompletion = await astream.get_final_completion()
    assert completion.choices[0].message.content == "Hello!"
    assert acompletion.choices[0].message.content == "Hello!"
    spans = openai_spans(collector)
    assert len(spans) == 2
    for span in spans:
        assert span.operation == "openai.chat.completions"
        assert span.attributes["end_reason"] == "completed"
        assert span.usage == ACCOUNTING_SPAN_USAGE


@pytest.mark.usefixtures("installed")
async def test_a_stream_helper_closed_early() -> None:
    api = FakeAPI()
    with recording() as collector:
        with sync_client(api).chat.completions.stream(model=MODEL, messages=MESSAGES) as stream:
            next(stream)
        async with async_client(api).responses.stream(model=MODEL, input="x") as astream:
            await astream.__anext__()
    spans = openai_spans(collector)
    assert [span.operation for span in spans] == ["openai.chat.completions", "openai.responses"]
    assert [span.attributes["end_reason"] for span in spans] == ["closed", "closed"]


@pytest.mark.usefixtures("installed")
async def test_response_streams_and_the_responses_helper() -> None:
    api = FakeAPI()
    client, aclient = sync_client(api), async_client(api)
    with recording() as collector:
        events = [
            event.type for event in client.responses.create(model=MODEL, input="x", stream=True)
        ]
        with client.responses.stream(model=MODEL, input="x") as stream:
            final = stream.get_final_response()
        async with aclient.responses.stream(model=MODEL, input="x") as astream:
            afinal = await astream.get_final_response()
    assert events == RESPONSE_EVENT_TYPES
    assert final.output_text == "Hi there" and afinal.output_text == "Hi there"
    spans = openai_spans(collector)
    assert [span.operation for span in spans] == ["openai.responses"] * 3
    for span in spans:
        assert span.attributes["end_reason"] == "completed"
        assert span.attributes["stream.items"] == len(RESPONSE_EVENT_TYPES)
        assert span.attributes["llm.response.id"] == "resp_1"
        assert span.attributes["llm.response.status"] == "completed"
        assert span.usage == RESPONSES_SPAN_USAGE


def test_stream_output_capture(manager: InstrumentationManager) -> None:
    manager.install(create(OpenAIInstrumentation(capture_output=True)))
    client = sync_client(FakeAPI())
    with recording() as collector:
        for _ in client.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True):
            pass
        with client.responses.stream(model=MODEL, input="x") as stream:
            stream.until_done()
    chat, responses = openai_spans(collector)
    assert chat.output == [{"role": "assistant", "content": "Hello!", "finish_reason": "stop"}]
    assert responses.output == "Hi there"
    assert chat.input is None  # input capture stays off
