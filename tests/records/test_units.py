"""Unit conversion to canonical units: time, money, counts, and refusals."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autobench.records import (
    UnitConversionError,
    UnitValue,
    convert_unit,
    to_common_unit,
    unit_dimension,
)

TIME_UNITS = ["ns", "us", "µs", "ms", "s", "min", "h"]


def test_time_units_convert_exactly_for_whole_units() -> None:
    assert convert_unit(1500, "ms", "s") == 1.5
    assert convert_unit(1, "µs", "ns") == 1000.0
    assert convert_unit(1, "μs", "us") == 1.0  # Greek mu
    assert convert_unit(2, "h", "min") == 120.0
    assert convert_unit(90, "s", "min") == 1.5


def test_money_is_case_insensitive_but_currencies_do_not_mix() -> None:
    assert convert_unit(2.5, "USD", "usd") == 2.5
    with pytest.raises(UnitConversionError, match="different currencies"):
        convert_unit(1, "eur", "usd")


@pytest.mark.parametrize(
    ("source", "target", "message"),
    [("s", "usd", "different dimensions"), ("tokens", "s", "different dimensions"),
     ("furlongs", "s", "unknown unit 'furlongs'"), ("tokens", "requests", "different dimensions")],
)  # fmt: skip
def test_refused_conversions_say_why(source: str, target: str, message: str) -> None:
    with pytest.raises(UnitConversionError, match=message):
        convert_unit(1, source, target)
    assert issubclass(UnitConversionError, ValueError)


def test_counts_convert_only_to_themselves() -> None:
    assert convert_unit(7, "Tokens", "tokens") == 7.0
    assert unit_dimension("tokens") == "tokens"
    assert unit_dimension("ms") == "time"
    assert unit_dimension("EUR") == "money"
    assert unit_dimension("parsecs") is None
    assert unit_dimension(None) is None


def test_common_unit_uses_the_canonical_unit_and_excludes_what_does_not_convert() -> None:
    converted = to_common_unit(
        [UnitValue("r1", 1500, "ms"), UnitValue("r2", 2, "s"), UnitValue("r3", 4, None),
         UnitValue("r4", 1, "usd")],
        semantic_type="time.latency",
        canonical_unit="s",
    )  # fmt: skip
    assert converted.unit == "s"
    assert converted.values == {"r1": 1.5, "r2": 2, "r3": 4}
    (diagnostic,) = converted.diagnostics
    assert "r4" in diagnostic and "time.latency" in diagnostic and "'usd'" in diagnostic


def test_without_canonical_unit_the_first_unit_wins_and_others_are_refused() -> None:
    converted = to_common_unit(
        [UnitValue("r1", 1, None), UnitValue("r2", 2, "ms"), UnitValue("r3", 3, "s"),
         UnitValue("r4", 4, "MS")],
        semantic_type="custom.time",
        canonical_unit=None,
    )  # fmt: skip
    assert converted.unit == "ms"
    assert set(converted.values) == {"r1", "r2"}
    assert len(converted.diagnostics) == 2
    assert all("custom.time" in text for text in converted.diagnostics)


@given(
    st.floats(min_value=-1e12, max_value=1e12, allow_nan=False),
    st.sampled_from(TIME_UNITS),
    st.sampled_from(TIME_UNITS),
)
def test_time_conversion_round_trips(value: float, source: str, target: str) -> None:
    there = convert_unit(value, source, target)
    back = convert_unit(there, target, source)
    assert math.isclose(back, value, rel_tol=1e-12, abs_tol=1e-300)


@given(st.sampled_from(TIME_UNITS), st.sampled_from(TIME_UNITS), st.sampled_from(TIME_UNITS))
def test_time_conversion_composes(first: str, second: str, third: str) -> None:
    direct = convert_unit(1.0, first, third)
    chained = convert_unit(convert_unit(1.0, first, second), second, third)
    assert math.isclose(direct, chained, rel_tol=1e-12)


def test_nan_and_infinity_pass_through() -> None:
    assert math.isnan(convert_unit(math.nan, "ms", "s"))
    assert convert_unit(math.inf, "ms", "s") == math.inf
