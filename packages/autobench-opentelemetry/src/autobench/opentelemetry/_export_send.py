"""Sending an experiment's spans to an OTLP/HTTP endpoint with the official exporter."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from urllib.parse import urlsplit

from autobench.abp import AutobenchError
from autobench.records import redact_known, redact_url, url_secrets
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult

BATCH_SPANS = 2_000
"""Spans per request: a large experiment is sent in several requests."""

TRACES_PATH = "/v1/traces"


class OtlpSendError(AutobenchError):
    """An OTLP/HTTP export failed: the message names the endpoint, how many spans were
    sent before the failure and what the exporter reported."""


def traces_endpoint(url: str) -> str:
    """The traces URL of ``url``: ``url`` itself when it has a path, else ``url`` with
    ``/v1/traces`` (``http://localhost:4318`` -> ``http://localhost:4318/v1/traces``).
    Raises :class:`OtlpSendError` for a URL that is not ``http://`` or ``https://``."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise OtlpSendError(
            f"{redact_url(url)!r} is not an http:// or https:// URL of an OTLP/HTTP endpoint"
        )
    if parts.path in ("", "/"):
        return parts._replace(path=TRACES_PATH).geturl()
    return url


def send_spans(spans: Sequence[ReadableSpan], url: str, *, batch: int = BATCH_SPANS) -> str:
    """Send ``spans`` to ``url`` (see :func:`traces_endpoint`) over OTLP/HTTP (protobuf),
    ``batch`` spans per request, in order, and return the traces URL they went to, as it
    may be shown (credentials in its userinfo or query redacted: :func:`redact_url`).

    Headers, compression, timeout and certificates come from the exporter's standard
    ``OTEL_EXPORTER_OTLP_TRACES_*`` / ``OTEL_EXPORTER_OTLP_*`` environment variables. The
    exporter retries what OTLP calls retryable (429, 502, 503, 504, a refused connection)
    until its timeout (10 seconds by default). Raises :class:`OtlpSendError` when a
    request fails; the requests before it were delivered. Its message names the endpoint
    and quotes the exporter with the endpoint's credentials redacted.
    """
    endpoint = traces_endpoint(url)
    secrets = url_secrets(endpoint)
    shown = redact_known(endpoint, secrets)
    exporter = OTLPSpanExporter(endpoint=endpoint)
    try:
        for start in range(0, len(spans), batch):
            with _exporter_messages() as messages:
                outcome = exporter.export(spans[start : start + batch])
            if outcome is not SpanExportResult.SUCCESS:
                reason = redact_known(_reason(messages), secrets)
                raise OtlpSendError(
                    f"sending spans to {shown} failed after {start} of {len(spans)} spans "
                    f"were delivered: {reason}"
                )
    finally:
        exporter.shutdown()
    return shown


def _reason(messages: list[str]) -> str:
    """The first and the last thing the exporter said about a failed request."""
    if not messages:
        return "the exporter reported a failure"
    if len(messages) == 1:
        return messages[0]
    return f"{messages[-1]} (first: {messages[0]})"


@contextmanager
def _exporter_messages() -> Iterator[list[str]]:
    """The messages the OTLP exporter logs meanwhile (kept from the console: the failure
    is reported once, by :class:`OtlpSendError`)."""
    messages: list[str] = []

    class _Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    logger = logging.getLogger("opentelemetry.exporter.otlp.proto.http")
    handler, propagate = _Keep(logging.WARNING), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield messages
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate
