"""One span per request: fields, privacy defaults, opt-in capture, status and errors."""

from __future__ import annotations

import hashlib
import json
from types import ModuleType
from typing import Any

import pytest
from httpx_support import recorded_run

from autobench.abp import (
    InstrumentationManager,
    SpanStatus,
    TraceCollector,
    bind_collector,
    suppress_instrumentation,
)
from autobench.core.native import HTTPXCaptureSettings, HTTPXInstrumentation
from autobench.instrument.httpx import create

API_KEY = "sk-live0123456789abcdefghijklmnop"
COOKIE_VALUE = "session=c00k1e-v4lue"
QUERY_TOKEN = "qs-t0ken-4242"


def _settings(**capture: Any) -> HTTPXInstrumentation:
    return HTTPXInstrumentation(capture=HTTPXCaptureSettings(**capture))


def _json_handler(flavour: ModuleType, status: int = 200) -> Any:
    def handler(request: Any) -> Any:
        return flavour.Response(
            status,
            json={"ok": True},
            headers={"x-request-id": "req-1", "set-cookie": COOKIE_VALUE},
        )

    return handler


def _client(flavour: ModuleType, handler: Any) -> Any:
    return flavour.Client(transport=flavour.MockTransport(handler))


def _async_client(flavour: ModuleType, handler: Any) -> Any:
    return flavour.AsyncClient(transport=flavour.MockTransport(handler))


def _secret_request(client: Any) -> Any:
    return client.get(
        f"https://user:hunter2@api.example.com/v1/chat/completions?token={QUERY_TOKEN}&page=2",
        headers={"Authorization": f"Bearer {API_KEY}", "Cookie": COOKIE_VALUE},
    )


def test_span_fields_and_privacy_defaults(
    flavour: ModuleType, manager: InstrumentationManager
) -> None:
    manager.install(create(None))
    client = _client(flavour, _json_handler(flavour))
    with recorded_run() as run:
        response = _secret_request(client)
    assert response.json() == {"ok": True}
    span = run.only_http_span()
    assert run.root is not None and span.parent == run.root.id
    assert span.operation == "HTTP GET" and span.kind == "http" and span.scope == "httpx"
    assert span.status is SpanStatus.OK and not span.partial and span.duration is not None
    expected_path = hashlib.sha256(b"/v1/chat/completions").hexdigest()[:16]
    assert span.attributes == {
        "http.method": "GET",
        "http.scheme": "https",
        "http.host": "api.example.com",
        "http.path": expected_path,
        "http.request.body.size": 0,
        "http.status_code": 200,
        "http.response.body.size": len(response.content),
    }
    assert span.usage == {} and span.input is None and span.output is None
    trace = run.trace()
    scope = trace.scopes["httpx"]
    assert (scope.mechanism, scope.layer) == ("patch", "transport")
    assert scope.package == "autobench-instrument-httpx"
    dumped = trace.model_dump_json()
    for secret in (API_KEY, "c00k1e", QUERY_TOKEN, "hunter2", "page=2", "/v1/chat"):
        assert secret not in dumped


async def test_async_span_fields(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))

    async def handler(request: Any) -> Any:
        return flavour.Response(201, json={"id": 7})

    async with _async_client(flavour, handler) as client:
        with recorded_run() as run:
            response = await client.post(
                f"https://api.example.com/items?token={QUERY_TOKEN}", json={"name": "x"}
            )
    span = run.only_http_span()
    assert span.operation == "HTTP POST"
    assert span.attributes["http.status_code"] == 201
    assert span.attributes["http.request.body.size"] == len(b'{"name":"x"}')
    assert span.attributes["http.response.body.size"] == len(response.content)
    assert QUERY_TOKEN not in run.trace().model_dump_json()


def test_full_path_has_no_query(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(_settings(path="full")))
    client = _client(flavour, _json_handler(flavour))
    with recorded_run() as run:
        _secret_request(client)
    span = run.only_http_span()
    assert span.attributes["http.path"] == "/v1/chat/completions"
    dumped = run.trace().model_dump_json()
    assert QUERY_TOKEN not in dumped and "hunter2" not in dumped and "user:" not in dumped


