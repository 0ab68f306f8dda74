"""Method instrumentation inside real benchmark runs: spans, streams, extraction, restoration."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import itertools
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from instrument_support import TASK_SOURCE

from autobench import (
    InstrumentationHandle,
    InstrumentFactorSpec,
    InstrumentMetricSpec,
    RunRecord,
    instrument_method,
    run_benchmark_spec,
)
from autobench.abp import SpanRecord, Trace, active_collector
from autobench.core.spec import BenchmarkSpec

_names = itertools.count(1)


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    name = f"instrumented_app_{next(_names)}"
    (tmp_path / f"{name}.py").write_text(TASK_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return importlib.import_module(name)


def run_task(module: ModuleType, task: str) -> RunRecord:
    spec = BenchmarkSpec.model_validate(
        {
            "benchmark": {"id": "instrumentation"},
            "dataset": {"cases": [{"id": "c1", "input": {}}]},
            "variants": [{"id": "v1"}],
            "task": {"target": f"{module.__name__}:{task}"},
        }
    )
    spec = spec.model_copy(update={"base_dir": Path(module.__file__ or ".").parent})
    record = asyncio.run(run_benchmark_spec(spec)).runs[0]
    assert not record.errors, record.errors
    return record


def trace_of(record: RunRecord) -> Trace:
    assert isinstance(record.trace, Trace)
    return record.trace


def spans(record: RunRecord, operation: str) -> list[SpanRecord]:
    return [span for span in trace_of(record).spans if span.operation == operation]


@pytest.fixture
def handles() -> Iterator[list[InstrumentationHandle]]:
    opened: list[InstrumentationHandle] = []
    yield opened
    for handle in reversed(opened):
        handle.close()


def test_instance_static_class_and_inherited_methods(app: ModuleType, handles: list[Any]) -> None:
    client = app.Client
    handles += [
        instrument_method(
            client,
            "search",
            span="search.request",
            kind="retriever",
            metrics=[
                InstrumentMetricSpec(
                    "result_count",
                    "retrieval.result_count",
                    value_factory=lambda c: len(c.result.items),
                ),
                InstrumentMetricSpec(
                    "requests", "llm.requests", value_path="result.usage.requests"
                ),
                InstrumentMetricSpec("counted", None, value_path="result.count"),
                InstrumentMetricSpec("limit", None, value_path="kwargs.limit"),
            ],
            factors=[
                InstrumentFactorSpec("query", value_path="args.0"),
                InstrumentFactorSpec("client", value_path="self.name"),
            ],
        ),
        instrument_method(client, "normalize", kind="parser"),
        instrument_method(client, "create"),
    ]
    record = run_task(app, "calls")
    assert record.output == {"count": 3, "normal": "a", "name": "x"}
    outer = spans(record, "outer")[0]
    (search,) = spans(record, "search.request")
    assert search.kind == "retriever" and search.parent == outer.id
    assert search.duration is not None and search.duration > 0
    assert spans(record, "Client.normalize")[0].kind == "parser"
    assert spans(record, "Client.create")[0].parent == outer.id
    values = {obs.name: obs for obs in record.observations}
    assert values["result_count"].value == 3
    assert values["result_count"].semantic_type == "retrieval.result_count"
    assert values["requests"].value == 3 and values["counted"].value == 3
    assert values["limit"].value == 3
    assert values["query"].value == "q" and values["query"].kind == "factor"
    assert values["client"].value == "x"
    assert {obs.span_id for obs in values.values()} == {search.id}


def test_async_call_and_exception_identity(app: ModuleType, handles: list[Any]) -> None:
    handles += [
        instrument_method(app.Client, "asearch"),
        instrument_method(app.Client, "afail"),
        instrument_method(app.Client, "fail"),
    ]
    record = run_task(app, "async_calls")
    assert record.output == {"count": 1, "same": True}
    (afail,) = spans(record, "Client.afail")
    assert afail.status == "error" and afail.error is not None
    assert afail.error.type == "LookupError"
    assert spans(record, "Client.asearch")[0].status == "ok"
    failed = run_task(app, "failing")
    assert failed.output == {"same": True}
    assert spans(failed, "Client.fail")[0].status == "error"


def test_generator_span_lasts_until_the_stream_is_exhausted(
    app: ModuleType, handles: list[Any]
) -> None:
    handles.append(
        instrument_method(
            app.Client,
            "stream",
            span="stream",
            metrics=[
                InstrumentMetricSpec("items", None, value_path="item_count"),
                InstrumentMetricSpec("last", None, value_factory=lambda call: call.last_item),
            ],
        )
    )
    record = run_task(app, "streams")
    out = record.output
    assert out["items"] == [0, 1, 2]
    assert out["before_partial"] and out["before_duration"] is None
    assert out["during_partial"]
    assert not out["after_partial"] and out["after_duration"] >= 0.006
    (stream,) = spans(record, "stream")
    assert stream.attributes["end_reason"] == "completed"
    assert stream.attributes["stream.items"] == 3
    values = {obs.name: obs.value for obs in record.observations}
    assert values == {"items": 3, "last": 2}


def test_generator_send_throw_close_and_abandon(app: ModuleType, handles: list[Any]) -> None:
    handles += [
        instrument_method(app.Client, "stream", span="stream"),
        instrument_method(app.Client, "tolerant"),
    ]
    record = run_task(app, "stream_protocol")
    assert record.output == {
        "first": 0,
        "echoed": "got hello",
        "ready": "ready",
        "recovered": "recovered",
    }
    closed, abandoned = spans(record, "stream")
    assert closed.attributes["end_reason"] == "closed" and not closed.partial
    assert abandoned.partial and abandoned.duration is None
    assert abandoned.attributes["end_reason"] == "abandoned"
    assert abandoned.attributes["stream.items"] == 1
    (tolerant,) = spans(record, "Client.tolerant")
    assert tolerant.attributes["end_reason"] == "closed"
    assert tolerant.attributes["stream.items"] == 2


def test_async_generator_asend_athrow_aclose(app: ModuleType, handles: list[Any]) -> None:
    handles.append(instrument_method(app.Client, "astream", span="astream"))
    record = run_task(app, "async_streams")
    assert record.output == {"first": 0, "echoed": "got hello", "rest": [1, 2], "same": True}
    completed, closed, failed = spans(record, "astream")
    assert completed.attributes["end_reason"] == "completed"
    assert completed.attributes["stream.items"] == 4
    assert completed.duration is not None and completed.duration >= 0.006
    assert closed.attributes["end_reason"] == "closed"
    assert failed.status == "error" and failed.attributes["end_reason"] == "error"


@pytest.mark.parametrize(
    ("task", "method", "inner", "value"),
    [
        ("context_managers", "session", "search", "session"),
        ("async_context_managers", "asession", "asearch", "asession"),
    ],
)
def test_context_manager_span_covers_the_block(
    app: ModuleType, handles: list[Any], task: str, method: str, inner: str, value: str
) -> None:
    handles += [
        instrument_method(
            app.Client,
            method,
            span="session",
            factors=[InstrumentFactorSpec("entered", value_path="result")],
        ),
        instrument_method(app.Client, inner, span="inner"),
    ]
    record = run_task(app, task)
    assert record.output == {"value": value}
    (session,) = spans(record, "session")
    (inner_span,) = spans(record, "inner")
    assert inner_span.parent == session.id
    assert session.duration is not None and inner_span.duration is not None
    assert session.duration > inner_span.duration
    assert session.attributes["end_reason"] == "completed"
    assert [obs.value for obs in record.observations] == [value]


def test_extraction_errors_become_diagnostics(app: ModuleType, handles: list[Any]) -> None:
    def broken(call: Any) -> Any:
        raise RuntimeError("factory bug")

    handles.append(
        instrument_method(
            app.Client,
            "search",
            metrics=[
                InstrumentMetricSpec("missing", None, value_path="result.usage.nothing"),
                InstrumentMetricSpec("broken", None, value_factory=broken),
            ],
        )
    )
    record = run_task(app, "calls")
    assert record.output == {"count": 3, "normal": "a", "name": "x"}
    diagnostics = [obs for obs in record.observations if obs.kind == "diagnostic"]
    assert len(diagnostics) == 2
    assert "nothing" in diagnostics[0].value and "factory bug" in diagnostics[1].value
    assert all(obs.role == "diagnostic" for obs in diagnostics)


def test_outside_a_run_the_wrapper_calls_straight_through(app: ModuleType) -> None:
    calls: list[Any] = []
    with instrument_method(
        app.Client,
        "search",
        metrics=[InstrumentMetricSpec("n", None, value_factory=calls.append)],
    ):
        assert active_collector() is None
        result = app.Client("x").search("q")
        assert len(result.items) == 2
        with pytest.raises(LookupError) as raised:
            app.Client("x").fail()
    assert raised.value is app.ERROR
    assert calls == []


def test_signatures_and_descriptors_are_restored_exactly(app: ModuleType) -> None:
    base = app.BaseClient
    originals = {name: base.__dict__[name] for name in ("search", "normalize", "create", "stream")}
    signatures = {name: inspect.signature(getattr(app.Client, name)) for name in originals}
    handles = [instrument_method(app.Client, name) for name in originals]
    handles.append(instrument_method(base, "normalize", span="base.normalize"))
    for name in originals:
        assert name in app.Client.__dict__
        assert inspect.signature(getattr(app.Client, name)) == signatures[name]
    assert isinstance(app.Client.__dict__["normalize"], staticmethod)
    assert isinstance(app.Client.__dict__["create"], classmethod)
    assert inspect.isgeneratorfunction(app.Client.__dict__["stream"]) is False
    assert app.Client.search.__wrapped__ is originals["search"]
    for handle in handles:
        handle.close()
        handle.close()  # idempotent
    for name, original in originals.items():
        assert name not in app.Client.__dict__
        assert base.__dict__[name] is original


def test_overlapping_owners_restore_in_any_order(app: ModuleType) -> None:
    original = app.BaseClient.__dict__["search"]
    first = instrument_method(app.BaseClient, "search", span="first")
    second = instrument_method(app.BaseClient, "search", span="second")
    first.close()
    assert app.BaseClient.__dict__["search"] is not original
    second.close()
    assert app.BaseClient.__dict__["search"] is original
    assert not first.diagnostics and not second.diagnostics


def test_foreign_replacement_is_left_in_place_with_a_conflict(app: ModuleType) -> None:
    handle = instrument_method(app.Client, "search")

    def foreign(self: Any, query: str, *, limit: int = 2) -> str:
        return "foreign"

    app.Client.search = foreign
    handle.close()
    assert app.Client.__dict__["search"] is foreign
    (diagnostic,) = handle.diagnostics
    assert diagnostic.state == "conflicting" and not diagnostic.installable
    assert "Client.search" in diagnostic.reason


def test_suppression_is_task_local_nested_and_reset_on_error(
    app: ModuleType, handles: list[Any]
) -> None:
    handles += [
        instrument_method(app.Client, "asearch", span="search.async"),
        instrument_method(app.Client, "search", span="other.family.search"),
    ]
    record = run_task(app, "suppressed")
    async_spans = spans(record, "search.async")
    assert len(async_spans) == 1  # only the sibling task outside the scope recorded
    sync_spans = spans(record, "other.family.search")
    assert len(sync_spans) == 1  # "after-raise": the scope was reset when its body raised


def test_span_kind_sets_the_kind_of_the_span_it_opens(app: ModuleType, handles: list[Any]) -> None:
    from autobench import SpanKind

    handles.append(instrument_method(app.Client, "search", span_kind=SpanKind.TOOL))
    record = run_task(app, "calls")
    assert [span.kind for span in spans(record, "Client.search")] == ["tool"]
    with pytest.raises(TypeError, match="differ"):
        instrument_method(app.Client, "normalize", kind="parser", span_kind=SpanKind.TOOL)
