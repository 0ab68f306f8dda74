"""Materialised spans are built without validation: the same records validation would give."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from autobench.abp import SpanStatus, TraceCollector, bind_collector, start_span
from autobench.abp._collector import _span_record
from autobench.abp._signals import SpanEndSignal, SpanStartSignal

_VALUES = st.none() | st.integers() | st.text(max_size=10) | st.lists(st.integers(), max_size=3)


def _both(collector: TraceCollector) -> list[tuple[Any, Any]]:
    """Each span of the trace as materialised, with the span validation gives for its signals."""
    trace = collector.materialize()
    starts = [s for s in collector.signals if isinstance(s, SpanStartSignal)]
    ends = {s.span_id: s for s in collector.signals if isinstance(s, SpanEndSignal)}
    per_span: dict[str, dict[str, list[Any]]] = {}
    for span in trace.spans:
        facts = {
            field: list(getattr(span, field))
            for field in ("measurements", "events", "links", "references")
            if getattr(span, field)
        }
        if facts:
            per_span[span.id] = facts
    checked = [
        _span_record(
            start,
            ends.get(start.span_id),
            per_span,
            collector.origin_wall,
            collector.capture,
            trusted=False,
        )
        for start in starts
    ]
    return list(zip(trace.spans, checked, strict=True))


@settings(max_examples=60, deadline=None)
@given(
    spans=st.lists(
        st.fixed_dictionaries(
            {
                "input": _VALUES,
                "output": _VALUES,
                "attributes": st.dictionaries(st.text(min_size=1, max_size=5), _VALUES, max_size=3),
                "tags": st.dictionaries(
                    st.text(min_size=1, max_size=5), st.text(max_size=5), max_size=2
                ),
                "usage": st.dictionaries(
                    st.sampled_from(["input_tokens", "requests"]), st.integers(0, 99), max_size=2
                ),
                "fails": st.booleans(),
                "open": st.booleans(),
                "nested": st.booleans(),
            }
        ),
        min_size=1,
        max_size=6,
    )
)
def test_materialised_spans_equal_the_validated_ones(spans: list[dict[str, Any]]) -> None:
    collector = TraceCollector()
    with bind_collector(collector), start_span("root"):
        for spec in spans:
            scope = start_span(
                "op", input=spec["input"], attributes=spec["attributes"], tags=spec["tags"]
            )
            if spec["open"]:  # never ended: a partial span
                scope.__enter__()
                continue
            try:
                with scope as active:
                    active.set_output(spec["output"])
                    active.set_usage(spec["usage"])
                    active.set_attribute("late", 1)
                    active.record_measurement("tokens", 3, unit="tokens")
                    active.add_event("retry", {"n": 1})
                    if spec["nested"]:
                        with start_span("inner", kind="tool"):
                            pass
                    if spec["fails"]:
                        raise ValueError("boom")
            except ValueError:
                pass
    pairs = _both(collector)
    assert pairs
    for fast, checked in pairs:
        assert fast == checked
        assert fast.model_fields_set == checked.model_fields_set
        assert fast.model_dump(mode="json") == checked.model_dump(mode="json")
        assert fast.model_dump(mode="json", exclude_unset=True) == checked.model_dump(
            mode="json", exclude_unset=True
        )


def test_a_status_that_is_not_a_member_is_validated() -> None:
    collector = TraceCollector()
    with bind_collector(collector), start_span("root") as root:
        pass
    end = next(s for s in collector.signals if isinstance(s, SpanEndSignal))
    start = next(s for s in collector.signals if isinstance(s, SpanStartSignal))
    raw = end._replace(status="error")
    record = _span_record(start, raw, {}, collector.origin_wall, collector.capture)
    assert record.status is SpanStatus.ERROR and root.id == record.id
