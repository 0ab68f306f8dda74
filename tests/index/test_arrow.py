"""The index's Arrow arrays are built from buffers: equal to what ``pa.array`` builds, for
every column type of the tables, and writing an index never imports pandas."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from index_support import case

from autobench.index import SCHEMAS
from autobench.index._arrow import column_array, combined, shared_pylist

COLUMN_TYPES = {str(field.type): field.type for schema in SCHEMAS.values() for field in schema}

offsets = st.builds(
    timezone, st.timedeltas(min_value=timedelta(hours=-23), max_value=timedelta(hours=23))
)
moments = st.datetimes(
    min_value=datetime(1900, 1, 2), max_value=datetime(2200, 1, 1), timezones=st.none() | offsets
)
VALUES: dict[str, st.SearchStrategy[Any]] = {
    "string": st.text() | st.text(st.characters(max_codepoint=127)),  # ASCII: a fast path
    "int64": st.integers(-(2**63), 2**63 - 1),
    "double": st.floats(allow_nan=False) | st.integers(-(2**53), 2**53),
    "bool": st.booleans(),
    "timestamp[us, tz=UTC]": moments,
}


def test_every_column_type_of_the_tables_is_built_from_buffers() -> None:
    assert set(COLUMN_TYPES) == set(VALUES)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(VALUES)).flatmap(
        lambda name: st.tuples(st.just(name), st.lists(st.none() | VALUES[name], max_size=40))
    )
)
def test_a_column_built_from_buffers_equals_pa_array(column: tuple[str, list[Any]]) -> None:
    name, values = column
    kind = COLUMN_TYPES[name]
    built = column_array(values, kind)
    built.validate(full=True)
    expected = pa.array(values, type=kind)
    assert built.type == kind and built.null_count == expected.null_count
    assert built.equals(expected)


def test_nan_and_the_infinities_stay_values_not_nulls() -> None:
    values = [float("nan"), float("inf"), -float("inf"), None]
    built = column_array(values, pa.float64())
    assert built.null_count == 1
    assert built.is_null().to_pylist() == pa.array(values, type=pa.float64()).is_null().to_pylist()


def test_a_value_of_the_wrong_type_is_refused() -> None:
    for values, kind in (
        ([1], pa.string()),
        (["1"], pa.int64()),
        ([1], pa.bool_()),
        ([datetime.now(UTC).date()], pa.timestamp("us", tz="UTC")),
    ):
        try:
            column_array(values, kind)
        except TypeError:
            continue
        raise AssertionError(f"{values!r} accepted as {kind}")


WRITE = textwrap.dedent(
    """
    import asyncio, sys

    from autobench import load_benchmark_spec, run_benchmark_spec
    from autobench.index import build_index
    from autobench.records import RecordDirectoryWriter

    asyncio.run(
        run_benchmark_spec(
            load_benchmark_spec("autobench.yaml"), sink=RecordDirectoryWriter("rec")
        )
    )
    built = build_index("rec")
    assert built.reportable, built
    print("pandas" in sys.modules, "pyarrow" in sys.modules)
    """
)


def test_writing_an_index_leaves_pandas_unimported(tmp_path: Path) -> None:
    import pandas  # noqa: F401  (installed: pyarrow's pa.array would import it)
    from test_live_index import write_benchmark

    write_benchmark(tmp_path, [case(n, llm=n % 2 == 0) for n in range(1, 5)])
    (tmp_path / "write.py").write_text(WRITE)
    done = subprocess.run(
        [sys.executable, "write.py"],
        cwd=tmp_path,
        env={**os.environ, "AUTOBENCH_INDEX_WORKER": "0"},  # the live index in process too
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]
    assert (tmp_path / "rec" / "index" / "manifest.json").is_file()


def test_a_value_of_another_type_in_a_string_column_is_named() -> None:
    with pytest.raises(TypeError, match="not a str: 1"):
        column_array(["a", 1, "b"], pa.string())
    with pytest.raises(TypeError, match="not a str: b'x'"):
        column_array(["a", None, b"x"], pa.string())


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.none() | st.sampled_from(["a", "b", "", "é", "a\x00"]), max_size=20)),
    st.integers(0, 3),
)
def test_shared_values_are_the_python_list(chunks: list[list[str | None]], skip: int) -> None:
    values = pa.chunked_array(chunks, type=pa.string())
    for given_values in (values, combined(values).slice(min(skip, len(values)))):
        expected = given_values.to_pylist()
        shared = shared_pylist(given_values)
        assert shared == expected and type(shared) is list
        assert len({id(value) for value in shared}) == len(set(expected))  # one object each
        assert shared_pylist(given_values, str.upper) == [
            None if value is None else value.upper() for value in expected
        ]
