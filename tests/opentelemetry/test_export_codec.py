"""The id, time and attribute codecs of the OTLP export (property tests)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from opentelemetry.exporter.otlp.proto.common._internal import _encode_value
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes

from autobench.opentelemetry._export_attributes import (
    GENAI_ATTRIBUTES,
    GENAI_USAGE,
    attribute_value,
)
from autobench.opentelemetry._export_ids import datetime_of, span_id_of, trace_id_of, unix_nanos

hex_ids = st.integers(min_value=1, max_value=2**128 - 1).map(lambda n: f"{n:032x}")
hex_span_ids = st.integers(min_value=1, max_value=2**64 - 1).map(lambda n: f"{n:016x}")


@given(hex_ids, hex_span_ids)
def test_abp_ids_are_kept(trace: str, span: str) -> None:
    assert f"{trace_id_of(trace):032x}" == trace
    assert f"{span_id_of(span):016x}" == span


@given(st.text())
def test_other_ids_map_deterministically_to_valid_otlp_ids(value: str) -> None:
    assert 0 < trace_id_of(value) < 2**128 and trace_id_of(value) == trace_id_of(value)
    assert 0 < span_id_of(value) < 2**64 and span_id_of(value) == span_id_of(value)


def test_the_all_zero_id_is_not_kept() -> None:
    assert trace_id_of("0" * 32) != 0 and span_id_of("0" * 16) != 0
    assert trace_id_of("A" * 32) != int("a" * 32, 16)  # upper case is another id: mapped


@given(
    st.datetimes(
        min_value=datetime(1970, 1, 2), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
    ),
    st.integers(min_value=-14 * 60, max_value=14 * 60),
)
def test_times_are_exact_unix_nanoseconds(moment: datetime, minutes: int) -> None:
    shifted = moment.astimezone(timezone(timedelta(minutes=minutes)))
    assert unix_nanos(shifted) == unix_nanos(moment)
    assert datetime_of(unix_nanos(shifted)) == moment
    assert unix_nanos(moment) % 1_000 == 0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(json_values)
def test_every_value_becomes_an_attribute_value_the_encoder_takes(value: Any) -> None:
    converted = attribute_value(value)
    if value is None:
        assert converted is None
        return
    assert isinstance(converted, str | bool | int | float | list)
    if isinstance(converted, list):
        assert len({type(item) for item in converted}) == 1
    _encode_value(converted)  # raises for a value OTLP cannot hold


def test_the_genai_names_are_those_of_the_semantic_conventions() -> None:
    known = {value for name, value in vars(gen_ai_attributes).items() if name.startswith("GEN_AI_")}
    assert set(GENAI_ATTRIBUTES.values()) <= known
    assert set(GENAI_USAGE.values()) <= known
