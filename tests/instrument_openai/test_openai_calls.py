"""Non-streamed calls: chat completions, responses, embeddings, raw responses, errors."""

from __future__ import annotations

import asyncio

import httpx2
import openai
import pytest
from openai_support import (
    ACCOUNTING_CHAT_USAGE,
    ACCOUNTING_SPAN_USAGE,
    API_KEY,
    MODEL,
    MODEL_VERSION,
    RESPONSES_SPAN_USAGE,
    FakeAPI,
    async_client,
    only_span,
    openai_spans,
    recording,
    root_id,
    sync_client,
)

from autobench.abp import InstrumentationManager, SpanRecord, start_span
from autobench.core.native import OpenAIInstrumentation
from autobench.instrument.openai import create

MESSAGES = [{"role": "user", "content": "Say hello"}]


@pytest.mark.usefixtures("installed")
def test_chat_completion_sync() -> None:
    api = FakeAPI()
    client = sync_client(api)
    with recording() as collector:
        result = client.chat.completions.create(model=MODEL, messages=MESSAGES)
    assert result is client.last and result.choices[0].message.content == "Hello!"
    span = only_span(collector)
    assert span.operation == "openai.chat.completions" and span.kind == "llm"
    assert span.parent == root_id(collector) and span.status == "ok" and not span.partial
    assert span.attributes == {
        "llm.provider": "openai",
        "server.address": "api.openai.com",
        "llm.model.requested": MODEL,
        "llm.model.response": MODEL_VERSION,
        "llm.response.id": "chatcmpl-1",
        "llm.stream": False,
    }
    assert span.usage == {"requests": 1, "input_tokens": 12, "output_tokens": 3}
    assert span.input is None and span.output is None  # capture is off by default
    assert api.request_spans == [span.id]  # the span is active while the SDK sends


@pytest.mark.usefixtures("installed")
async def test_chat_completion_async() -> None:
    api = FakeAPI()
    client = async_client(api)
    with recording() as collector:
        result = await client.chat.completions.create(model=MODEL, messages=MESSAGES)
    assert result is client.last
    span = only_span(collector)
    assert span.operation == "openai.chat.completions" and span.parent == root_id(collector)
    assert span.attributes["llm.model.response"] == MODEL_VERSION
    assert span.usage == {"requests": 1, "input_tokens": 12, "output_tokens": 3}
    assert api.request_spans == [span.id]


@pytest.mark.usefixtures("installed")
@pytest.mark.parametrize("streamed", [False, True])
def test_the_accounting_example(streamed: bool) -> None:
    api = FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE)
    client = sync_client(api)
    with recording() as collector:
        if streamed:
            stream = client.chat.completions.create(
                model=MODEL,
                messages=MESSAGES,
                stream=True,
                stream_options={"include_usage": True},
            )
            for _ in stream:
                pass
        else:
            client.chat.completions.create(model=MODEL, messages=MESSAGES)
    assert only_span(collector).usage == ACCOUNTING_SPAN_USAGE


@pytest.mark.usefixtures("installed")
async def test_responses_sync_and_async() -> None:
    api = FakeAPI()
    client = sync_client(api)
    with recording() as collector:
        result = client.responses.create(model=MODEL, input="Say hi")
        aresult = await async_client(api).responses.create(model=MODEL, input="Say hi")
    assert result is client.last and result.output_text == "Hi there"
    assert aresult.output_text == "Hi there"
    spans = openai_spans(collector)
    assert [span.operation for span in spans] == ["openai.responses"] * 2
    for span in spans:
        assert span.usage == RESPONSES_SPAN_USAGE
        assert span.attributes["llm.model.response"] == MODEL_VERSION
        assert span.attributes["llm.response.id"] == "resp_1"
        assert span.attributes["llm.response.status"] == "completed"


@pytest.mark.usefixtures("installed")
async def test_embeddings_sync_and_async() -> None:
    api = FakeAPI()
    with recording() as collector:
        result = sync_client(api).embeddings.create(model="text-embedding-test", input=["a", "b"])
        aresult = await async_client(api).embeddings.create(model="text-embedding-test", input="a")
    assert len(result.data) == 2 and len(aresult.data) == 2
    spans = openai_spans(collector)
    assert [span.operation for span in spans] == ["openai.embeddings"] * 2
    for span in spans:
        assert span.usage == {"requests": 1, "input_tokens": 7}
        assert span.attributes["llm.model.requested"] == "text-embedding-test"
        assert span.attributes["llm.model.response"] == "text-embedding-test"


