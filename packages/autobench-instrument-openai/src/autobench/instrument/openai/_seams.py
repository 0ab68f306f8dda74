"""The patch points in the installed ``openai`` SDK (importing this module imports it).

Required (the instrumentor refuses to install without them): the ``create``
methods of ``Completions``/``AsyncCompletions`` (``openai.resources.chat``),
``Responses``/``AsyncResponses`` and ``Embeddings``/``AsyncEmbeddings``, and the
``Stream``/``AsyncStream`` classes with their ``close`` methods.

Optional (missing ones degrade the installation, reported by ``check()``):
``parse`` of chat completions and responses, the ``close`` methods of the
stream helpers (``ChatCompletionStream``, ``ResponseStream`` and their async
forms, ``openai.lib.streaming``), ``LegacyAPIResponse`` (the result of
``with_raw_response``) and the ``parse`` methods of the HTTP response classes
(``LegacyAPIResponse``, ``APIResponse``, ``AsyncAPIResponse``), through which a streamed
raw call is followed into its stream.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from autobench.instrument.openai._apis import CHAT, EMBEDDINGS, RESPONSES, Api

_CHAT = "openai.resources.chat.completions"
_RESPONSES = "openai.resources.responses"
_EMBEDDINGS = "openai.resources.embeddings"

_CALLS: tuple[tuple[str, str, str, Api, bool, bool], ...] = (
    (_CHAT, "Completions", "create", CHAT, False, True),
    (_CHAT, "AsyncCompletions", "create", CHAT, True, True),
    (_RESPONSES, "Responses", "create", RESPONSES, False, True),
    (_RESPONSES, "AsyncResponses", "create", RESPONSES, True, True),
    (_EMBEDDINGS, "Embeddings", "create", EMBEDDINGS, False, True),
    (_EMBEDDINGS, "AsyncEmbeddings", "create", EMBEDDINGS, True, True),
    (_CHAT, "Completions", "parse", CHAT, False, False),
    (_CHAT, "AsyncCompletions", "parse", CHAT, True, False),
    (_RESPONSES, "Responses", "parse", RESPONSES, False, False),
    (_RESPONSES, "AsyncResponses", "parse", RESPONSES, True, False),
)
"""``(module, class, method, api, asynchronous, required)`` of every instrumented request
method (``asynchronous``: it returns an awaitable)."""

_CLOSERS: tuple[tuple[str, str, bool, bool], ...] = (
    ("openai", "Stream", False, True),
    ("openai", "AsyncStream", False, True),
    ("openai.lib.streaming.chat", "ChatCompletionStream", True, False),
    ("openai.lib.streaming.chat", "AsyncChatCompletionStream", True, False),
    ("openai.lib.streaming.responses", "ResponseStream", True, False),
    ("openai.lib.streaming.responses", "AsyncResponseStream", True, False),
)
"""``(module, class, helper, required)`` of every stream class whose ``close`` is patched;
a helper wraps an SDK stream in its ``_raw_stream`` attribute."""


@dataclass(frozen=True, slots=True)
class CallSeam:
    """A request method to wrap: ``cls.name`` records one span of ``api``."""

    cls: type
    name: str
    api: Api
    asynchronous: bool


@dataclass(frozen=True, slots=True)
class CloseSeam:
    """A stream class whose ``close`` ends the span of its (or its raw stream's) tracker."""

    cls: type
    helper: bool


@dataclass(frozen=True, slots=True)
class Seams:
    """Everything the wrappers need from the SDK, resolved once per installation."""

    calls: tuple[CallSeam, ...]
    closers: tuple[CloseSeam, ...]
    streams: tuple[type, ...]
    raw_response: type[Any] | None
    unread_responses: tuple[type, ...]
    """``with_streaming_response`` results: their body is read by the caller, later."""
    parsers: tuple[type, ...]
    """The HTTP response classes (raw and unread) whose ``parse`` is patched, so that a
    streamed call returning one is followed into the stream ``parse()`` makes."""
    api_error: type[BaseException]
    missing: tuple[str, ...]
    """Optional seams that were not found (``module.Class.method``)."""


class SeamError(LookupError):
    """A required patch point is missing from the installed SDK."""


def _lookup(module: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def resolve() -> Seams:
    """Find every patch point. Raises :class:`SeamError` naming a missing required one."""
    missing: list[str] = []

    def found(module: str, class_name: str, cls: Any, attribute: str, required: bool) -> bool:
        if isinstance(cls, type) and callable(getattr(cls, attribute, None)):
            return True
        where = f"{module}.{class_name}.{attribute}"
        if required:
            raise SeamError(f"the installed openai has no {where}")
        missing.append(where)
        return False

    calls = []
    for module, class_name, method, api, asynchronous, required in _CALLS:
        cls = _lookup(module, class_name)
        if found(module, class_name, cls, method, required):
            calls.append(CallSeam(cls, method, api, asynchronous))
    closers = []
    for module, class_name, helper, required in _CLOSERS:
        cls = _lookup(module, class_name)
        if found(module, class_name, cls, "close", required):
            closers.append(CloseSeam(cls, helper))
    api_error = _lookup("openai", "APIError")
    if not (isinstance(api_error, type) and issubclass(api_error, BaseException)):
        raise SeamError("the installed openai has no openai.APIError")
    raw_response = _lookup("openai._legacy_response", "LegacyAPIResponse")
    if not isinstance(raw_response, type):
        missing.append("openai._legacy_response.LegacyAPIResponse")
        raw_response = None
    unread = tuple(
        cls
        for cls in (_lookup("openai", "APIResponse"), _lookup("openai", "AsyncAPIResponse"))
        if isinstance(cls, type)
    )
    streams = tuple(seam.cls for seam in closers if not seam.helper)
    responses = (*((raw_response,) if raw_response is not None else ()), *unread)
    parsers = tuple(cls for cls in responses if callable(getattr(cls, "parse", None)))
    for cls in responses:
        if cls not in parsers:
            missing.append(f"{cls.__module__}.{cls.__qualname__}.parse")
    return Seams(
        tuple(calls),
        tuple(closers),
        streams,
        raw_response,
        unread,
        parsers,
        api_error,
        tuple(missing),
    )
