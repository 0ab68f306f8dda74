"""A fake OpenAI API behind ``httpx2.MockTransport``, real SSE bodies, and trace helpers.

The tests drive the real ``openai.OpenAI`` / ``openai.AsyncOpenAI`` clients; only
the transport is replaced. :class:`FakeAPI` answers ``/chat/completions``,
``/responses`` and ``/embeddings`` with JSON or ``text/event-stream`` bodies and
records, for every request and every streamed body chunk, which ABP span was
active at that moment (the parent an HTTP-layer span would get).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx2
import openai

from autobench.abp import SpanRecord, TraceCollector, active_span, bind_collector, start_span

MODEL = "gpt-test"
MODEL_VERSION = "gpt-test-2026-01-01"

ACCOUNTING_CHAT_USAGE = {
    "prompt_tokens": 1000,
    "completion_tokens": 200,
    "total_tokens": 1200,
    "prompt_tokens_details": {"cached_tokens": 800},
    "completion_tokens_details": {"reasoning_tokens": 50},
}
"""The accounting example: 1,000 prompt tokens (800 cached), 200 completion (50 reasoning)."""

ACCOUNTING_SPAN_USAGE = {
    "requests": 1,
    "input_tokens": 1000,
    "output_tokens": 200,
    "cache_read_tokens": 800,
    "reasoning_tokens": 50,
}


def chat_completion(content: str = "Hello!", usage: dict[str, Any] | None = None) -> dict[str, Any]:
    """A ``chat.completion`` JSON body."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": MODEL_VERSION,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": usage or {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
    }