@pytest.mark.usefixtures("installed")
async def test_raw_responses_are_recorded_once_and_left_untouched() -> None:
    api = FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE)
    client, aclient = sync_client(api), async_client(api)
    with recording() as collector:
        raw = client.chat.completions.with_raw_response.create(model=MODEL, messages=MESSAGES)
        assert raw is client.last
        araw = await aclient.responses.with_raw_response.create(model=MODEL, input="x")
        assert araw is aclient.last
        eraw = client.embeddings.with_raw_response.create(model="text-embedding-test", input="x")
    assert raw.headers["content-type"] == "application/json"
    assert raw.parse().usage.prompt_tokens == 1000  # the caller still parses it
    assert araw.parse().output_text == "Hi there" and len(eraw.parse().data) == 2
    chat, responses, embeddings = openai_spans(collector)
    assert chat.usage == ACCOUNTING_SPAN_USAGE
    assert chat.attributes["llm.model.response"] == MODEL_VERSION
    assert responses.usage == RESPONSES_SPAN_USAGE
    assert embeddings.usage == {"requests": 1, "input_tokens": 7}


@pytest.mark.usefixtures("installed")
async def test_parse_is_recorded_once() -> None:
    api = FakeAPI()
    with recording() as collector:
        parsed = sync_client(api).chat.completions.parse(model=MODEL, messages=MESSAGES)
        aparsed = await async_client(api).responses.parse(model=MODEL, input="x")
    assert parsed.choices[0].message.content == "Hello!" and aparsed.output_text == "Hi there"
    spans = openai_spans(collector)
    assert [span.operation for span in spans] == ["openai.chat.completions", "openai.responses"]
    assert spans[0].usage["input_tokens"] == 12 and spans[1].usage["input_tokens"] == 40


@pytest.mark.usefixtures("installed")
@pytest.mark.parametrize(
    ("status", "error_type"),
    [(400, openai.BadRequestError), (500, openai.InternalServerError)],
)
def test_api_errors_pass_through_with_an_error_span(
    status: int, error_type: type[openai.APIStatusError]
) -> None:
    api = FakeAPI(status=status, error_body={"error": {"message": "invalid model"}})
    with recording() as collector, pytest.raises(error_type) as raised:
        sync_client(api).chat.completions.create(model=MODEL, messages=MESSAGES)
    assert raised.value.status_code == status
    assert raised.value.response is api.responses[0]
    span = only_span(collector)
    assert span.status == "error" and span.error is not None
    assert span.error.type == error_type.__name__ and "invalid model" in span.error.message
    assert span.usage == {"requests": 1}
    assert "llm.model.response" not in span.attributes


@pytest.mark.usefixtures("installed")
async def test_the_raised_exception_is_the_same_object() -> None:
    request = httpx2.Request("POST", "https://api.openai.com/v1/chat/completions")
    prebuilt = openai.APIStatusError(
        "quota exceeded", response=httpx2.Response(429, request=request), body=None
    )
    api = FakeAPI(raises=prebuilt)
    with recording() as collector:
        with pytest.raises(openai.APIStatusError) as raised:
            sync_client(api).chat.completions.create(model=MODEL, messages=MESSAGES)
        assert raised.value is prebuilt
        with pytest.raises(openai.APIStatusError) as araised:
            await async_client(api).chat.completions.create(model=MODEL, messages=MESSAGES)
        assert araised.value is prebuilt
    assert [span.status for span in openai_spans(collector)] == ["error", "error"]


@pytest.mark.usefixtures("installed")
def test_argument_errors_raise_where_the_sdk_raises_them() -> None:
    client = async_client(FakeAPI())
    with recording() as collector, pytest.raises(TypeError, match="Missing required arguments"):
        client.chat.completions.create(model=MODEL)  # missing messages
    assert openai_spans(collector) == []


@pytest.mark.usefixtures("installed")
def test_another_base_url_is_the_openai_system_at_that_server_address() -> None:
    api = FakeAPI()
    client = sync_client(api, base_url="https://openrouter.ai/api/v1")
    with recording() as collector:
        client.chat.completions.create(model="openai/gpt-test", messages=MESSAGES)
    span = only_span(collector)
    assert span.attributes["llm.provider"] == "openai"
    assert span.attributes["server.address"] == "openrouter.ai"
    assert span.attributes["llm.model.requested"] == "openai/gpt-test"
    assert api.requests[0].url.host == "openrouter.ai"


