"""The run table's compact columns give back the values they hold: Arrow-backed chunked
columns (run ids, durations), coded columns (case and variant ids), the plain values held
flat, the case groups of the report and the projection's grouping of runs by shape, each
against the plain Python structure it replaces, over hypothesis-generated values."""

from __future__ import annotations

from array import array
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autobench.index._columns import arrow_column, coded_column
from autobench.records import (
    ChunkedColumn,
    CodedColumn,
    Direction,
    ObservationRole,
    ObservationSource,
    PlainItem,
    PlainRun,
    PlainRuns,
    plain_items,
)
from autobench.report._aggregates import CaseGroups
from autobench.report._columnar import _segments
from autobench.report._metrics import CaseCoding

texts = st.text(max_size=12)
durations = st.none() | st.floats(allow_nan=False) | st.just(float("nan"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.none() | texts, max_size=60), st.integers(1, 9), st.data())
def test_a_chunked_column_reads_as_the_list(values: list[Any], chunk: int, data: Any) -> None:
    array = pa.array(values, type=pa.string())
    column = ChunkedColumn(  # small chunks: every boundary is met
        len(array), lambda a, b: array.slice(a, b - a).to_pylist(), chunk=chunk
    )
    assert list(arrow_column(array)) == values
    assert len(column) == len(values)
    assert list(column) == values
    assert column == values and values == column and column == tuple(values)
    if values:
        positions = data.draw(st.lists(st.integers(-len(values), len(values) - 1), max_size=30))
        assert [column[k] for k in positions] == [values[k] for k in positions]
    start, stop = data.draw(st.integers(-70, 70)), data.draw(st.integers(-70, 70))
    step = data.draw(st.sampled_from([None, 1, 2, -1, 3]))
    assert column[start:stop:step] == values[start:stop:step]
    with pytest.raises(IndexError):
        column[len(values)]


@settings(max_examples=100, deadline=None)
@given(st.lists(durations, max_size=50))
def test_durations_come_back_as_floats_and_nones(values: list[float | None]) -> None:
    column = arrow_column(pa.array(values, type=pa.float64()))
    got = list(column)
    assert [type(v) for v in got] == [type(v) for v in values]
    assert [repr(v) for v in got] == [repr(v) for v in values]  # NaN stays NaN, None None


def test_a_chunked_column_is_no_dictionary_key_and_differs_from_other_values() -> None:
    column = ChunkedColumn(2, lambda start, stop: ["a", "b"][start:stop])
    assert column != ["a"] and column != ("b", "a") and column != "ab"
    with pytest.raises(TypeError):
        hash(column)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["case-1", "case-2", "c", "", "é"]) | texts, max_size=60))
def test_a_coded_column_reads_as_the_list(values: list[str]) -> None:
    for column in (
        coded_column(pa.chunked_array([values], type=pa.string())),
        CodedColumn.of(values),
    ):
        assert isinstance(column, CodedColumn)
        assert list(column) == values and column == values
        assert [column[k] for k in range(len(values))] == values
        assert column[1:-1] == values[1:-1]
        assert len(column.names) == len(set(values))
        # one object per distinct value
        assert len({id(value) for value in column}) == len(set(values))


def test_a_column_with_nulls_stays_a_tuple() -> None:
    assert coded_column(pa.chunked_array([["a", None, "a"]])) == ("a", None, "a")


def test_a_code_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match="code"):
        CodedColumn(["a"], array("i", [0, 1]))


def _item(semantic: str, value: Any) -> PlainItem:
    return PlainItem(
        semantic,
        semantic.rsplit(".", 1)[-1],
        value,
        None,
        ObservationRole.OBJECTIVE,
        Direction.MAXIMIZE,
        ObservationSource.TASK_OBSERVATION,
    )


TYPES = ["quality.correctness", "quality.pass", "perf.latency", "x.size"]
items = st.builds(_item, st.sampled_from(TYPES), st.integers(0, 3) | st.booleans())
plain_runs = st.lists(st.none() | st.lists(items, max_size=4).map(tuple), max_size=40)


fields = st.tuples(
    texts,
    texts,
    st.none() | texts,
    st.none() | st.sampled_from(ObservationRole),
    st.none() | st.sampled_from(Direction),
    st.sampled_from(ObservationSource),
)
plain_values = st.none() | st.booleans() | st.integers() | st.floats() | texts


