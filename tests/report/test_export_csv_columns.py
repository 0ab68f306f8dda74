"""The CSV export hands the :mod:`csv` writer whole columns: each cell is still written as
:func:`~autobench.report._export_csv.cell` makes it, for every kind of value a metric holds."""

from __future__ import annotations

import csv
import io
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from autobench.report._export_csv import cell, cells

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),  # NaN and infinities included
    st.text(),  # commas, quotes, line ends included
)
values = st.one_of(
    scalars,
    st.lists(scalars, max_size=3),
    st.dictionaries(st.text(max_size=3), scalars, max_size=3),
    st.tuples(scalars),
)


def _written(rows: list[list[Any]]) -> str:
    stream = io.StringIO()
    csv.writer(stream).writerows(rows)
    return stream.getvalue()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(scalars, values), min_size=1, max_size=8), st.booleans())
def test_a_column_is_written_as_its_cells(column: list[Any], plain_only: bool) -> None:
    if plain_only:
        column = [v for v in column if not isinstance(v, dict | list | tuple)] or [None]
    given_column = cells(column)
    assert _written([["id", v] for v in given_column]) == _written(
        [["id", cell(v)] for v in column]
    )
    if plain_only:  # the writer formats such a column itself: no text made per cell
        assert given_column is column
