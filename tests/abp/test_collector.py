from __future__ import annotations

import random
import re
from datetime import UTC, datetime

import pytest

from autobench.abp import (
    PROTOCOL_VERSION,
    SpanRecord,
    SpanStatus,
    Trace,
    TraceCollector,
    TraceEnvelope,
    bind_collector,
    new_span_id,
    new_trace_id,
    start_span,
)


def test_nested_spans_materialise_with_parentage_and_scope() -> None:
    collector = TraceCollector()
    with bind_collector(collector), start_span("benchmark.run", kind="task") as root:
        with start_span("child", kind="tool", input={"q": 1}, tags={"tool": "t"}) as child:
            child.set_output({"a": 1})
            child.set_usage(input_tokens=3)
            child.set_attribute("k", "v")
    trace = collector.materialize()
    assert [span.operation for span in trace.spans] == ["benchmark.run", "child"]
    assert trace.spans[1].parent == root.id
    assert trace.spans[1].output == {"a": 1} and trace.spans[1].usage == {"input_tokens": 3}
    assert trace.spans[1].attributes == {"k": "v"}
    assert trace.scopes["autobench.manual"].mechanism == "manual"
    assert all(span.duration is not None and span.duration >= 0 for span in trace.spans)
    assert trace.path(trace.spans[1].id) == ("benchmark.run", "child")
    assert not trace.partial
    assert TraceEnvelope is Trace


def test_a_raising_body_ends_the_span_with_its_error_and_propagates() -> None:
    collector = TraceCollector()
    with bind_collector(collector), pytest.raises(ZeroDivisionError), start_span("boom"):
        1 / 0  # noqa: B018
    (span,) = collector.materialize().spans
    assert span.status is SpanStatus.ERROR
    assert span.error is not None and span.error.type == "ZeroDivisionError"


def test_an_unended_span_is_partial() -> None:
    collector = TraceCollector()
    with bind_collector(collector):
        manager = start_span("open")
        manager.__enter__()
        trace = collector.materialize()
        manager.__exit__(None, None, None)
    assert trace.partial and trace.spans[0].partial and trace.spans[0].duration is None


def test_spans_need_an_active_collector() -> None:
    with pytest.raises(RuntimeError, match="no active trace collector"), start_span("orphan"):
        pass


def test_unknown_additive_fields_survive_a_round_trip() -> None:
    data = {"id": "t", "spans": [], "future_field": {"x": 1}}
    assert Trace.model_validate(data).model_dump()["future_field"] == {"x": 1}


def test_ids_have_the_w3c_sizes_and_ignore_the_global_random_seed() -> None:
    random.seed(7)
    first = new_span_id()
    random.seed(7)
    assert new_span_id() != first
    assert re.fullmatch(r"[0-9a-f]{16}", first)
    assert re.fullmatch(r"[0-9a-f]{32}", new_trace_id())


def test_compatibility_constructors_keep_working() -> None:
    started = datetime.now(UTC)
    envelope = TraceEnvelope(
        trace_id="trace-42",
        name="checkout-agent",
        input={"cart_id": "c1"},
        spans=(
            SpanRecord(
                span_id="s1", name="plan", kind="agent", started_at=started, duration_seconds=0.5
            ),
            SpanRecord(span_id="s2", parent_id="s1", name="pay", kind="tool", started_at=started),
        ),
    )
    assert envelope.trace_id == "trace-42" and isinstance(envelope, Trace)
    assert envelope.spans[1].parent == "s1" and envelope.spans[0].duration == 0.5
    assert envelope.path("s2") == ("plan", "pay")
    dumped = envelope.model_dump(exclude_defaults=True)
    assert dumped["id"] == "trace-42" and dumped["input"] == {"cart_id": "c1"}
    assert Trace.model_validate(dumped) == envelope


def test_span_signals_built_on_the_span_path_are_whole_signals() -> None:
    """The span path builds its signals from all their fields at once (no NamedTuple
    ``__new__``): each must be exactly the signal the class itself would build, so a field
    added to a signal class cannot be silently left out there."""
    from autobench.abp import SpanEndSignal, SpanStartSignal

    collector = TraceCollector()
    with bind_collector(collector), start_span("outer", attributes={"a": 1}) as outer:
        outer.set_attribute("b", "two")
    start, end = collector.signals
    assert isinstance(start, SpanStartSignal) and isinstance(end, SpanEndSignal)
    assert len(start) == len(SpanStartSignal._fields) and start == SpanStartSignal(*start)
    assert len(end) == len(SpanEndSignal._fields) and end == SpanEndSignal(*end)
    assert (start.type, end.type, end.partial) == ("span_start", "span_end", False)
    assert start.protocol_version == end.protocol_version == PROTOCOL_VERSION


def test_a_released_materialisation_gives_the_same_trace_and_frees_the_span_signals() -> None:
    collector = TraceCollector()
    with bind_collector(collector), start_span("root", kind="task") as root:
        for index in range(3):
            with start_span("step", attributes={"i": index}) as step:
                step.set_output(index)
                step.record_measurement("tokens", 2, unit="tokens")
        open_scope = start_span("left open")
        open_scope.__enter__()
    kept = collector.materialize()
    released = collector.materialize(release=True)
    assert released == kept and released.partial and len(released.spans) == 5
    assert [span.operation for span in released.spans][:2] == ["root", "step"]
    # the facts stay; no span start or end does
    assert [type(signal).__name__ for signal in collector.signals] == ["MeasurementSignal"] * 3
    assert collector.materialize().spans == ()
    with bind_collector(collector), start_span("after"):
        pass
    assert [span.operation for span in collector.materialize().spans] == ["after"]
    assert root.id == kept.spans[0].id