@settings(max_examples=200, deadline=None)
@given(st.lists(fields, min_size=1, max_size=5), st.data())
def test_plain_items_are_the_dataclass_s_items(described: list[Any], data: Any) -> None:
    pairs = data.draw(
        st.lists(st.tuples(st.integers(0, len(described) - 1), plain_values), max_size=30)
    )
    made = plain_items(described, [kind for kind, _ in pairs], [value for _, value in pairs])
    expected = [
        PlainItem(f[0], f[1], value, f[2], f[3], f[4], f[5])
        for f, value in ((described[kind], value) for kind, value in pairs)
    ]
    assert [type(item) for item in made] == [PlainItem] * len(pairs)
    assert [repr(item) for item in made] == [repr(item) for item in expected]
    assert [hash(item) for item in made] == [hash(item) for item in expected]
    assert all(a.value is b.value for a, b in zip(made, expected, strict=True))
    nan_free = [k for k, (_, value) in enumerate(pairs) if value == value]
    assert [made[k] for k in nan_free] == [expected[k] for k in nan_free]
    for item in made[:1]:
        with pytest.raises(AttributeError):  # frozen, as the dataclass's own
            item.value = 1  # type: ignore[misc]
    with pytest.raises(ValueError):
        plain_items(described, [0], [])
    with pytest.raises(IndexError):
        plain_items(described, [len(described)], [1])


@settings(max_examples=300, deadline=None)
@given(plain_runs)
def test_plain_runs_held_flat_give_back_each_run(runs: list[PlainRun]) -> None:
    flat = PlainRuns.of(runs)
    assert len(flat) == len(runs)
    assert list(flat) == runs and flat == runs
    assert flat[::-1] == runs[::-1]
    assert flat.whole == frozenset(k for k, run in enumerate(runs) if run is None)
    for k, run in enumerate(runs):
        if run is not None:
            start, end = flat.span(k)
            assert tuple(flat.items[start:end]) == run


@settings(max_examples=300, deadline=None)
@given(plain_runs)
def test_the_projection_groups_consecutive_runs_of_one_shape(runs: list[PlainRun]) -> None:
    """``_segments`` (numpy numbering of each run's shape) splits the runs exactly where
    the shape (the tuple of semantic types) or being read whole changes."""
    expected: list[tuple[int, int, bool]] = []
    previous: object = object()
    for k, run in enumerate(runs):
        key = None if run is None else tuple(item.semantic_type for item in run)
        if expected and key == previous:
            first, _, whole = expected[-1]
            expected[-1] = (first, k + 1, whole)
        else:
            expected.append((k, k + 1, run is None))
        previous = key
    assert list(_segments(PlainRuns.of(runs))) == expected


def test_shapes_too_long_for_one_number_are_numbered_in_python() -> None:
    long = tuple(_item(f"t.k{n}", n) for n in range(70))
    runs: list[PlainRun] = [long, long, long[:-1], None, long]
    assert list(_segments(PlainRuns.of(runs))) == [
        (0, 2, False),
        (2, 3, False),
        (3, 4, True),
        (4, 5, False),
    ]


def _groups_by_dict(case_ids: list[str], runs: list[int]) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for index in runs:
        groups.setdefault(case_ids[index], []).append(index)
    return groups


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=1, max_size=40).flatmap(
        lambda cases: st.tuples(
            st.just(cases), st.lists(st.integers(0, len(cases) - 1), unique=True, max_size=40)
        )
    ),
    st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f"]), max_size=8),
)
def test_case_groups_are_the_dictionary_of_lists(
    drawn: tuple[list[str], list[int]], asked: list[str]
) -> None:
    case_ids, runs = drawn
    coded = CodedColumn.of(case_ids)
    import numpy as np

    coding = CaseCoding(
        coded.names,
        np.frombuffer(coded.codes, dtype=np.int64),
        {name: code for code, name in enumerate(coded.names)},
    )
    groups = CaseGroups.of(coding, runs)
    expected = _groups_by_dict(case_ids, runs)
    assert list(groups) == list(expected)  # first-seen order
    assert {case: list(group) for case, group in groups.items()} == expected
    assert [list(group) for group in groups.values()] == list(expected.values())
    assert len(groups) == len(expected)
    for case in asked:
        assert (case in groups) == (case in expected)
        assert list(groups.get(case, [])) == expected.get(case, [])
    present = [case for case in asked if case in expected]
    found = groups.groups_of(asked)
    assert [int(g) >= 0 for g in found] == [case in expected for case in asked]
    every = groups.runs_of(groups.groups_of(present))
    assert every.tolist() == [i for case in present for i in expected[case]]
    singles = groups.single_runs(present)
    one_each = all(len(expected[case]) == 1 for case in present)
    assert (list(singles) if singles is not None else None) == (
        [expected[case][0] for case in present] if one_each else None
    )
    if len(present) != len(asked):
        with pytest.raises(KeyError):
            groups.single_runs(asked)
