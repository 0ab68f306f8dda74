"""The per-metric path stores what the validated path would: same fields, same record text."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from autobench.core.runtime._evidence import EvidenceBuffer
from autobench.records import Direction, ObservationKind, ObservationRole
from autobench.records._yaml import dump_document

_VALUES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=40)
    | st.lists(st.integers(), max_size=3)
    | st.dictionaries(st.text(max_size=5), st.integers(), max_size=3)
)


@settings(max_examples=200, deadline=None)
@given(
    name=st.text(min_size=1, max_size=12),
    value=_VALUES,
    semantic_type=st.none() | st.sampled_from(["time.latency", "quality.score"]),
    unit=st.none() | st.sampled_from(["s", "ms", "tokens"]),
    direction=st.none() | st.sampled_from([*Direction, "maximize"]),
    role=st.none() | st.sampled_from([*ObservationRole, "objective"]),
    span_id=st.none() | st.just("0123456789abcdef"),
)
def test_the_fast_metric_equals_the_validated_one(
    name: str,
    value: Any,
    semantic_type: str | None,
    unit: str | None,
    direction: Any,
    role: Any,
    span_id: str | None,
) -> None:
    buffer = EvidenceBuffer("c1", "v1")
    fast = buffer.add_metric(name, value, span_id, semantic_type, unit, direction, role)
    assert buffer.observations == [fast]  # what the run stores is what the call returned
    checked = EvidenceBuffer("c1", "v1").add_observation(
        name,
        value,
        kind=ObservationKind.METRIC,
        span_id=span_id,
        semantic_type=semantic_type,
        unit=unit,
        direction=direction,
        role=role,
    )
    assert fast == checked
    assert fast.model_dump(mode="json") == checked.model_dump(mode="json")
    assert dump_document(fast.model_dump(mode="json")) == dump_document(
        checked.model_dump(mode="json")
    )
    assert fast.model_fields_set == checked.model_fields_set | fast.model_fields_set


def test_arguments_of_other_types_take_the_validated_path() -> None:
    buffer = EvidenceBuffer("c1", "v1")
    assert buffer.add_metric(7, 1, None).name == "7"  # type: ignore[arg-type]
    try:
        buffer.add_metric("m", 1, None, unit=5)  # type: ignore[arg-type]
    except ValueError as exc:
        assert "unit" in str(exc)
    else:
        raise AssertionError("a non-string unit must be refused")
    try:
        buffer.add_metric("m", 1, None, direction="sideways")
    except ValueError:
        pass
    else:
        raise AssertionError("an unknown direction must be refused")


def test_a_fast_observation_and_a_built_span_can_be_copied_with_changes() -> None:
    from autobench.abp import TraceCollector, bind_collector, start_span

    buffer = EvidenceBuffer("c1", "v1")
    observation = buffer.add_metric("m", 1, None)
    changed = observation.model_copy(update={"value": 2})
    assert (changed.value, observation.value) == (2, 1)
    assert buffer.observations[0].model_copy(update={"unit": "s"}).unit == "s"
    collector = TraceCollector()
    with bind_collector(collector), start_span("root"), start_span("op"):
        pass
    _, second = collector.materialize().spans
    renamed = second.model_copy(update={"operation": "renamed"})
    assert renamed.operation == "renamed" and second.operation == "op"
    assert "operation" in second.model_fields_set


def test_observations_read_twice_build_what_was_added_in_between() -> None:
    buffer = EvidenceBuffer("c", "v")
    first = buffer.add_metric("a", 1, None)
    buffer.add_observation("b", 2, kind=ObservationKind.METRIC, span_id=None)
    assert [o.name for o in buffer.observations] == ["a", "b"]
    built = buffer.observations[0]
    buffer.add_metric("c", 3, "span-1")
    later = buffer.observations
    assert [(o.id, o.name, o.value, o.span_id) for o in later] == [
        ("obs_1", "a", 1, None),
        ("obs_2", "b", 2, None),
        ("obs_3", "c", 3, "span-1"),
    ]
    assert later[0] is built and later[0] == first  # built once, not again on each read
    assert all(not isinstance(entry, tuple) for entry in later)
