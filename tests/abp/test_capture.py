"""Capture policy: secret redaction, truncation, hashing, artifact offload, and the span path."""

from __future__ import annotations

import re
import string
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from autobench.abp import (
    DEFAULT_CAPTURE_POLICY,
    DEFAULT_SECRET_PATTERNS,
    REDACTED,
    CaptureMode,
    CapturePolicy,
    PayloadRef,
    TraceCollector,
    bind_collector,
    hash_value,
    start_span,
)

TOKEN_CHARS = string.ascii_letters + string.digits + "._~+/=-"

bearer = st.builds(
    lambda word, token: f"{word} {token}",
    st.sampled_from(["Bearer", "bearer", "BEARER"]),
    st.text(TOKEN_CHARS, min_size=8, max_size=60),
)
sk_key = st.text(string.ascii_letters + string.digits + "_-", min_size=16, max_size=60).map(
    lambda body: "sk-" + body
)
aws_key = st.builds(
    lambda prefix, body: prefix + body,
    st.sampled_from(["AKIA", "ASIA"]),
    st.text(string.ascii_uppercase + string.digits, min_size=16, max_size=16),
)
secrets = st.one_of(bearer, sk_key, aws_key)
noise = st.text(max_size=40)
keys = st.text(string.ascii_lowercase + "_", min_size=1, max_size=12)


def _embed(secret: str, before: str, after: str) -> str:
    return f"{before}{secret}{after}"


def _flatten(value: Any) -> str:
    return repr(value)


@settings(max_examples=300, deadline=None)
@given(secret=secrets, before=noise, after=noise, key=keys, depth=st.integers(0, 4))
def test_redaction_never_leaks_a_secret_matching_the_patterns(
    secret: str, before: str, after: str, key: str, depth: int
) -> None:
    secret_body = secret.split(" ", 1)[-1]
    # The body must be the secret's own: not also in the surrounding text or the marker.
    assume(secret_body not in before + after + key and secret_body not in REDACTED)
    value: Any = _embed(secret, before, after)
    for level in range(depth):
        value = {key: value} if level % 2 == 0 else [value, level]
    captured = DEFAULT_CAPTURE_POLICY.apply(value)
    assert secret_body not in _flatten(captured)
    assert REDACTED in _flatten(captured)


@settings(max_examples=200, deadline=None)
@given(
    value=st.text(),
    key=st.sampled_from(
        [
            "Authorization",
            "X-API-Key",
            "password",
            "Set-Cookie",
            "access_token",
            "OPENAI_API_KEY",
            "client-secret",
        ]
    ),
)
def test_values_under_secret_keys_are_redacted_whatever_they_are(value: str, key: str) -> None:
    captured = DEFAULT_CAPTURE_POLICY.apply({key: value, "kept": 1})
    assert captured == {key: REDACTED, "kept": 1}


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=400), limit=st.integers(0, 120))
def test_truncation_bounds_hold(text: str, limit: int) -> None:
    policy = CapturePolicy(max_string=limit, secret_patterns=())
    captured = policy.apply(text)
    if len(text) <= limit:
        assert captured is text
    else:
        marker = f"...[truncated {len(text) - limit} chars]"
        assert captured == text[:limit] + marker
        assert len(captured) <= limit + len(marker)


@settings(max_examples=100, deadline=None)
@given(items=st.lists(st.integers(), max_size=50), limit=st.integers(0, 20))
def test_container_bounds_hold(items: list[int], limit: int) -> None:
    policy = CapturePolicy(max_items=limit)
    captured = policy.apply(items)
    assert len(captured) <= limit + 1
    assert captured[: min(limit, len(items))] == items[:limit]
    mapping = policy.apply({str(i): i for i in items})
    assert len(mapping) <= limit + 1


def test_depth_and_bytes_are_bounded() -> None:
    deep: Any = "leaf"
    for _ in range(10):
        deep = {"k": deep}
    captured = CapturePolicy(max_depth=3).apply(deep)
    assert captured == {"k": {"k": {"k": "[truncated: depth > 3]"}}}
    assert CapturePolicy(max_bytes=10).apply(b"x" * 100) == b"x" * 10 + b"...[truncated 90 bytes]"
    assert DEFAULT_CAPTURE_POLICY.apply(b"auth: Bearer abcdefghijkl") == b"auth: [redacted]"


def test_clean_values_are_returned_unchanged_and_identical() -> None:
    value = {"q": "what is 2+2?", "input_tokens": 4, "max_tokens": 10, "items": [1, (2, 3)]}
    assert DEFAULT_CAPTURE_POLICY.apply(value) is value
    for scalar in (None, 1, 2.5, True, "text", b"bytes"):
        assert DEFAULT_CAPTURE_POLICY.apply(scalar) is scalar


def test_hash_and_omit_modes_and_hash_keys() -> None:
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", hash_value({"a": 1}))
    assert hash_value({"a": 1, "b": 2}) == hash_value({"b": 2, "a": 1})
    assert CapturePolicy(mode=CaptureMode.HASH).apply("payload") == hash_value("payload")
    assert CapturePolicy(mode=CaptureMode.OMIT).apply({"a": 1}) is None
    policy = CapturePolicy(hash_keys=frozenset({"path"}))
    assert policy.apply({"path": "/users/42"}) == {"path": hash_value("/users/42")}