@pytest.mark.usefixtures("installed")
def test_an_azure_client_or_host_is_the_azure_openai_system() -> None:
    api = FakeAPI()
    transport = httpx2.MockTransport(api.handle)
    azure = openai.AzureOpenAI(
        api_key="azure-test-key",
        api_version="2026-01-01",
        azure_endpoint="https://contoso.example.net",
        max_retries=0,
        http_client=httpx2.Client(transport=transport),
    )
    by_host = sync_client(api, base_url="https://contoso.openai.azure.com/openai/v1")
    with recording() as collector:
        azure.chat.completions.create(model="gpt-test", messages=MESSAGES)
        by_host.chat.completions.create(model="gpt-test", messages=MESSAGES)
    spans = openai_spans(collector)
    assert [span.attributes["llm.provider"] for span in spans] == ["azure.ai.openai"] * 2
    assert [span.attributes["server.address"] for span in spans] == [
        "contoso.example.net",
        "contoso.openai.azure.com",
    ]
    assert [request.url.host for request in api.requests] == [
        "contoso.example.net",
        "contoso.openai.azure.com",
    ]


@pytest.mark.usefixtures("installed")
async def test_parentage_under_asyncio_concurrency() -> None:
    api = FakeAPI(delay=0.01)
    client = async_client(api)

    async def worker(name: str) -> str:
        with start_span(name) as parent:
            await asyncio.sleep(0)
            await client.chat.completions.create(model=name, messages=MESSAGES)
            await client.embeddings.create(model=name, input="x")
            return parent.id

    with recording() as collector:
        parents = await asyncio.gather(*(worker(f"worker-{index}") for index in range(4)))
    spans = openai_spans(collector)
    assert len(spans) == 8
    by_model: dict[str, list[SpanRecord]] = {}
    for span in spans:
        by_model.setdefault(span.attributes["llm.model.requested"], []).append(span)
    for index, parent in enumerate(parents):
        mine = by_model[f"worker-{index}"]
        assert [span.parent for span in mine] == [parent, parent]
    # every request was sent with its own call's span active
    sent: dict[str, list[str | None]] = {body["model"]: [] for body in api.bodies}
    for body, active in zip(api.bodies, api.request_spans, strict=True):
        sent[body["model"]].append(active)
    for model, spans_of_model in by_model.items():
        assert sent[model] == [span.id for span in spans_of_model]


def test_capture_input_and_output(manager: InstrumentationManager) -> None:
    manager.install(create(OpenAIInstrumentation(capture_input=True, capture_output=True)))
    api = FakeAPI()
    client = sync_client(api)
    messages = list(MESSAGES)
    with recording() as collector:
        client.chat.completions.create(model=MODEL, messages=messages)
        messages.append({"role": "user", "content": "later"})
        client.responses.create(model=MODEL, input="Say hi", instructions="Be brief")
        client.embeddings.create(model="text-embedding-test", input=["a", "b"])
    chat, responses, embeddings = openai_spans(collector)
    assert chat.input == {"messages": MESSAGES}  # recorded as sent, not as mutated later
    assert chat.output == [{"role": "assistant", "content": "Hello!", "finish_reason": "stop"}]
    assert responses.input == {"instructions": "Be brief", "input": "Say hi"}
    assert responses.output == "Hi there"
    assert embeddings.input == {"input": ["a", "b"]}
    assert embeddings.output == {"count": 2, "dimensions": 3}


def test_a_one_shot_iterable_of_messages_is_not_consumed(manager: InstrumentationManager) -> None:
    manager.install(create(OpenAIInstrumentation(capture_input=True)))
    api = FakeAPI()
    with recording() as collector:
        sync_client(api).chat.completions.create(model=MODEL, messages=iter(MESSAGES))
    assert api.bodies[0]["messages"] == MESSAGES
    assert only_span(collector).input == {"messages": "[not captured: one-shot iterable]"}


def test_the_api_key_never_reaches_the_trace(manager: InstrumentationManager) -> None:
    manager.install(create(OpenAIInstrumentation(capture_input=True, capture_output=True)))
    api = FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE)
    client = sync_client(api)
    with recording() as collector:
        client.chat.completions.create(model=MODEL, messages=MESSAGES)
        for _ in client.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True):
            pass
        with pytest.raises(openai.APIConnectionError):
            sync_client(FakeAPI(raises=httpx2.ConnectError("refused"))).embeddings.create(
                model="m", input="x"
            )
    assert api.requests[0].headers["authorization"] == f"Bearer {API_KEY}"
    dumped = collector.materialize().model_dump_json()
    assert len(openai_spans(collector)) == 3
    assert API_KEY not in dumped and API_KEY[3:] not in dumped
