"""One recorded OpenAI call, from the request to the end of its result or stream.

An :class:`Installation` is what one ``install()`` put in place; the wrappers
dispatch to the most recent open installation (:func:`current`), so a bound
method captured before a re-install (``with_raw_response`` caches the bound
``create`` when first read) still records under the live one.

A call's span (kind ``llm``, operation of its :class:`~._apis.Api`):

1. opens with ``llm.provider`` (``azure.ai.openai`` for an Azure client or an
   ``*.openai.azure.com`` host, else ``openai``, whatever the ``base_url``: the rule
   of :mod:`autobench.abp._provider`), ``server.address`` (the host of the client's
   ``base_url``), ``llm.model.requested`` (the request's ``model``) and
   ``llm.stream``; the request input when ``capture_input`` is on;
2. is the active span while the SDK runs, so an HTTP span nests under it;
3. ends when the call returns, with ``llm.model.response``, ``llm.response.id``
   (and ``llm.response.status`` for the Responses API), the usage mapping (``requests: 1`` plus the token counts of ``_facts``) and the
   output when ``capture_output`` is on; a returned ``Stream``/``AsyncStream``
   keeps it open until the stream ends (``_streams``), as does the HTTP response object of a
   streamed ``with_raw_response`` / ``with_streaming_response`` call until its ``parse()``
   makes the stream, which is then followed, also when another instrumentation
   returned its own wrapper around the stream (``_streams.underlying``); a streamed
   call whose result holds no SDK stream ends at return with the
   ``instrumentation.openai.stream_untracked`` warning. A response without a
   ``usage`` block (a stream that completed without a usage chunk) records no
   token counts and the ``instrumentation.usage_unmeasured`` warning;
4. or ends with status ``error`` (``cancelled``) when the call raises; the
   exception propagates unchanged. ``requests: 1`` is set then only for an
   ``openai.APIError`` (the SDK attempted the request).

Reading a result never changes what the caller gets: a raw
``LegacyAPIResponse`` is read through its already-loaded ``http_response.json()``
(not ``parse()``, whose cache the caller owns), and any failure of our readers
becomes an ``instrumentation.extraction_error`` diagnostic on the span.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from autobench.abp import END_REASON, InstrumentationRuntime, SpanKind, SpanStatus
from autobench.abp._detached import DetachedSpan
from autobench.abp._provider import host_of, identity, is_azure_client, openai_provider
from autobench.abp._streams import end_reason_for
from autobench.instrument.openai._apis import Api
from autobench.instrument.openai._facts import MODEL_REQUESTED, STREAM, note_unmeasured
from autobench.instrument.openai._seams import Seams
from autobench.instrument.openai._streams import (
    EXTRACTION_ERROR,
    STREAM_UNTRACKED,
    StreamTracker,
    await_parse,
    track,
    underlying,
)

logger = logging.getLogger("autobench.instrument.openai")

_INSTALLED: list[Installation] = []


def current() -> Installation | None:
    """The most recently installed open installation, or ``None``."""
    installed = _INSTALLED
    return installed[-1] if installed else None


def provider(resource: Any) -> dict[str, str]:
    """The ``llm.provider`` and ``server.address`` attributes of a call made through the
    client owning ``resource`` (rule of :mod:`autobench.abp._provider`)."""
    client = getattr(resource, "_client", None)
    host = host_of(getattr(client, "base_url", None))
    return identity(openai_provider(host, azure_client=is_azure_client(client)), host)


def request_attributes(resource: Any, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The span's start attributes: provider, server address, requested model, whether it
    streams."""
    attributes: dict[str, Any] = {**provider(resource), STREAM: kwargs.get("stream") is True}
    model = kwargs.get("model")
    if isinstance(model, str):
        attributes[MODEL_REQUESTED] = model
    return attributes


def _responses(seams: Seams, result: Any) -> bool:
    """Whether ``result`` is an HTTP response object (``with_raw_response`` or
    ``with_streaming_response``) rather than a parsed result or a stream."""
    if seams.raw_response is not None and isinstance(result, seams.raw_response):
        return True
    return isinstance(result, seams.unread_responses)


def _stream_of(seams: Seams, kwargs: Mapping[str, Any], result: Any) -> Any | None:
    """The SDK stream ``result`` is or wraps; wrappers are only searched for a call that
    asked for a stream (``stream=True``) and did not return an HTTP response object."""
    if type(result) in seams.streams:
        return result
    if isinstance(result, seams.streams) or (
        kwargs.get("stream") is True and not _responses(seams, result)
    ):
        return underlying(result, seams.streams)
    return None