def test_no_path(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(_settings(path="none")))
    client = _client(flavour, _json_handler(flavour))
    with recorded_run() as run:
        _secret_request(client)
    assert "http.path" not in run.only_http_span().attributes


def test_named_headers_only_and_secrets_redacted(
    flavour: ModuleType, manager: InstrumentationManager
) -> None:
    settings = _settings(
        request_headers=("x-request-id", "authorization", "cookie", "x-trace"),
        response_headers=("X-Request-Id", "set-cookie", "content-type"),
    )
    manager.install(create(settings))
    client = _client(flavour, _json_handler(flavour))
    with recorded_run() as run:
        client.get(
            "https://api.example.com/v1/models",
            headers={
                "Authorization": f"Bearer {API_KEY}",
                "Cookie": COOKIE_VALUE,
                "X-Request-Id": "client-1",
                "X-Trace": f"carrier {API_KEY}",
                "X-Other": "not named",
            },
        )
    attributes = run.only_http_span().attributes
    assert attributes["http.request.header.x-request-id"] == "client-1"
    assert attributes["http.request.header.authorization"] == "[redacted]"
    assert attributes["http.request.header.cookie"] == "[redacted]"
    assert attributes["http.request.header.x-trace"] == "carrier [redacted]"
    assert attributes["http.response.header.x-request-id"] == "req-1"
    assert attributes["http.response.header.set-cookie"] == "[redacted]"
    assert attributes["http.response.header.content-type"] == "application/json"
    assert not any("x-other" in key for key in attributes)
    dumped = run.trace().model_dump_json()
    assert API_KEY not in dumped and "c00k1e" not in dumped and "not named" not in dumped


def test_bodies_off_by_default(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))
    client = _client(flavour, _json_handler(flavour))
    with recorded_run() as run:
        client.post("https://api.example.com/v1/chat", json={"prompt": "private words"})
    attributes = run.only_http_span().attributes
    assert "http.request.body" not in attributes and "http.response.body" not in attributes
    assert "private words" not in run.trace().model_dump_json()


def test_text_bodies_enabled_and_bounded(
    flavour: ModuleType, manager: InstrumentationManager
) -> None:
    manager.install(create(_settings(request_body=True, response_body=True, max_body_bytes=12)))

    def handler(request: Any) -> Any:
        return flavour.Response(200, text="héllo world, this is long")

    client = _client(flavour, handler)
    with recorded_run() as run:
        client.post(
            "https://api.example.com/echo", content=b"short", headers={"content-type": "text/plain"}
        )
    attributes = run.only_http_span().attributes
    assert attributes["http.request.body"] == "short"
    assert "http.request.body.truncated" not in attributes
    # 12 bytes of UTF-8: "h", "é" (2 bytes), then 9 more characters.
    assert attributes["http.response.body"] == "héllo world"
    assert attributes["http.response.body.truncated"] is True
    assert attributes["http.response.body.size"] == len("héllo world, this is long".encode())


def test_json_body_secrets_are_redacted(
    flavour: ModuleType, manager: InstrumentationManager
) -> None:
    manager.install(create(_settings(request_body=True, response_body=True)))

    def handler(request: Any) -> Any:
        return flavour.Response(200, json={"access_token": "tok-123456", "user": "ada"})

    client = _client(flavour, handler)
    with recorded_run() as run:
        client.post("https://api.example.com/login", json={"user": "ada", "password": "pa55word"})
    attributes = run.only_http_span().attributes
    assert json.loads(attributes["http.request.body"]) == {"user": "ada", "password": "[redacted]"}
    assert json.loads(attributes["http.response.body"]) == {
        "access_token": "[redacted]",
        "user": "ada",
    }
    dumped = run.trace().model_dump_json()
    assert "pa55word" not in dumped and "tok-123456" not in dumped


