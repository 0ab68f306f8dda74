"""The cassette file codec and the request normalisation cassettes match by."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autobench.abp._cassette import (
    CassetteError,
    Exchange,
    RunCassette,
    dump_cassette,
    is_secret_header,
    load_cassette,
    normalise_body,
    normalise_url,
)

header_names = st.text(
    alphabet=st.characters(min_codepoint=33, max_codepoint=126, exclude_characters=":"),
    min_size=1,
    max_size=20,
)
exchanges = st.builds(
    Exchange,
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE"]),
    url=st.text(max_size=60),
    body=st.text(max_size=200),
    status=st.integers(100, 599),
    headers=st.lists(st.tuples(header_names, st.text(max_size=40)), max_size=6),
    chunks=st.lists(st.binary(max_size=300), max_size=12),
)


@given(st.lists(exchanges, max_size=5))
def test_a_cassette_reads_back_what_was_written(recorded: list[Exchange]) -> None:
    assert load_cassette(dump_cassette(recorded)) == recorded


@given(st.lists(st.binary(max_size=64), max_size=20))
def test_chunking_of_any_bytes_is_kept(chunks: list[bytes]) -> None:
    exchange = Exchange("GET", "https://x.test/", "", 200, [("Content-Type", "x")], chunks)
    (back,) = load_cassette(dump_cassette([exchange]))
    assert back.chunks == chunks
    assert back.headers == [("Content-Type", "x")]  # header case as recorded


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"not json", "invalid JSON"),
        (b"[]", "expected an object with format 'autobench.cassette/1'"),
        (b'{"format": "autobench.cassette/1", "exchanges": [{"method": "GET"}]}', "malformed"),
        (
            b'{"format": "autobench.cassette/1", "exchanges": [{"method": "GET", "url": "u", '
            b'"body": "", "status": 200, "headers": [], "chunks": [{"base64": "%%%"}]}]}',
            "malformed",
        ),
    ],
)
def test_a_broken_file_is_a_located_error(data: bytes, expected: str) -> None:
    with pytest.raises(CassetteError, match=expected) as raised:
        load_cassette(data, source="rec/artifacts/run_0000/cassette.json")
    assert "rec/artifacts/run_0000/cassette.json" in str(raised.value)


@pytest.mark.parametrize(
    "name",
    [
        "Authorization",
        "authorization",
        "Cookie",
        "Set-Cookie",
        "X-Api-Key",
        "api_key",
        "X-Auth-Token",
    ],
)
def test_credential_headers_are_secret(name: str) -> None:
    assert is_secret_header(name)


@pytest.mark.parametrize("name", ["content-type", "Content-Length", "x-request-id", "openai-model"])
def test_other_headers_are_kept(name: str) -> None:
    assert not is_secret_header(name)


def test_urls_lose_user_information_and_secret_query_values() -> None:
    url = "https://user:pw@api.test:8443/v1/models?z=1&api_key=sk-live&a=2#frag"
    assert normalise_url(url) == "https://api.test:8443/v1/models?a=2&api_key=%5Bredacted%5D&z=1"


def test_json_bodies_match_whatever_their_key_order_and_secrets() -> None:
    one = normalise_body(b'{"b": 1, "a": {"api_key": "sk-1"}}', "application/json")
    two = normalise_body(b'{"a": {"api_key": "sk-2"}, "b": 1}', "application/json")
    assert one == two == '{"a":{"api_key":"[redacted]"},"b":1}'
    assert normalise_body(b"\xff\xfe", "application/octet-stream").startswith("sha256:")
    assert normalise_body(b"", None) == ""


def test_repeated_requests_are_answered_in_recorded_order() -> None:
    first = Exchange("POST", "https://x.test/", "{}", 200, [], [b"one"])
    second = Exchange("POST", "https://x.test/", "{}", 200, [], [b"two"])
    cassette = RunCassette("replay", [first, second])
    request = cassette.request("post", "https://x.test/", b"{}", "application/json")
    assert cassette.take(request) is first
    assert cassette.take(request) is second
    assert cassette.take(request) is None
    error = cassette.miss(request)
    assert "no recorded exchange matches POST https://x.test/" in str(error)
    assert cassette.misses == [str(error)]
    assert cassette.replayed == 2


def test_a_body_mismatch_names_where_the_bodies_differ() -> None:
    recorded = Exchange("POST", "https://x.test/", '{"prompt":"say one thing"}', 200, [], [])
    cassette = RunCassette("replay", [recorded])
    request = cassette.request("POST", "https://x.test/", b'{"prompt":"say two things"}', None)
    assert cassette.take(request) is None
    message = str(cassette.miss(request))
    assert "have another body" in message
    assert "say one thing" in message and "say two things" in message


def test_the_file_is_json_with_text_or_base64_chunks() -> None:
    exchange = Exchange("GET", "https://x.test/", "", 200, [], [b"text", b"\xff\x00"])
    document = json.loads(dump_cassette([exchange]))
    assert document["exchanges"][0]["chunks"] == [{"text": "text"}, {"base64": "/wA="}]


def test_the_same_bytes_match_by_digest_and_reordered_json_by_its_normal_form() -> None:
    recorder = RunCassette("record")
    sent = recorder.request("POST", "https://x.test/", b'{"b": 1, "a": 2}', "application/json")
    recorder.start_exchange(sent, 200, [("Authorization", "Bearer x"), ("X-Id", "1")])
    recorder.start_exchange(sent, 201, [])
    (first, second) = load_cassette(dump_cassette(recorder.exchanges))
    assert first.headers == [("X-Id", "1")] and first.digest == sent.digest != ""
    player = RunCassette("replay", [first, second])
    same = player.request("POST", "https://x.test/", b'{"b": 1, "a": 2}', "application/json")
    assert player.take(same) is first
    assert same._body is None  # matched by digest, the body was not normalised
    reordered = player.request("POST", "https://x.test/", b'{"a":2,"b":1}', "application/json")
    assert player.take(reordered) is second
    assert player.take(same) is None and player.replayed == 2
