"""The three instrumented APIs: what a request, its result and its stream record.

===========================  ==========================  ==========================
API                          operation                   usage table
===========================  ==========================  ==========================
chat completions             ``openai.chat.completions``  :data:`CHAT_USAGE`
responses                    ``openai.responses``         :data:`RESPONSES_USAGE`
embeddings                   ``openai.embeddings``        :data:`EMBEDDINGS_USAGE`
===========================  ==========================  ==========================

Captured payloads (only with ``capture_input`` / ``capture_output``; the
collector's capture policy then redacts and truncates them):

- input: chat ``{"messages": [...]}``, responses ``{"instructions": ..., "input": ...}``
  (given arguments only), embeddings ``{"input": ...}``. A one-shot iterable
  (a generator) is never consumed: it is recorded as a marker string.
- output: chat a list of choices ``{"role", "content", "finish_reason"}`` plus
  ``refusal`` and ``tool_calls`` (``{"id", "name", "arguments"}``) when present,
  the same shape accumulated from the deltas of a stream; responses the
  response's output text; embeddings ``{"count": vectors, "dimensions": n}``,
  never the vectors.

Payloads are copied into plain data (dicts, lists, scalars; SDK models through
``model_dump``) when the span starts or ends, so a list of messages the
application keeps appending to does not change the recorded input.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from autobench.abp import ActiveSpan
from autobench.instrument.openai._facts import (
    CHAT_USAGE,
    EMBEDDINGS_USAGE,
    MODEL_RESPONSE,
    RESPONSE_ID,
    RESPONSE_STATUS,
    RESPONSES_USAGE,
    UsageTable,
    field,
    record_identity,
    record_usage,
    response_text,
    usage_counts,
)
from openai import NotGiven, Omit

ONE_SHOT = "[not captured: one-shot iterable]"
"""Recorded in place of an input the SDK must consume itself (an iterator)."""

_MAX_DEPTH = 32
_SCALARS = (str, int, float, bool, bytes, type(None))


def given(value: Any) -> bool:
    """Whether an SDK keyword argument was given (not ``omit`` / ``NOT_GIVEN``)."""
    return not isinstance(value, Omit | NotGiven)


def plain(value: Any, depth: int = 0) -> Any:
    """A copy of ``value`` made of dicts, lists and scalars (SDK models via ``model_dump``).

    Objects of other types become ``"<TypeName>"``; nesting deeper than 32 levels
    becomes ``"[too deep]"``. Iterators are never consumed (see :data:`ONE_SHOT`).
    """
    if isinstance(value, _SCALARS):
        return value
    if depth >= _MAX_DEPTH:
        return "[too deep]"
    if isinstance(value, Mapping):
        return {str(key): plain(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item, depth + 1) for item in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return plain(dump(exclude_unset=True), depth + 1)
    if hasattr(value, "__next__"):
        return ONE_SHOT
    return f"<{type(value).__name__}>"


class StreamState(Protocol):
    """What one stream accumulates while its items pass (item by item, never buffered)."""

    def observe(self, span: ActiveSpan, item: Any) -> None:
        """Record the facts of one stream item on the (still open) span."""
        ...

    def output(self) -> Any:
        """The captured output so far (only kept when output capture is on)."""
        ...


@dataclass(frozen=True, slots=True)
class Api:
    """One instrumented API: its operation name, usage table and payload shapes."""

    operation: str
    usage: UsageTable
    request_input: Callable[[Mapping[str, Any]], dict[str, Any]]
    output: Callable[[Any], Any]
    stream_state: Callable[[bool], StreamState] | None = None
    has_status: bool = False
    """Whether results carry a ``status`` (recorded as ``llm.response.status``)."""

    def record_result(self, span: ActiveSpan, payload: Any, capture_output: bool) -> None:
        """Record a complete (non-streamed) result: identity, status, usage, output."""
        record_identity(span, payload)
        if self.has_status:
            status = field(payload, "status")
            if isinstance(status, str):
                span.set_attribute(RESPONSE_STATUS, status)
        record_usage(span, payload, self.usage)
        if capture_output:
            span.set_output(self.output(payload))


def _chat_input(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    return {"messages": plain(kwargs.get("messages"))}


def _responses_input(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    return {
        name: plain(kwargs[name])
        for name in ("instructions", "input")
        if name in kwargs and given(kwargs[name])
    }


def _embeddings_input(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    return {"input": plain(kwargs.get("input"))}


def _tool_calls(calls: Any) -> list[dict[str, Any]]:
    found = []
    for call in calls or ():
        function = field(call, "function")
        found.append(
            {
                "id": field(call, "id"),
                "name": field(function, "name"),
                "arguments": field(function, "arguments"),
            }
        )
    return found


def _chat_output(completion: Any) -> list[dict[str, Any]]:
    choices = []
    for choice in field(completion, "choices") or ():
        message = field(choice, "message")
        entry: dict[str, Any] = {
            "role": field(message, "role"),
            "content": field(message, "content"),
            "finish_reason": field(choice, "finish_reason"),
        }
        refusal = field(message, "refusal")
        if refusal:
            entry["refusal"] = refusal
        calls = _tool_calls(field(message, "tool_calls"))
        if calls:
            entry["tool_calls"] = calls
        choices.append(entry)
    return choices


def _embeddings_output(result: Any) -> dict[str, Any]:
    data = field(result, "data") or ()
    summary: dict[str, Any] = {"count": len(data)}
    vector = field(data[0], "embedding") if data else None
    if isinstance(vector, list):
        summary["dimensions"] = len(vector)
    return summary


class _ChoiceDraft:
    __slots__ = ("calls", "content", "finish_reason", "refusal", "role")

    def __init__(self) -> None:
        self.role: str | None = None
        self.content: list[str] = []
        self.refusal: list[str] = []
        self.finish_reason: str | None = None
        self.calls: dict[int, dict[str, Any]] = {}

    def add(self, choice: Any) -> None:
        delta = field(choice, "delta")
        role = field(delta, "role")
        if isinstance(role, str):
            self.role = role
        for parts, name in ((self.content, "content"), (self.refusal, "refusal")):
            text = field(delta, name)
            if isinstance(text, str):
                parts.append(text)
        for call in field(delta, "tool_calls") or ():
            index = field(call, "index")
            draft = self.calls.setdefault(
                index if isinstance(index, int) else len(self.calls),
                {"id": None, "name": None, "arguments": ""},
            )
            function = field(call, "function")
            for key, value in (
                ("id", field(call, "id")),
                ("name", field(function, "name")),
            ):
                if isinstance(value, str):
                    draft[key] = value
            arguments = field(function, "arguments")
            if isinstance(arguments, str):
                draft["arguments"] += arguments
        reason = field(choice, "finish_reason")
        if isinstance(reason, str):
            self.finish_reason = reason

    def entry(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "role": self.role or "assistant",
            "content": "".join(self.content) if self.content else None,
            "finish_reason": self.finish_reason,
        }
        if self.refusal:
            entry["refusal"] = "".join(self.refusal)
        if self.calls:
            entry["tool_calls"] = [self.calls[index] for index in sorted(self.calls)]
        return entry


class ChatStreamState:
    """A chat completion stream: identity from the chunks, usage from the final chunk.

    The final chunk carries ``usage`` only when the request set
    ``stream_options={"include_usage": True}``; without it a stream has no usage.
    """

    __slots__ = ("capture", "choices")

    def __init__(self, capture: bool) -> None:
        self.capture = capture
        self.choices: dict[int, _ChoiceDraft] = {}

    def observe(self, span: ActiveSpan, item: Any) -> None:
        attributes = span.attributes
        if MODEL_RESPONSE not in attributes or RESPONSE_ID not in attributes:
            record_identity(span, item)
        usage = field(item, "usage")
        if usage is not None:
            span.set_usage(usage_counts(usage, CHAT_USAGE))
        if self.capture:
            for choice in field(item, "choices") or ():
                index = field(choice, "index")
                key = index if isinstance(index, int) else 0
                self.choices.setdefault(key, _ChoiceDraft()).add(choice)

    def output(self) -> list[dict[str, Any]]:
        return [self.choices[index].entry() for index in sorted(self.choices)]


class ResponsesStreamState:
    """A responses event stream: identity, status and usage from the events that carry
    the ``response`` (``response.created`` ... ``response.completed`` / ``failed`` /
    ``incomplete``); the output text from the last of them."""

    __slots__ = ("capture", "text")

    def __init__(self, capture: bool) -> None:
        self.capture = capture
        self.text: str | None = None

    def observe(self, span: ActiveSpan, item: Any) -> None:
        response = field(item, "response")
        if response is None:
            return
        RESPONSES.record_result(span, response, False)
        if self.capture:
            self.text = response_text(response)

    def output(self) -> str | None:
        return self.text


CHAT = Api("openai.chat.completions", CHAT_USAGE, _chat_input, _chat_output, ChatStreamState)
RESPONSES = Api(
    "openai.responses",
    RESPONSES_USAGE,
    _responses_input,
    response_text,
    ResponsesStreamState,
    has_status=True,
)
EMBEDDINGS = Api("openai.embeddings", EMBEDDINGS_USAGE, _embeddings_input, _embeddings_output)