class Installation:
    """One installation's runtime, capture switches and SDK seams; the call lifecycle."""

    __slots__ = ("capture_input", "capture_output", "runtime", "seams")

    def __init__(
        self,
        runtime: InstrumentationRuntime,
        seams: Seams,
        *,
        capture_input: bool,
        capture_output: bool,
    ) -> None:
        self.runtime = runtime
        self.seams = seams
        self.capture_input = capture_input
        self.capture_output = capture_output

    def activate(self) -> None:
        """Make this the installation the wrappers dispatch to."""
        _INSTALLED.append(self)

    def deactivate(self) -> None:
        """Stop dispatching to this installation (its open streams stay open)."""
        if self in _INSTALLED:
            _INSTALLED.remove(self)

    def open(self, api: Api, resource: Any, kwargs: Mapping[str, Any]) -> DetachedSpan | None:
        """Open the call's span, or ``None`` outside a run or when suppressed."""
        runtime = self.runtime
        if not runtime.enabled(api.operation):
            return None
        try:
            attributes = request_attributes(resource, kwargs)
            payload = api.request_input(kwargs) if self.capture_input else None
        except Exception:  # reading the request must never break it
            logger.exception("openai instrumentation: reading the request failed")
            attributes, payload = {}, None
        detached = runtime.open_span(api.operation, kind=SpanKind.LLM, input=payload)
        if detached is not None:
            # set on the open span rather than passed as start attributes: the capture
            # policy then applies once, when the trace is materialized, off the call path
            detached.span.attributes.update(attributes)
        return detached

    def settle(
        self, api: Api, detached: DetachedSpan, kwargs: Mapping[str, Any], result: Any
    ) -> None:
        """Record ``result`` and end the span, unless ``result`` is a stream now tracked."""
        span = detached.span
        seams = self.seams
        try:
            span.set_usage(requests=1)
            stream = _stream_of(seams, kwargs, result)
            if stream is not None:
                if api.stream_state is not None:
                    tracker = StreamTracker(
                        detached,
                        api.stream_state(self.capture_output),
                        capture_output=self.capture_output,
                        owner=self,
                    )
                    if track(stream, tracker):
                        return
                span.add_diagnostic(
                    STREAM_UNTRACKED, "the SDK stream could not be followed; span ends at return"
                )
            elif kwargs.get("stream") is True and _responses(seams, result):
                if self._await_parse(api, detached, result):
                    return
            elif kwargs.get("stream") is True:
                span.add_diagnostic(
                    STREAM_UNTRACKED,
                    f"{api.operation}: the call returned a {type(result).__qualname__} in which "
                    "no SDK stream was found; the request is counted, its tokens are unmeasured",
                )
            elif seams.raw_response is not None and isinstance(result, seams.raw_response):
                if kwargs.get("stream") is not True:
                    payload = result.http_response.json()
                    api.record_result(span, payload, self.capture_output)
                    note_unmeasured(span, "the response has no usage")
            elif isinstance(result, seams.unread_responses):
                note_unmeasured(span, "the caller reads the body (with_streaming_response)")
            else:
                api.record_result(span, result, self.capture_output)
                note_unmeasured(span, "the response has no usage")
        except Exception as exc:
            span.add_diagnostic(EXTRACTION_ERROR, f"{api.operation}: {type(exc).__name__}: {exc}")
        detached.end(SpanStatus.OK)

    def _await_parse(self, api: Api, detached: DetachedSpan, response: Any) -> bool:
        """Keep the span of a streamed call that returned the HTTP response object
        ``response`` open until its ``parse()`` makes the stream (``_streams.await_parse``);
        ``False`` when that cannot be followed (the span then ends now)."""
        response = underlying(response, self.seams.parsers)  # through a wrapt proxy
        if api.stream_state is None or response is None:
            return False
        tracker = StreamTracker(
            detached,
            api.stream_state(self.capture_output),
            capture_output=self.capture_output,
            owner=self,
        )
        return await_parse(response, tracker)

    def fail(self, detached: DetachedSpan, kwargs: Mapping[str, Any], error: BaseException) -> None:
        """End the span for a call that raised ``error`` (status ``error`` or ``cancelled``)."""
        span = detached.span
        if isinstance(error, self.seams.api_error):
            span.set_usage(requests=1)
        if kwargs.get("stream") is True:
            span.set_attribute(END_REASON, end_reason_for(error))
        cancelled = isinstance(error, asyncio.CancelledError)
        detached.end(SpanStatus.CANCELLED if cancelled else SpanStatus.ERROR, error)
