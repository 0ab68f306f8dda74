"""One HTTP span per ``send``: what is recorded of the request, the response and a failure.

Span conventions (kind ``http``, operation ``"HTTP <METHOD>"``):

=============================  ===============================================
``http.method``                the request method (``GET``)
``http.scheme``/``http.host``  from the URL (no port, no user information)
``http.path``                  by the ``path`` setting, never with the query
``http.request.header.<n>``    named request headers only (secrets redacted)
``http.request.body.size``     bytes of a loaded request body
``http.request.body``          text prefix or ``{size, sha256}`` (opt-in)
``http.status_code``           the final status (after redirects)
``http.response.header.<n>``   named response headers only (secrets redacted)
``http.response.body.size``    bytes received (``num_bytes_downloaded``, else
                               the loaded content's length)
``http.response.body``         text prefix or ``{size, sha256}`` (opt-in)
``http.*.body.truncated``      ``True`` when a text body was cut
=============================  ===============================================

No query string, URL user information, token usage or cost is ever recorded:
transport spans carry no usage (spec "Layered Traces"). An exception raised
by ``send`` ends the span with status ``error`` (``cancelled`` for
:class:`asyncio.CancelledError`) and propagates unchanged; its recorded
message has the request's query and user information cut out.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from autobench.abp import InstrumentationRuntime, SpanStatus
from autobench.abp._detached import DetachedSpan
from autobench.abp._streams import END_REASON
from autobench.instrument.httpx._body import BodyCapture
from autobench.instrument.httpx._capture import CapturePlan
from autobench.instrument.httpx._streams import RESPONSE_BODY_SIZE, StreamSpan

KIND = "http"
FAMILY = "http"
REQUEST_HEADER = "http.request.header."
RESPONSE_HEADER = "http.response.header."

_error_types: dict[str, type[Exception]] = {}


def open_exchange(
    runtime: InstrumentationRuntime, plan: CapturePlan, request: Any
) -> DetachedSpan | None:
    """Open the span of ``request`` in the caller's context (``None``: not recorded here).

    The span's parent is the ABP span active in the calling task. Request
    attributes are set on the open span; the capture policy applies when it ends.
    """
    detached = runtime.open_span(f"HTTP {request.method}", kind=KIND, family=FAMILY)
    if detached is None:
        return None
    attributes = detached.span.attributes
    url = request.url
    attributes["http.method"] = request.method
    attributes["http.scheme"] = url.scheme
    attributes["http.host"] = url.host
    path = plan.path_value(url.path)
    if path is not None:
        attributes["http.path"] = path
    if plan.request_headers:
        attributes.update(plan.header_values(REQUEST_HEADER, plan.request_headers, request.headers))
    try:
        content = request.content
    except Exception:  # a streamed upload is not loaded: size and body stay unknown
        return detached
    attributes["http.request.body.size"] = len(content)
    if plan.request_body:
        _record_body(
            attributes, "http.request.body", content, request.headers.get("content-type"), plan
        )
    return detached


def respond(
    detached: DetachedSpan,
    plan: CapturePlan,
    response: Any,
    *,
    streamed: bool,
    stream_type: type | None,
    registry: set[StreamSpan],
) -> None:
    """Record ``response`` and end the span, or hand it to a stream wrapper.

    ``streamed`` is the ``stream=`` argument of ``send``. A streamed response
    whose body is still unread gets ``response.stream`` replaced by
    ``stream_type(response.stream, StreamSpan)``; the span then ends with the
    body (see :mod:`._streams`).
    """
    span = detached.span
    attributes = span.attributes
    attributes["http.status_code"] = response.status_code
    headers = response.headers
    if plan.response_headers:
        attributes.update(plan.header_values(RESPONSE_HEADER, plan.response_headers, headers))
    if streamed and not response.is_closed and stream_type is not None:
        body = None
        on_complete = None
        if plan.response_body:
            body = BodyCapture(plan.max_body_bytes)
            on_complete = functools.partial(
                _streamed_body, plan, headers.get("content-type"), headers.get("content-encoding")
            )
        state = StreamSpan(detached, registry, body=body, on_complete=on_complete)
        response.stream = stream_type(response.stream, state)
        return
    if streamed:
        # The body was complete before send returned (a loaded response): nothing to stream.
        attributes[END_REASON] = "completed" if response.is_stream_consumed else "closed"
    try:
        content = response.content
    except Exception:  # closed unread: the body was never received
        content = None
    if content is not None:
        attributes[RESPONSE_BODY_SIZE] = response.num_bytes_downloaded or len(content)
        if plan.response_body:
            _record_body(
                attributes, "http.response.body", content, headers.get("content-type"), plan
            )
    detached.end(SpanStatus.OK)


def fail(detached: DetachedSpan, error: BaseException, request: Any) -> None:
    """End the span for an exception raised by ``send`` (the exception itself is untouched)."""
    if isinstance(error, asyncio.CancelledError):
        detached.end(SpanStatus.CANCELLED, error)
        return
    detached.end(SpanStatus.ERROR, _recorded_error(error, request.url))


def _record_body(
    attributes: dict[str, Any],
    key: str,
    content: bytes,
    content_type: str | None,
    plan: CapturePlan,
) -> None:
    body = BodyCapture(plan.max_body_bytes)
    body.feed(content)
    _body_attributes(attributes, key, body, content_type, plan)


def _body_attributes(
    attributes: dict[str, Any],
    key: str,
    body: BodyCapture,
    content_type: str | None,
    plan: CapturePlan,
    encoding: str | None = None,
) -> None:
    value = body.value(content_type, plan.policy, content_encoding=encoding)
    attributes[key] = value
    if isinstance(value, str) and body.truncated:
        attributes[key + ".truncated"] = True


def _streamed_body(
    plan: CapturePlan, content_type: str | None, encoding: str | None, state: StreamSpan
) -> None:
    if state.body is not None:
        attributes = state.detached.span.attributes
        _body_attributes(attributes, "http.response.body", state.body, content_type, plan, encoding)


def _recorded_error(error: BaseException, url: Any) -> BaseException:
    """``error``, or a stand-in of the same type name whose message lacks the URL's secrets.

    Exception messages may quote the request URL (``httpx.HTTPStatusError``
    does); its query string and user information are replaced by ``[redacted]``.
    """
    secrets = [part.decode("ascii", "replace") for part in (url.query, url.userinfo) if part]
    if not secrets:
        return error
    message = str(error)
    scrubbed = message
    for secret in secrets:
        scrubbed = scrubbed.replace(secret, "[redacted]")
    if scrubbed == message:
        return error
    name = type(error).__name__
    stand_in = _error_types.get(name)
    if stand_in is None:
        stand_in = _error_types.setdefault(name, type(name, (Exception,), {}))
    return stand_in(scrubbed)