def test_policy_configuration_is_checked() -> None:
    with pytest.raises(ValueError, match="max_string"):
        CapturePolicy(max_string=-1)
    with pytest.raises(ValueError, match="invalid secret pattern"):
        CapturePolicy(secret_patterns=("(",))
    custom = CapturePolicy(secret_keys=frozenset({"ssn"}), secret_patterns=(r"\d{3}-\d{2}-\d{4}",))
    assert custom.apply({"ssn": "x", "note": "id 123-45-6789", "password": "p"}) == {
        "ssn": REDACTED,
        "note": f"id {REDACTED}",
        "password": "p",
    }


def test_spans_apply_the_collector_policy_to_input_output_and_attributes() -> None:
    collector = TraceCollector()
    with bind_collector(collector):
        with start_span(
            "call",
            input={"prompt": "hi", "headers": {"Authorization": "Bearer abc.def"}},
            attributes={"api_key": "sk-" + "a" * 20},
        ) as span:
            span.set_attribute("url", "https://x/?token=1&key=sk-" + "b" * 20)
            span.set_output({"text": "x" * (70 * 1024)})
    (record,) = collector.materialize().spans
    assert record.input == {"prompt": "hi", "headers": {"Authorization": REDACTED}}
    assert record.attributes == {
        "api_key": REDACTED,
        "url": f"https://x/?token={REDACTED}&key={REDACTED}",
    }
    assert record.output["text"].endswith("...[truncated 6144 chars]")


def test_large_payloads_become_artifact_references() -> None:
    collector = TraceCollector(capture=CapturePolicy(artifact_threshold=100))
    with bind_collector(collector), start_span("big", input={"rows": list(range(100))}) as span:
        span.set_output("small")
    trace = collector.materialize()
    (record,) = trace.spans
    ref = PayloadRef.from_marker(record.input)
    assert ref is not None and ref.name == "big.input" and ref.span_id == record.id
    assert record.output == "small" and PayloadRef.from_marker("small") is None
    assert record.references[0].kind == "artifact" and record.references[0].id == ref.id
    ((stored_ref, payload),) = collector.payloads
    assert stored_ref == ref and payload == {"rows": list(range(100))}
    assert ref.size > 100 and len(ref.sha256) == 64


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "Bearer abc.DEF-123",
                "basic QWxhZGRpbjpvcGVu",
                "sk-" + "A" * 20,
                "AKIA" + "B" * 16,
                "ghp_" + "c" * 24,
                "xoxb-123456789012",
                "hello",
                " ",
                "tokens=42",
            ]
        )
        | st.text(max_size=20),
        max_size=6,
    )
)
def test_strings_are_redacted_exactly_as_each_pattern_would(parts: list[str]) -> None:
    text = "".join(parts)
    expected = text
    for pattern in DEFAULT_SECRET_PATTERNS:
        expected = re.sub(pattern, REDACTED, expected)
    assert DEFAULT_CAPTURE_POLICY.text(text) == expected
    # keys are remembered, and remembered right
    key = text or "k"
    # a key that names a secret itself ("passwd") has its value redacted, whatever it is
    value = REDACTED if DEFAULT_CAPTURE_POLICY.is_secret_key(key) else 1
    for _ in range(2):
        assert DEFAULT_CAPTURE_POLICY.apply_mapping({key: 1, "api_key": text}) == {
            (expected or "k"): value,
            "api_key": REDACTED,
        }


def test_a_clean_mapping_comes_back_as_itself_whatever_key_objects_it_uses() -> None:
    policy = CapturePolicy()
    first = {"".join(["que", "stion"]): "fine"}
    assert policy.apply(first) is first
    again = {"".join(["ques", "tion"]): "fine"}  # an equal key, another object
    assert policy.apply(again) is again


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(
        st.one_of(secrets, noise, st.builds(_embed, secrets, noise, noise)), min_size=1, max_size=8
    )
)
def test_remembered_clean_strings_give_the_same_answer_as_a_fresh_policy(
    values: list[str],
) -> None:
    """Short clean strings are remembered between spans; a remembered answer is the answer a
    policy that never saw the string gives, whatever order the values come in, and a string
    holding a secret is never remembered (so never kept alive)."""
    warm = CapturePolicy()
    for _ in range(3):
        for value in values:
            fresh = CapturePolicy()
            assert warm.text(value) == fresh.text(value)
            assert warm.apply_mapping({"v": value}) == fresh.apply_mapping({"v": value})
    for value in values:
        if DEFAULT_CAPTURE_POLICY.text(value) != value:
            assert value not in warm._clean


def test_remembered_strings_are_bounded_and_respect_each_policy_limits() -> None:
    short = CapturePolicy(max_string=4)
    assert short.text("abcdefgh") == "abcd...[truncated 4 chars]"
    assert short.text("abcdefgh") == "abcd...[truncated 4 chars]"  # never remembered as clean
    assert CapturePolicy().text("abcdefgh") == "abcdefgh"
    policy = CapturePolicy()
    for index in range(10_000):
        policy.text(f"value-{index}")
    assert 0 < len(policy._clean) <= 4096
    long_text = "x" * 1_000
    assert policy.text(long_text) is long_text
    assert long_text not in policy._clean