def chat_chunks(parts: list[str], usage: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` events of a stream; a final usage-only chunk when given."""
    chunks: list[dict[str, Any]] = []
    for index, text in enumerate(parts):
        delta: dict[str, Any] = {"content": text}
        if index == 0:
            delta["role"] = "assistant"
        chunks.append(
            {
                "id": "chatcmpl-s",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": MODEL_VERSION,
                "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
            }
        )
    chunks.append(
        {
            "id": "chatcmpl-s",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": MODEL_VERSION,
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        }
    )
    if usage is not None:
        chunks.append(
            {
                "id": "chatcmpl-s",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": MODEL_VERSION,
                "choices": [],
                "usage": usage,
            }
        )
    return chunks


def response_object(text: str = "Hi there", status: str = "completed") -> dict[str, Any]:
    """A Responses API ``response`` JSON object."""
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": MODEL_VERSION,
        "status": status,
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 40,
            "input_tokens_details": {"cached_tokens": 10, "cache_write_tokens": 0},
            "output_tokens": 9,
            "output_tokens_details": {"reasoning_tokens": 4},
            "total_tokens": 49,
        },
    }


RESPONSES_SPAN_USAGE = {
    "requests": 1,
    "input_tokens": 40,
    "output_tokens": 9,
    "cache_read_tokens": 10,
    "reasoning_tokens": 4,  # the payload's cache_write_tokens: 0 is a subset count of zero
}


def response_events(text: str = "Hi there") -> list[dict[str, Any]]:
    """The events of a streamed response, as the API sends them: created, the message
    item and its text part added, two text deltas, the part and item done, completed."""
    created = response_object(text, status="in_progress") | {"output": [], "usage": None}
    message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress"}
    empty_part = {"type": "output_text", "text": "", "annotations": []}
    full_part = {"type": "output_text", "text": text, "annotations": []}
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    half = len(text) // 2
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": created},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": message | {"content": []},
        },
        {"type": "response.content_part.added", **where, "part": empty_part},
        {"type": "response.output_text.delta", **where, "delta": text[:half], "logprobs": []},
        {"type": "response.output_text.delta", **where, "delta": text[half:], "logprobs": []},
        {"type": "response.output_text.done", **where, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **where, "part": full_part},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": message | {"status": "completed", "content": [full_part]},
        },
        {"type": "response.completed", "response": response_object(text)},
    ]
    return [event | {"sequence_number": number} for number, event in enumerate(events)]


RESPONSE_EVENT_TYPES = [event["type"] for event in response_events()]


def embeddings_body(count: int = 2, dimensions: int = 3) -> dict[str, Any]:
    """A ``list`` of embeddings JSON body."""
    return {
        "object": "list",
        "model": "text-embedding-test",
        "data": [
            {"object": "embedding", "index": index, "embedding": [0.5] * dimensions}
            for index in range(count)
        ],
        "usage": {"prompt_tokens": 7, "total_tokens": 7},
    }


def sse(events: list[dict[str, Any]], *, done: bool = True) -> list[bytes]:
    """Server-sent-event frames of ``events`` (``data: {json}``), then ``data: [DONE]``."""
    frames = [f"data: {json.dumps(event)}\n\n".encode() for event in events]
    if done:
        frames.append(b"data: [DONE]\n\n")
    return frames


def _active_id() -> str | None:
    span = active_span()
    return None if span is None else span.id


@dataclass
class FakeAPI:
    """The request handler of a ``MockTransport``; see the module docstring.

    ``status``/``error_body`` make every request fail with that HTTP status;
    ``stream_error`` ends each streamed body with an SSE ``error`` event after
    the first chunk (the SDK raises ``openai.APIError`` mid-stream); ``raises``
    is raised by the transport itself. The async handler waits ``delay`` seconds
    before answering and ``frame_delay`` seconds after each streamed frame. ``chat_usage`` is the usage of chat
    answers (and of the final chunk of a stream that asked for it).
    """

    chat_usage: dict[str, Any] | None = None
    status: int = 200
    error_body: dict[str, Any] | None = None
    stream_error: bool = False
    raises: BaseException | None = None
    delay: float = 0.0
    frame_delay: float = 0.0
    requests: list[httpx2.Request] = field(default_factory=list)
    request_spans: list[str | None] = field(default_factory=list)
    chunk_spans: list[str | None] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    responses: list[httpx2.Response] = field(default_factory=list)

    def _answer(self, request: httpx2.Request) -> tuple[int, Any, list[bytes] | None]:
        body = json.loads(request.content or b"{}")
        self.bodies.append(body)
        if self.status != 200:
            return self.status, self.error_body or {"error": {"message": "failed"}}, None
        path = request.url.path
        streamed = body.get("stream") is True
        if path.endswith("/embeddings"):
            return 200, embeddings_body(), None
        if path.endswith("/responses"):
            return 200, response_object(), sse(response_events()) if streamed else None
        include = (body.get("stream_options") or {}).get("include_usage") is True
        usage = self.chat_usage or {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
        if not streamed:
            return 200, chat_completion(usage=usage), None
        chunks = chat_chunks(["Hel", "lo", "!"], usage if include else None)
        if self.stream_error:
            frames = [*sse(chunks[:1], done=False), *sse([{"error": {"message": "overloaded"}}])]
            return 200, None, frames
        return 200, None, sse(chunks)

    def _frames(self, frames: list[bytes]) -> Iterator[bytes]:
        for frame in frames:
            self.chunk_spans.append(_active_id())
            yield frame

    async def _aframes(self, frames: list[bytes]) -> AsyncIterator[bytes]:
        for frame in frames:
            self.chunk_spans.append(_active_id())
            yield frame
            if self.frame_delay:
                await asyncio.sleep(self.frame_delay)

    def _response(self, request: httpx2.Request, stream: Any) -> httpx2.Response:
        status, payload, frames = self._answer(request)
        if frames is not None:
            response = httpx2.Response(
                status, headers={"content-type": "text/event-stream"}, content=stream(frames)
            )
        else:
            response = httpx2.Response(status, json=payload)
        self.responses.append(response)
        return response

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        """The sync handler."""
        self.requests.append(request)
        self.request_spans.append(_active_id())
        if self.raises is not None:
            raise self.raises
        return self._response(request, self._frames)

    async def ahandle(self, request: httpx2.Request) -> httpx2.Response:
        """The async handler."""
        self.requests.append(request)
        self.request_spans.append(_active_id())
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.raises is not None:
            raise self.raises
        return self._response(request, self._aframes)


class RecordingOpenAI(openai.OpenAI):
    """The real client, remembering what its ``post`` returned (to check identity)."""

    last: Any = None

    def post(self, *args: Any, **kwargs: Any) -> Any:
        self.last = super().post(*args, **kwargs)
        return self.last


class RecordingAsyncOpenAI(openai.AsyncOpenAI):
    """The real async client, remembering what its ``post`` returned."""

    last: Any = None

    async def post(self, *args: Any, **kwargs: Any) -> Any:
        self.last = await super().post(*args, **kwargs)
        return self.last


API_KEY = "sk-autobench-test-0123456789abcdef"


def sync_client(api: FakeAPI, **options: Any) -> RecordingOpenAI:
    """A real sync client over ``api`` (no retries, no network)."""
    options.setdefault("api_key", API_KEY)
    options.setdefault("max_retries", 0)
    transport = httpx2.MockTransport(api.handle)
    return RecordingOpenAI(http_client=httpx2.Client(transport=transport), **options)


def async_client(api: FakeAPI, **options: Any) -> RecordingAsyncOpenAI:
    """A real async client over ``api`` (no retries, no network)."""
    options.setdefault("api_key", API_KEY)
    options.setdefault("max_retries", 0)
    transport = httpx2.MockTransport(api.ahandle)
    return RecordingAsyncOpenAI(http_client=httpx2.AsyncClient(transport=transport), **options)


@contextmanager
def recording() -> Iterator[TraceCollector]:
    """A run: a bound collector with a root ``benchmark.run`` span."""
    collector = TraceCollector()
    with bind_collector(collector), start_span("benchmark.run", kind="task"):
        yield collector


def openai_spans(collector: TraceCollector) -> list[SpanRecord]:
    """The spans of the OpenAI instrumentor, in start order."""
    return [span for span in collector.materialize().spans if span.scope == "openai"]


def only_span(collector: TraceCollector) -> SpanRecord:
    """The one OpenAI span of the trace (fails when there are more or none)."""
    (span,) = openai_spans(collector)
    return span


def root_id(collector: TraceCollector) -> str:
    """The id of the run's root span."""
    return collector.materialize().spans[0].id
