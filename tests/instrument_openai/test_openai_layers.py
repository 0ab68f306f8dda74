"""Layered traces: with the HTTPX instrumentor installed too, HTTP spans nest under OpenAI's."""

from __future__ import annotations

import pytest
from openai_support import (
    ACCOUNTING_CHAT_USAGE,
    ACCOUNTING_SPAN_USAGE,
    MODEL,
    FakeAPI,
    async_client,
    recording,
    sync_client,
)

from autobench.abp import InstrumentationManager, SpanRecord, TraceCollector
from autobench.instrument.openai import create

instrument_httpx = pytest.importorskip("autobench.instrument.httpx")

MESSAGES = [{"role": "user", "content": "Say hello"}]


@pytest.fixture
def both(manager: InstrumentationManager) -> InstrumentationManager:
    manager.install(create(None))
    manager.install(instrument_httpx.create(None))
    return manager


def _pairs(collector: TraceCollector) -> list[tuple[SpanRecord, list[SpanRecord]]]:
    trace = collector.materialize()
    return [
        (span, [child for child in trace.children(span.id) if child.scope == "httpx"])
        for span in trace.spans
        if span.scope == "openai"
    ]


@pytest.mark.usefixtures("both")
async def test_http_spans_are_children_of_openai_spans() -> None:
    api = FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE)
    client, aclient = sync_client(api), async_client(api)
    with recording() as collector:
        client.chat.completions.create(model=MODEL, messages=MESSAGES)
        for _ in client.chat.completions.create(
            model=MODEL, messages=MESSAGES, stream=True, stream_options={"include_usage": True}
        ):
            pass
        await aclient.responses.create(model=MODEL, input="x")
        async with aclient.chat.completions.stream(model=MODEL, messages=MESSAGES) as stream:
            await stream.until_done()
    pairs = _pairs(collector)
    assert len(pairs) == 4
    for span, http in pairs:
        assert len(http) == 1, span.operation
        assert not http[0].partial  # the HTTP exchange ended inside the OpenAI span
        assert http[0].offset + (http[0].duration or 0) <= span.offset + (span.duration or 0)
        assert "input_tokens" not in http[0].usage  # transport spans carry no tokens
        # the SDK drains a stream it stopped reading; that is not an error of the request
        assert http[0].status.value == "ok", (span.operation, http[0].error)
    assert pairs[0][0].usage == pairs[1][0].usage == ACCOUNTING_SPAN_USAGE