def test_binary_body_is_a_digest(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(_settings(request_body=True, response_body=True, max_body_bytes=4)))
    payload = bytes(range(256)) * 4

    def handler(request: Any) -> Any:
        return flavour.Response(200, content=payload, headers={"content-type": "image/png"})

    client = _client(flavour, handler)
    with recorded_run() as run:
        client.put(
            "https://api.example.com/upload",
            content=payload,
            headers={"content-type": "application/octet-stream"},
        )
    attributes = run.only_http_span().attributes
    digest = {"size": len(payload), "sha256": hashlib.sha256(payload).hexdigest()}
    assert attributes["http.request.body"] == digest
    assert attributes["http.response.body"] == digest
    assert attributes["http.request.body.size"] == len(payload)


def test_error_status_is_recorded_not_raised(
    flavour: ModuleType, manager: InstrumentationManager
) -> None:
    manager.install(create(None))
    client = _client(flavour, _json_handler(flavour, status=503))
    with recorded_run() as run:
        response = client.get("https://api.example.com/v1/models")
    assert response.status_code == 503
    span = run.only_http_span()
    assert span.attributes["http.status_code"] == 503
    assert span.status is SpanStatus.OK


def test_exception_passes_through_unchanged(
    flavour: ModuleType, manager: InstrumentationManager
) -> None:
    manager.install(create(None))
    request_box: list[Any] = []

    def handler(request: Any) -> Any:
        error = flavour.ConnectError(f"cannot reach {request.url}", request=request)
        request_box.append(error)
        raise error

    client = _client(flavour, handler)
    with recorded_run() as run:
        with pytest.raises(flavour.ConnectError) as raised:
            client.get(f"https://api.example.com/v1/models?token={QUERY_TOKEN}")
    assert raised.value is request_box[0]
    span = run.only_http_span()
    assert span.status is SpanStatus.ERROR
    assert span.error is not None and span.error.type == "ConnectError"
    assert "api.example.com/v1/models" in span.error.message
    assert QUERY_TOKEN not in run.trace().model_dump_json()
    assert "http.status_code" not in span.attributes


async def test_async_exception_passes_through_unchanged(
    flavour: ModuleType, manager: InstrumentationManager
) -> None:
    manager.install(create(None))
    error = LookupError("transport broke")

    async def handler(request: Any) -> Any:
        raise error

    async with _async_client(flavour, handler) as client:
        with recorded_run() as run:
            with pytest.raises(LookupError) as raised:
                await client.get("https://api.example.com/")
    assert raised.value is error
    span = run.only_http_span()
    assert span.status is SpanStatus.ERROR and span.error is not None
    assert span.error.type == "LookupError"


def test_redirects_are_one_logical_request(
    flavour: ModuleType, manager: InstrumentationManager
) -> None:
    manager.install(create(_settings(path="full")))

    def handler(request: Any) -> Any:
        if request.url.path == "/old":
            return flavour.Response(302, headers={"location": "https://api.example.com/new"})
        return flavour.Response(200, text="moved")

    client = flavour.Client(transport=flavour.MockTransport(handler), follow_redirects=True)
    with recorded_run() as run:
        response = client.get("https://api.example.com/old")
    assert response.text == "moved" and len(response.history) == 1
    span = run.only_http_span()
    assert span.attributes["http.path"] == "/old"
    assert span.attributes["http.status_code"] == 200


def test_no_span_outside_a_run(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))
    collector = TraceCollector()
    client = _client(flavour, _json_handler(flavour))
    assert client.get("https://api.example.com/").json() == {"ok": True}
    with bind_collector(collector):
        pass
    assert client.get("https://api.example.com/").status_code == 200
    assert collector.signals == ()


def test_suppression_skips_the_span(flavour: ModuleType, manager: InstrumentationManager) -> None:
    manager.install(create(None))
    client = _client(flavour, _json_handler(flavour))
    with recorded_run() as run:
        with suppress_instrumentation("httpx"):
            client.get("https://api.example.com/a")
        with suppress_instrumentation("http"):
            client.get("https://api.example.com/b")
        client.get("https://api.example.com/c")
    assert len(run.http_spans()) == 1
