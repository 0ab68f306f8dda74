"""Bounded body capture: text prefixes, digests of binary bodies, structured redaction."""

from __future__ import annotations

import hashlib

from autobench.abp import DEFAULT_CAPTURE_POLICY
from autobench.instrument.httpx._body import BodyCapture


def _capture(data: bytes, limit: int, *, chunk: int = 3) -> BodyCapture:
    body = BodyCapture(limit)
    for start in range(0, len(data), chunk):
        body.feed(data[start : start + chunk])
    return body


def test_prefix_never_cuts_a_character() -> None:
    body = _capture("héllo".encode(), 2)
    assert body.value("text/plain; charset=utf-8", DEFAULT_CAPTURE_POLICY) == "h"
    assert body.truncated and body.size == 6


def test_untyped_utf8_is_text_and_untyped_bytes_are_binary() -> None:
    assert _capture(b"plain words", 100).value(None, DEFAULT_CAPTURE_POLICY) == "plain words"
    data = b"\xff\xfe\x00binary"
    assert _capture(data, 100).value(None, DEFAULT_CAPTURE_POLICY) == {
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def test_encoded_stream_bytes_are_binary() -> None:
    data = b"\x1f\x8b compressed"
    value = _capture(data, 100).value(
        "application/json", DEFAULT_CAPTURE_POLICY, content_encoding="gzip"
    )
    assert value == {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def test_memory_is_bounded_by_the_limit() -> None:
    body = BodyCapture(16)
    for _ in range(10_000):
        body.feed(b"x" * 64)
    assert body.size == 640_000
    assert body.value("text/plain", DEFAULT_CAPTURE_POLICY) == "x" * 16
    assert body.digest()["sha256"] == hashlib.sha256(b"x" * 640_000).hexdigest()


def test_form_secrets_are_redacted() -> None:
    data = b"user=ada&password=pa55&client_secret=abc"
    value = _capture(data, 1000).value("application/x-www-form-urlencoded", DEFAULT_CAPTURE_POLICY)
    assert value == "user=ada&password=[redacted]&client_secret=[redacted]"


def test_truncated_json_is_kept_as_a_prefix() -> None:
    data = b'{"a": "long value", "b": 2}'
    value = _capture(data, 10).value("application/json", DEFAULT_CAPTURE_POLICY)
    assert value == '{"a": "lon'
