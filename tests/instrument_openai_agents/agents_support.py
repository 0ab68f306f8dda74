"""Offline OpenAI Agents workflows: a scripted model of our own, a fake OpenAI API, helpers.

Two ways to drive the real SDK without a network:

* :class:`ScriptedModel`, an ``agents.models.interface.Model`` of the test that answers
  each call with the next :class:`ModelResponse` of its script (or, streamed, with one
  ``response.completed`` event) and traces like the SDK's own models do (one
  ``generation`` span per call, with the model name and usage);
* the SDK's own ``OpenAIResponsesModel`` / ``OpenAIChatCompletionsModel`` over a real
  ``openai.AsyncOpenAI`` whose ``httpx2`` transport is a ``MockTransport`` answering from
  :class:`FakeOpenAI` (the OpenAI SDK 3.x sends through ``httpx2``).
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
from agents import ModelResponse, Usage
from agents.models.interface import Model
from agents.tracing import generation_span, get_trace_provider
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from openai.types.responses.response_usage import (
    InputTokensDetails,
    OutputTokensDetails,
    ResponseUsage,
)

from autobench.abp import SpanRecord, Trace, TraceCollector, bind_collector, start_span

MODEL = "offline-mini"
API_MODEL = "gpt-test"
API_MODEL_VERSION = "gpt-test-2026-01-01"


def message(text: str) -> ResponseOutputMessage:
    """An assistant message output item."""
    return ResponseOutputMessage(
        id="msg_1",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def tool_call(name: str, arguments: dict[str, Any], call_id: str = "call_1") -> Any:
    """A function tool call output item."""
    return ResponseFunctionToolCall(
        id=f"fc_{call_id}",
        call_id=call_id,
        type="function_call",
        name=name,
        arguments=json.dumps(arguments),
    )


def usage(input_tokens: int, output_tokens: int, cached: int = 0, reasoning: int = 0) -> Usage:
    """The SDK usage of one call."""
    return Usage(
        requests=1,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
        input_tokens_details=InputTokensDetails(cached_tokens=cached, cache_write_tokens=0),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=reasoning),
    )


class ScriptedModel(Model):
    """Answers call ``n`` with ``script[n]``: a list of output items, or an exception to raise.

    Every call opens a ``generation`` span (as the SDK's models do) with the model name,
    the usage of the answer and, when the SDK includes data, the input and the output.
    """

    def __init__(
        self,
        script: list[Any],
        *,
        name: str = MODEL,
        tokens: tuple[int, int] = (10, 2),
        delay: float = 0.0,
    ) -> None:
        self.script = list(script)
        self.name = name
        self.tokens = tokens
        self.delay = delay
        self.calls = 0

    async def get_response(
        self,
        system_instructions: str | None,
        input: Any,
        model_settings: Any,
        tools: Any,
        output_schema: Any,
        handoffs: Any,
        tracing: Any,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: Any = None,
    ) -> ModelResponse:
        step = self.script[min(self.calls, len(self.script) - 1)]
        self.calls += 1
        with generation_span(model=self.name, disabled=tracing.is_disabled()) as span:
            if self.delay:
                await asyncio.sleep(self.delay)  # lets concurrent runs interleave
            if isinstance(step, BaseException):
                # as the SDK's models do: the error on the span, then raised unchanged
                span.set_error({"message": "Error getting response", "data": {"error": str(step)}})
                raise step
            answer = usage(*self.tokens)
            span.span_data.usage = {
                "input_tokens": answer.input_tokens,
                "output_tokens": answer.output_tokens,
            }
            if tracing.include_data():
                span.span_data.input = [{"role": "user", "content": str(input)}]
                span.span_data.output = [item.model_dump() for item in step]
            return ModelResponse(output=list(step), usage=answer, response_id=None)

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        """The next step as one ``response.completed`` event, inside a ``generation`` span."""
        step = self.script[min(self.calls, len(self.script) - 1)]
        self.calls += 1
        with generation_span(model=self.name) as span:
            span.span_data.usage = {"input_tokens": self.tokens[0], "output_tokens": self.tokens[1]}
            response = Response(
                id=f"resp_{self.calls}",
                created_at=0,
                model=self.name,
                object="response",
                output=list(step),
                parallel_tool_calls=True,
                tool_choice="auto",
                tools=[],
                usage=ResponseUsage(
                    input_tokens=self.tokens[0],
                    output_tokens=self.tokens[1],
                    total_tokens=sum(self.tokens),
                    input_tokens_details=InputTokensDetails(cached_tokens=0, cache_write_tokens=0),
                    output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
                ),
            )
            yield ResponseCompletedEvent(
                type="response.completed", response=response, sequence_number=0
            )


RESPONSES_USAGE = {
    "input_tokens": 40,
    "input_tokens_details": {"cached_tokens": 10},
    "output_tokens": 9,
    "output_tokens_details": {"reasoning_tokens": 4},
    "total_tokens": 49,
}
CHAT_USAGE = {
    "prompt_tokens": 30,
    "completion_tokens": 6,
    "total_tokens": 36,
    "prompt_tokens_details": {"cached_tokens": 5},
    "completion_tokens_details": {"reasoning_tokens": 2},
}


def response_json(output: list[dict[str, Any]], number: int) -> dict[str, Any]:
    return {
        "id": f"resp_{number}",
        "object": "response",
        "created_at": 1,
        "model": API_MODEL_VERSION,
        "status": "completed",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": RESPONSES_USAGE,
    }


def _chat(message: dict[str, Any], number: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 1,
        "model": API_MODEL_VERSION,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": CHAT_USAGE,
    }


@dataclass
class FakeOpenAI:
    """``/responses`` and ``/chat/completions``: the first call asks for the tool ``tool``
    with ``arguments``, every later call answers ``text``."""

    tool: str = "add"
    arguments: dict[str, Any] = field(default_factory=lambda: {"a": 2, "b": 3})
    text: str = "5"
    paths: list[str] = field(default_factory=list)

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.paths.append(request.url.path)
        number = len(self.paths)
        first = number == 1
        if request.url.path.endswith("/responses"):
            call = {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": self.tool,
                "arguments": json.dumps(self.arguments),
                "status": "completed",
            }
            text = {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": self.text, "annotations": []}],
            }
            return httpx2.Response(200, json=response_json([call if first else text], number))
        if first:
            reply: dict[str, Any] = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": self.tool, "arguments": json.dumps(self.arguments)},
                    }
                ],
            }
        else:
            reply = {"role": "assistant", "content": self.text}
        return httpx2.Response(200, json=_chat(reply, number))

    def client(self) -> openai.AsyncOpenAI:
        """A real async OpenAI client over this fake (no key, no retries, no network)."""
        transport = httpx2.MockTransport(self.handle)
        return openai.AsyncOpenAI(
            api_key="k", max_retries=0, http_client=httpx2.AsyncClient(transport=transport)
        )


def registered() -> tuple[Any, ...]:
    """The processors registered with the SDK's global trace provider, in order."""
    return tuple(get_trace_provider()._multi_processor._processors)  # type: ignore[attr-defined]


@contextmanager
def recording(name: str = "benchmark.run") -> Iterator[TraceCollector]:
    """A run: a bound collector with a root ``task`` span."""
    collector = TraceCollector()
    with bind_collector(collector), start_span(name, kind="task"):
        yield collector


def scoped(trace: Trace, scope: str = "openai_agents") -> list[SpanRecord]:
    """The spans of one instrumentor, in start order."""
    return [span for span in trace.spans if span.scope == scope]


def by_operation(trace: Trace, operation: str) -> list[SpanRecord]:
    """The spans named ``operation``, in start order."""
    return [span for span in trace.spans if span.operation == operation]


def one(trace: Trace, operation: str) -> SpanRecord:
    """The one span named ``operation``."""
    (span,) = by_operation(trace, operation)
    return span


def parent_of(trace: Trace, span: SpanRecord) -> SpanRecord:
    """The parent span of ``span``."""
    assert span.parent is not None, span.operation
    return trace.span(span.parent)


PROVIDER_URL = "https://llm.example.test/v1"
"""A provider that is not OpenAI: the SDK asks it for no usage in a stream by default."""


@dataclass
class StreamingProvider:
    """An OpenAI-compatible ``/chat/completions`` that streams ``text`` as SSE chunks and
    sends a usage chunk (``usage``) only when the request asked for one with
    ``stream_options.include_usage``, as such providers do; ``served`` is the ledger of
    the usage it sent (one entry per request, ``None`` when it sent none)."""

    text: str = "5"
    usage: dict[str, Any] = field(default_factory=lambda: CHAT_USAGE)
    served: list[dict[str, Any] | None] = field(default_factory=list)

    async def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        number = len(self.served) + 1
        wanted = (body.get("stream_options") or {}).get("include_usage") is True
        self.served.append(self.usage if wanted else None)
        if body.get("stream") is not True:
            message = {"role": "assistant", "content": self.text}
            return httpx2.Response(200, json=_chat(message, number))
        head = {"id": f"chatcmpl-{number}", "object": "chat.completion.chunk", "created": 1}
        head["model"] = API_MODEL_VERSION
        deltas = [{"role": "assistant", "content": self.text}, {}]
        chunks = [
            {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}
            for delta, reason in zip(deltas, (None, "stop"), strict=True)
        ]
        if wanted:
            chunks.append({**head, "choices": [], "usage": self.usage})
        frames = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks]
        content = "".join([*frames, "data: [DONE]\n\n"]).encode()
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=content)

    def client(self) -> openai.AsyncOpenAI:
        """A real async OpenAI client of ``PROVIDER_URL`` over this fake (no network)."""
        transport = httpx2.MockTransport(self.handle)
        return openai.AsyncOpenAI(
            api_key="k",
            base_url=PROVIDER_URL,
            max_retries=0,
            http_client=httpx2.AsyncClient(transport=transport),
        )
