"""Streams a task leaves open: the run ends their spans with what they read.

Real runs of the runtime (``Benchmark``) whose task reads part of an OpenAI stream
(the real sync and async clients over ``MockTransport`` SSE streams), stops, keeps the
stream and returns: the span ends as the run ends, partial, with reason
``open_at_run_end``, the model and response id of the chunks read, the usage of a
usage chunk when one was read, its request counted, and a
``stream_not_consumed`` warning.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest
from openai_support import (
    ACCOUNTING_CHAT_USAGE,
    MODEL,
    MODEL_VERSION,
    FakeAPI,
    async_client,
    only_span,
    openai_spans,
    recording,
    sync_client,
)

from autobench import Benchmark, HTTPXInstrumentation, OpenAIInstrumentation
from autobench.abp import OPEN_AT_RUN_END, STREAM_NOT_CONSUMED, SpanRecord, Trace
from autobench.records import ObservationQuery, RunRecord, run_observations

MESSAGES = [{"role": "user", "content": "Say hello"}]
KEPT: list[Any] = []
"""Streams the tasks keep past their return (as an application holding a reference)."""


def _create(client: Any, case: Any) -> Any:
    options = {"include_usage": True} if case.input.get("usage") else None
    return client.chat.completions.create(
        model=MODEL, messages=MESSAGES, stream=True, stream_options=options
    )


def read_part_sync(ctx: Any, case: Any) -> str:
    stream = _create(sync_client(FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE)), case)
    for number, _ in enumerate(stream, start=1):
        if number == case.input["read"]:
            break
    KEPT.append(stream)
    return "read"


async def read_part_async(ctx: Any, case: Any) -> str:
    stream = await _create(async_client(FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE)), case)
    number = 0
    async for _ in stream:
        number += 1
        if number == case.input["read"]:
            break
    KEPT.append(stream)
    return "read"


def _runs(tmp_path: Path, task: Any, *layers: Any) -> dict[str, RunRecord]:
    result = (
        Benchmark("open-streams")
        .dataset(
            [
                # two chunks read of five (three texts, the finish, the usage chunk)
                {"id": "early", "input": {"read": 2}},
                # every chunk read, the usage chunk too, but not the end of the stream
                {"id": "usage_read", "input": {"read": 5, "usage": True}},
            ]
        )
        .variants([{"id": "v1"}])
        .task(task)
        .base_dir(tmp_path)
        .instrument(*layers)
        .run()
    )
    KEPT.clear()
    gc.collect()  # the SDK's unfinished generators end here, not inside a later import
    assert [run.status.value for run in result.runs] == ["passed", "passed"]
    return {run.case_id: run for run in result.runs}


def _span(trace: Trace, scope: str) -> SpanRecord:
    (span,) = [span for span in trace.spans if span.scope == scope]
    return span


def _not_consumed(trace: Trace) -> list[str]:
    names = {span.id: span.scope for span in trace.spans}
    return sorted(
        str(names.get(diagnostic.span or ""))
        for diagnostic in trace.diagnostics
        if diagnostic.code == STREAM_NOT_CONSUMED
    )


@pytest.mark.parametrize("task", [read_part_sync, read_part_async], ids=["sync", "async"])
@pytest.mark.parametrize("with_httpx", [False, True], ids=["openai", "openai+httpx"])
def test_a_stream_open_at_run_end_keeps_what_it_read(
    tmp_path: Path, task: Any, with_httpx: bool
) -> None:
    layers = [OpenAIInstrumentation(), *([HTTPXInstrumentation()] if with_httpx else [])]
    runs = _runs(tmp_path, task, *layers)
    for case_id, items in (("early", 2), ("usage_read", 5)):
        run = runs[case_id]
        assert isinstance(run.trace, Trace)
        span = _span(run.trace, "openai")
        assert span.partial and span.duration is None and span.status == "ok"
        assert span.attributes["end_reason"] == OPEN_AT_RUN_END
        assert span.attributes["stream.items"] == items
        assert span.attributes["llm.model.response"] == MODEL_VERSION
        assert span.attributes["llm.response.id"] == "chatcmpl-s"
        assert span.attributes["llm.model.requested"] == MODEL
        query = ObservationQuery(observations=run_observations(run))
        assert query.values("llm.request.count") == [1]
        expected_scopes = ["httpx", "openai"] if with_httpx else ["openai"]
        assert _not_consumed(run.trace) == expected_scopes
        if with_httpx:
            http = _span(run.trace, "httpx")
            assert http.partial and http.attributes["end_reason"] == OPEN_AT_RUN_END
            assert http.parent == span.id
        if case_id == "early":
            assert span.usage == {"requests": 1}
            assert query.values("llm.tokens.input") in ([], [None])
        else:  # the usage chunk arrived before the task stopped reading
            assert span.usage["input_tokens"] == ACCOUNTING_CHAT_USAGE["prompt_tokens"]
            assert query.values("llm.tokens.input") == [1000]
            assert query.values("llm.tokens.output") == [200]


def test_output_read_so_far_is_kept(tmp_path: Path) -> None:
    runs = _runs(tmp_path, read_part_sync, OpenAIInstrumentation(capture_output=True))
    span = _span(_trace(runs["early"]), "openai")
    assert span.output == [{"role": "assistant", "content": "Hello", "finish_reason": None}]


def _trace(run: RunRecord) -> Trace:
    assert isinstance(run.trace, Trace)
    return run.trace


@pytest.mark.usefixtures("installed")
def test_an_abandoned_stream_keeps_its_facts_and_says_so() -> None:
    with recording() as collector:
        stream = sync_client(FakeAPI()).chat.completions.create(
            model=MODEL, messages=MESSAGES, stream=True
        )
        next(stream)
        del stream
        gc.collect()
        span = only_span(collector)
        trace = collector.materialize()
    assert span.partial and span.attributes["end_reason"] == "abandoned"
    assert span.attributes["llm.model.response"] == MODEL_VERSION
    assert span.usage == {"requests": 1}
    (diagnostic,) = [d for d in trace.diagnostics if d.code == STREAM_NOT_CONSUMED]
    assert diagnostic.span == span.id


@pytest.mark.usefixtures("installed")
def test_a_stream_read_to_its_end_is_not_held_by_the_run() -> None:
    with recording() as collector:
        stream = sync_client(FakeAPI()).chat.completions.create(
            model=MODEL, messages=MESSAGES, stream=True
        )
        assert len(list(stream)) == 4
        assert collector.end_open_streams() == 0
    span = only_span(collector)
    assert span.attributes["end_reason"] == "completed" and not span.partial
    # no usage chunk was asked for: the request is counted, its tokens unmeasured
    codes = [d.code for d in collector.materialize().diagnostics]
    assert codes == ["instrumentation.usage_unmeasured"]


def unparsed_raw_stream(ctx: Any, case: Any) -> str:
    """A streamed ``with_raw_response`` call whose response the task keeps but never parses."""
    client = sync_client(FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE))
    KEPT.append(
        client.chat.completions.with_raw_response.create(
            model=MODEL, messages=MESSAGES, stream=True
        )
    )
    return "kept"


def test_a_raw_stream_never_parsed_ends_at_run_end_with_its_request(tmp_path: Path) -> None:
    result = (
        Benchmark("unparsed")
        .dataset([{"id": "one", "input": {}}])
        .variants([{"id": "v1"}])
        .task(unparsed_raw_stream)
        .base_dir(tmp_path)
        .instrument(OpenAIInstrumentation())
        .run()
    )
    KEPT.clear()
    (run,) = result.runs
    span = _span(_trace(run), "openai")
    assert span.partial and span.attributes["end_reason"] == OPEN_AT_RUN_END
    assert span.attributes["stream.items"] == 0
    assert span.usage == {"requests": 1}
    assert _not_consumed(_trace(run)) == ["openai"]
    assert ObservationQuery(observations=run_observations(run)).values("llm.request.count") == [1]


@pytest.mark.usefixtures("installed")
def test_a_raw_stream_response_dropped_unparsed_is_abandoned() -> None:
    with recording() as collector:
        response = sync_client(FakeAPI()).chat.completions.with_raw_response.create(
            model=MODEL, messages=MESSAGES, stream=True
        )
        assert openai_spans(collector)[0].partial  # open until parse() or the response is gone
        del response
        gc.collect()
        span = only_span(collector)
    assert span.partial and span.attributes["end_reason"] == "abandoned"
    assert span.usage == {"requests": 1}


@pytest.mark.usefixtures("installed")
def test_a_raw_stream_parsed_and_read_is_measured_like_a_plain_one() -> None:
    with recording() as collector:
        response = sync_client(FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE)).chat.completions
        raw = response.with_raw_response.create(
            model=MODEL, messages=MESSAGES, stream=True, stream_options={"include_usage": True}
        )
        stream = raw.parse()
        assert raw.parse() is stream  # the SDK's cache: one stream, followed once
        assert len(list(stream)) == 5
    span = only_span(collector)
    assert span.attributes["end_reason"] == "completed" and not span.partial
    assert span.usage["input_tokens"] == ACCOUNTING_CHAT_USAGE["prompt_tokens"]
    assert span.attributes["llm.model.response"] == MODEL_VERSION
