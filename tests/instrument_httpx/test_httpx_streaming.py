"""Streamed responses: the span lasts as long as the body, whatever way the body ends."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Iterator
from types import ModuleType
from typing import Any

import pytest
from httpx_support import Run, async_text_stream, recorded_run, text_stream

from autobench.abp import InstrumentationManager, SpanRecord, SpanStatus
from autobench.core.native import HTTPXCaptureSettings, HTTPXInstrumentation
from autobench.instrument.httpx import create

URL = "https://api.example.com/v1/stream?key=qs-secret"


def _streaming_client(flavour: ModuleType, chunks: int = 5, **headers: str) -> Any:
    def handler(request: Any) -> Any:
        return flavour.Response(200, content=text_stream(chunks), headers=headers)

    return flavour.Client(transport=flavour.MockTransport(handler))


def _async_streaming_client(flavour: ModuleType, chunks: int = 5) -> Any:
    async def handler(request: Any) -> Any:
        return flavour.Response(200, content=async_text_stream(chunks))

    return flavour.AsyncClient(transport=flavour.MockTransport(handler))


def _ended(span: SpanRecord, reason: str, items: int) -> None:
    assert span.attributes["end_reason"] == reason, span.attributes
    assert span.attributes["stream.items"] == items
    if items:
        assert span.attributes["stream.first_item_seconds"] >= 0
    else:
        assert "stream.first_item_seconds" not in span.attributes


def _open_span(run: Run) -> SpanRecord:
    span = run.only_http_span()
    assert span.partial and span.duration is None
    return span


def test_stream_completed(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))
    client = _streaming_client(flavour)
    with recorded_run() as run:
        with client.stream("GET", URL) as response:
            assert response.status_code == 200
            _open_span(run)  # the body is not read yet: the span is still open
            body = b"".join(response.iter_bytes())
        assert body == b"".join(text_stream(5))
    span = run.only_http_span()
    assert not span.partial and span.status is SpanStatus.OK
    _ended(span, "completed", 5)
    assert span.attributes["http.response.body.size"] == len(body)
    assert span.attributes["http.status_code"] == 200
    assert "qs-secret" not in run.trace().model_dump_json()


def test_send_stream_then_read(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))
    client = _streaming_client(flavour, chunks=3)
    with recorded_run() as run:
        response = client.send(client.build_request("GET", URL), stream=True)
        _open_span(run)
        assert response.read() == b"".join(text_stream(3))
        assert response.is_closed and response.is_stream_consumed
        assert response.elapsed.total_seconds() >= 0
    _ended(run.only_http_span(), "completed", 3)


def test_iteration_helpers_are_unchanged(
    flavour: ModuleType, manager: InstrumentationManager
) -> None:
    def handler(request: Any) -> Any:
        return flavour.Response(200, content=iter([b"one\ntw", b"o\nthree\n"]))

    plain = flavour.Client(transport=flavour.MockTransport(handler))
    with plain.stream("GET", URL) as response:
        expected = list(response.iter_lines())
    manager.install(create(None))
    with recorded_run() as run:
        with plain.stream("GET", URL) as response:
            assert list(response.iter_lines()) == expected == ["one", "two", "three"]
        with plain.stream("GET", URL) as response:
            assert "".join(response.iter_text()) == "one\ntwo\nthree\n"
        with plain.stream("GET", URL) as response:
            assert [len(part) for part in response.iter_raw(3)] == [3, 3, 3, 3, 2]
            with pytest.raises(flavour.StreamConsumed):
                list(response.iter_raw())
    assert [span.attributes["end_reason"] for span in run.http_spans()] == ["completed"] * 3


def test_stream_closed_early(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))
    client = _streaming_client(flavour)
    with recorded_run() as run:
        response = client.send(client.build_request("GET", URL), stream=True)
        chunks = response.iter_raw()
        assert next(chunks) == b"a" * 8
        response.close()
        assert response.is_closed
    span = run.only_http_span()
    assert not span.partial and span.status is SpanStatus.OK
    _ended(span, "closed", 1)
    assert "http.response.body.size" not in span.attributes


def test_stream_context_left_early(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))
    client = _streaming_client(flavour)
    with recorded_run() as run:
        with client.stream("GET", URL) as response:
            for _ in response.iter_bytes():
                break
    _ended(run.only_http_span(), "closed", 1)


def test_stream_error(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))
    error = ConnectionResetError("peer went away")

    def failing() -> Iterator[bytes]:
        yield b"first"
        raise error

    def handler(request: Any) -> Any:
        return flavour.Response(200, content=failing())

    client = flavour.Client(transport=flavour.MockTransport(handler))
    with recorded_run() as run:
        with pytest.raises(ConnectionResetError) as raised:
            with client.stream("GET", URL) as response:
                response.read()
    assert raised.value is error
    span = run.only_http_span()
    assert span.status is SpanStatus.ERROR
    assert span.error is not None and span.error.type == "ConnectionResetError"
    _ended(span, "error", 1)


def test_stream_abandoned(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))
    client = _streaming_client(flavour)
    with recorded_run() as run:
        response = client.send(client.build_request("GET", URL), stream=True)
        del response
        gc.collect()
        span = run.only_http_span()
    assert span.partial and span.duration is None
    _ended(span, "abandoned", 0)
    assert span.attributes["http.status_code"] == 200


def test_stream_abandoned_when_uninstalled(
    flavour: ModuleType, manager: InstrumentationManager
) -> None:
    handle = manager.install(create(None))
    client = _streaming_client(flavour, chunks=4)
    with recorded_run() as run:
        response = client.send(client.build_request("GET", URL), stream=True)
        chunks = response.iter_bytes()
        first = next(chunks)
        handle.close()
        span = run.only_http_span()
        assert span.partial
        _ended(span, "abandoned", 1)
        # The response still works exactly as before, now unobserved.
        assert first + b"".join(chunks) == b"".join(text_stream(4))
        assert response.is_closed
    assert run.only_http_span().attributes["end_reason"] == "abandoned"


def test_stream_body_capture_is_bounded(
    flavour: ModuleType, manager: InstrumentationManager
) -> None:
    settings = HTTPXInstrumentation(
        capture=HTTPXCaptureSettings(response_body=True, max_body_bytes=20)
    )
    manager.install(create(settings))
    client = _streaming_client(flavour, chunks=100, **{"content-type": "text/event-stream"})
    with recorded_run() as run:
        with client.stream("GET", URL) as response:
            body = response.read()
    span = run.only_http_span()
    assert span.attributes["http.response.body"] == body[:20].decode()
    assert span.attributes["http.response.body.truncated"] is True
    assert span.attributes["http.response.body.size"] == len(body) == 800


def test_loaded_body_with_stream_true(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))

    def handler(request: Any) -> Any:
        return flavour.Response(200, content=b"already here")

    client = flavour.Client(transport=flavour.MockTransport(handler))
    with recorded_run() as run:
        with client.stream("GET", URL) as response:
            assert response.read() == b"already here"
    span = run.only_http_span()
    assert not span.partial
    assert span.attributes["end_reason"] == "completed"
    assert span.attributes["http.response.body.size"] == len(b"already here")


async def test_async_stream_completed(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))
    async with _async_streaming_client(flavour) as client:
        with recorded_run() as run:
            async with client.stream("GET", URL) as response:
                _open_span(run)
                body = b"".join([chunk async for chunk in response.aiter_bytes()])
    assert body == b"".join(text_stream(5))
    span = run.only_http_span()
    _ended(span, "completed", 5)
    assert span.attributes["http.response.body.size"] == len(body)


async def test_async_stream_aread(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))
    async with _async_streaming_client(flavour, chunks=2) as client:
        with recorded_run() as run:
            response = await client.send(client.build_request("GET", URL), stream=True)
            assert await response.aread() == b"".join(text_stream(2))
            await response.aclose()
    _ended(run.only_http_span(), "completed", 2)


async def test_async_stream_closed_early(
    flavour: ModuleType, manager: InstrumentationManager
) -> None:
    manager.install(create(None))
    async with _async_streaming_client(flavour) as client:
        with recorded_run() as run:
            response = await client.send(client.build_request("GET", URL), stream=True)
            raw = response.aiter_raw()
            assert await raw.__anext__() == b"a" * 8
            await raw.aclose()
            await response.aclose()
    span = run.only_http_span()
    assert span.status is SpanStatus.OK
    _ended(span, "closed", 1)


async def test_async_stream_error(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))
    error = TimeoutError("read stalled")

    async def failing() -> AsyncIterator[bytes]:
        yield b"first"
        yield b"second"
        raise error

    async def handler(request: Any) -> Any:
        return flavour.Response(200, content=failing())

    async with flavour.AsyncClient(transport=flavour.MockTransport(handler)) as client:
        with recorded_run() as run:
            with pytest.raises(TimeoutError) as raised:
                async with client.stream("GET", URL) as response:
                    await response.aread()
    assert raised.value is error
    span = run.only_http_span()
    assert span.status is SpanStatus.ERROR
    _ended(span, "error", 2)


async def test_async_stream_cancelled(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))
    started = asyncio.Event()

    async def stalled() -> AsyncIterator[bytes]:
        yield b"first"
        started.set()
        await asyncio.Event().wait()
        yield b"never"

    async def handler(request: Any) -> Any:
        return flavour.Response(200, content=stalled())

    async with flavour.AsyncClient(transport=flavour.MockTransport(handler)) as client:
        with recorded_run() as run:

            async def consume() -> None:
                async with client.stream("GET", URL) as response:
                    await response.aread()

            task = asyncio.create_task(consume())
            await started.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
    span = run.only_http_span()
    assert span.status is SpanStatus.CANCELLED
    _ended(span, "cancelled", 1)
