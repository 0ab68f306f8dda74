"""Aggregates: definitions, missing values, NaN, booleans, non-numeric values, no values."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autobench.records import AGGREGATIONS, UnknownAggregationError, aggregate

finite = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize("fn", AGGREGATIONS)
def test_no_values_is_no_value_for_every_function_but_count(fn: str) -> None:
    for values in ([], [None, None], [math.nan]):
        result = aggregate(fn, values)
        assert result.n == 0
        assert result.total == len(values)
        if fn == "count":
            assert result.value == 0
        else:
            assert result.value is None


def test_none_and_nan_are_skipped_and_not_counted() -> None:
    result = aggregate("mean", [1.0, None, math.nan, 3.0])
    assert (result.value, result.n, result.total) == (2.0, 2, 4)
    assert aggregate("count", [1.0, None, math.nan, "x"]).value == 2


def test_booleans_count_as_one_and_zero() -> None:
    assert aggregate("mean", [True, False, True, True]).value == 0.75
    assert aggregate("sum", [True, True, 2]).value == 4.0


def test_ratio_true_counts_booleans_and_nonzero_numbers() -> None:
    result = aggregate("ratio_true", [True, False, 1.0, 0, None])
    assert (result.value, result.n, result.total) == (0.5, 4, 5)


def test_non_numeric_values_are_skipped_with_a_diagnostic() -> None:
    result = aggregate("mean", [1, "two", {"x": 3}, 5], labels=["a", "b", "c", "d"], context="q: ")
    assert (result.value, result.n) == (3.0, 2)
    assert len(result.diagnostics) == 2
    assert result.diagnostics[0].startswith("q: b: non-numeric value 'two'")


def test_definitions_match_their_sources() -> None:
    data = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]
    assert aggregate("median", data).value == statistics.median(data)
    assert aggregate("stddev", data).value == statistics.stdev(data)
    assert aggregate("geomean", data).value == pytest.approx(statistics.geometric_mean(data))
    # numpy.percentile(data, 95) (method "linear", Hyndman & Fan type 7) gives 7.95
    assert aggregate("p95", data).value == pytest.approx(7.95)
    assert aggregate("p95", [4.0]).value == 4.0
    assert aggregate("sum", [0.1] * 10).value == 1.0  # math.fsum


def test_stddev_needs_two_values() -> None:
    result = aggregate("stddev", [1.0])
    assert result.value is None and result.n == 1
    assert "at least 2" in result.diagnostics[0]


def test_geomean_of_zero_or_negative_values_is_no_value() -> None:
    for data in ([1.0, 0.0, 4.0], [2.0, -1.0]):
        result = aggregate("geomean", data)
        assert result.value is None
        assert "positive" in result.diagnostics[0]


def test_unknown_function_is_refused() -> None:
    with pytest.raises(UnknownAggregationError, match="known aggregates: count, mean"):
        aggregate("average", [1.0])


@given(st.lists(finite, min_size=1, max_size=50))
def test_mean_median_p95_lie_between_min_and_max(data: list[float]) -> None:
    low = aggregate("min", data).value
    high = aggregate("max", data).value
    assert low is not None and high is not None
    tolerance = 1e-9 * max(1.0, abs(low), abs(high))
    for fn in ("mean", "median", "p95"):
        value = aggregate(fn, data).value
        assert value is not None
        assert low - tolerance <= value <= high + tolerance


@given(st.lists(finite, min_size=1, max_size=50))
def test_p95_lies_between_median_and_max(data: list[float]) -> None:
    median, p95, high = (aggregate(fn, data).value for fn in ("median", "p95", "max"))
    assert median is not None and p95 is not None and high is not None
    tolerance = 1e-9 * max(1.0, abs(median), abs(high))
    assert median - tolerance <= p95 <= high + tolerance


@given(st.lists(st.one_of(st.none(), st.just(math.nan), finite, st.booleans()), max_size=30))
def test_n_counts_only_usable_values(data: list[object]) -> None:
    usable = [x for x in data if x is not None and not (isinstance(x, float) and math.isnan(x))]
    for fn in AGGREGATIONS:
        result = aggregate(fn, data)
        assert result.n == len(usable)
        assert result.total == len(data)
        assert (result.value is None) == (not usable and fn != "count") or fn in (
            "stddev",
            "geomean",
        )


@given(st.lists(st.floats(min_value=1e-6, max_value=1e6), min_size=1, max_size=30))
def test_geomean_is_at_most_the_mean(data: list[float]) -> None:
    geomean, mean = aggregate("geomean", data).value, aggregate("mean", data).value
    assert geomean is not None and mean is not None
    assert geomean <= mean * (1 + 1e-9)


def test_huge_and_infinite_values_never_break_an_aggregate() -> None:
    huge = aggregate("mean", [1e308, 1e308])
    assert huge.value is None and huge.n == 2 and "overflow" in " ".join(huge.diagnostics)
    skipped = aggregate(
        "mean", [float("inf"), float("-inf"), 1.0, 10**400], labels=["a", "b", "c", "d"]
    )
    assert skipped.value == 1.0 and skipped.n == 1
    assert any("infinite value skipped" in line for line in skipped.diagnostics)
    assert any("too large" in line for line in skipped.diagnostics)
    for fn in ("sum", "median", "p95", "stddev", "geomean", "min", "max", "ratio_true"):
        value = aggregate(fn, [1e308, 1e308, float("inf")]).value
        assert value is None or math.isfinite(value)
    assert aggregate("sum", [1e308, 1e308]).value is None
    assert aggregate("count", [1, None, 2]).value == 2
