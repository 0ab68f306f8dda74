"""The runs of an index as a :class:`~autobench.records.RunTable`: columns read from the
``runs``, ``observations`` and ``scores`` tables, each whole run record validated from its
``record_json`` only when a reader asks for it.

A run's metric values (:class:`~autobench.records.PlainItem`) are read from the
``observations`` and ``scores`` rows (:mod:`autobench.index._plain`).
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import ValidationError

from autobench.abp import AutobenchError, gc_paused, gc_paused_for, settle_long_lived
from autobench.abp._gc import PAUSE_ABOVE
from autobench.index._arrow import (
    SetLookupOptions,
    as_int32,
    as_int64,
    call,
    combined,
    int64_scalar,
    shared_pylist,
)
from autobench.index._plain import StoredRuns, plain_runs
from autobench.records import (
    ChunkedColumn,
    CodedColumn,
    RunRecord,
    RunStatus,
    RunTable,
)

_RUN_COLUMNS = [
    "run_id",
    "case_id",
    "variant_id",
    "status",
    "task_status",
    "evaluation_status",
    "duration_s",
]


@dataclass(slots=True)
class PlanCases:
    """The plan's case column read once for the run table and the plan: ``values`` the
    case of each planned run (an Arrow string array without nulls; ``None`` once the run
    table is coded, which drops it), ``names`` each distinct case once (Python strings),
    ``codes`` each planned run's case as a position in ``names`` (an ``array`` of
    int32)."""

    values: pa.Array | None
    names: list[str]
    codes: array[int]

    @classmethod
    def of(cls, values: pa.Array) -> PlanCases | None:
        """The :class:`PlanCases` of the plan's case column ``values``; ``None`` when it
        has nulls (the plan then reads it as it is)."""
        if values.null_count:
            return None
        coded = coded_column(pa.chunked_array([values], type=values.type))
        assert isinstance(coded, CodedColumn)
        return cls(values, list(coded.names), coded.codes)


def decoded(names: list[str], codes: array[int]) -> list[str]:
    """``[names[code] for code in codes]`` (``codes``: an int32 ``array``) by numpy's take:
    no Python per value, the strings of ``names`` shared."""
    import numpy as np

    shared = np.empty(len(names), dtype=object)
    shared[:] = names
    values: list[str] = shared[np.frombuffer(codes, dtype=np.int32)].tolist()
    return values


def run_table(partition: Path, plan_ids: pa.Array, plan_cases: PlanCases | None = None) -> RunTable:
    """The runs of the index partition directory ``partition`` in plan order (``plan_ids``:
    the plan's run ids, in order; a run the plan does not name last, in stored order), as a
    :class:`RunTable` that knows the planned runs without a record (``missing``). With
    ``plan_cases`` (the plan's cases, :class:`PlanCases`), the runs' case ids share its
    names and are coded from it when every run is planned with the case it recorded (no
    second encoding of a million case ids). Raises
    ``OSError``, ``KeyError`` or ``ValueError`` (pyarrow's ``ArrowInvalid`` included) for a
    damaged table; building a run whose stored JSON is not a valid run record raises
    :class:`DamagedIndexError` (at once for a run without plain items, which is built
    here)."""
    runs_path = partition / "runs.parquet"
    # The columns are long-lived: read with the collector paused, then settled in its
    # oldest generation (see autobench.abp.settle_long_lived).
    with gc_paused():
        table = _run_table(runs_path, partition, plan_ids, plan_cases)
        # The runs the columns do not hold plainly are read whole by any report: built now,
        # with the rest of what the load keeps, and settled with it.
        table.records(table.not_plain())
        settle_long_lived()
    # Arrow's allocator keeps the pages of the tables read and sorted meanwhile (at a
    # million runs, hundreds of MB the report would never use): given back now.
    pa.default_memory_pool().release_unused()
    return table


def _run_table(
    runs_path: Path, partition: Path, plan_ids: pa.Array, plan_cases: PlanCases | None
) -> RunTable:
    import numpy as np  # not at import: the index worker keeps numpy out

    with pq.ParquetFile(runs_path) as file:
        stored = file.read(columns=_RUN_COLUMNS)
        group_rows = [file.metadata.row_group(i).num_rows for i in range(file.num_row_groups)]
    ids = combined(stored.column("run_id"))
    # Plan order, in Arrow: each run's plan position (a run the plan does not name after
    # every planned one), then a stable sort of the rows by it.
    positions = as_int64(call("index_in", ids, options=SetLookupOptions(plan_ids)))
    keys = call("coalesce", positions, int64_scalar(len(plan_ids)))
    order = call("sort_indices", keys)
    table = call("take", stored, order)
    # The planned runs without a record: the plan positions no stored run has (from the
    # positions found, not a second lookup of every id).
    planned = np.zeros(len(plan_ids) + 1, dtype=np.bool_)  # the last: runs the plan lacks
    planned[_numbers(keys)] = True
    missing = call("filter", plan_ids, _booleans(~planned[:-1])).to_pylist()
    del stored, ids, positions, planned
    ordered_ids = combined(table.column("run_id"))
    # One Python object per distinct id and status (Arrow's dictionary encoding). Made
    # before the plain values are read, so the sorted table is not held meanwhile.
    status_of = {status.value: status for status in RunStatus}
    if table.column("status").null_count:  # a damaged table (an unknown status: KeyError)
        raise KeyError("a run of the runs table has no status")
    columns: dict[str, Any] = {
        "case_ids": _planned_cases(plan_cases, call("take", keys, order), table.column("case_id"))
        or coded_column(table.column("case_id")),
        "variant_ids": coded_column(table.column("variant_id")),
        # Read by position per run in several views: tuples (a reference a run each).
        "statuses": tuple(shared_pylist(table.column("status"), status_of.__getitem__)),
        "task_statuses": tuple(shared_pylist(table.column("task_status"))),
        "evaluation_statuses": tuple(shared_pylist(table.column("evaluation_status"))),
        "durations": arrow_column(combined(table.column("duration_s"))),
    }
    del table, keys
    rows = array("q")
    rows.frombytes(_numbers(as_int64(order)).tobytes())
    rank = np.empty(len(rows), dtype=np.int64)  # each stored run's position in plan order
    rank[np.frombuffer(rows, dtype=np.int64)] = np.arange(len(rows), dtype=np.int64)
    del order
    pa.default_memory_pool().release_unused()  # what the sort used (see run_table)
    return RunTable(
        run_ids=arrow_column(ordered_ids),
        plain=plain_runs(partition, StoredRuns(ordered_ids, group_rows, rank)),
        load=_Loader(runs_path, rows, group_rows),
        missing=tuple(missing),
        **columns,
    )


def _planned_cases(
    plan: PlanCases | None, positions: pa.Array, cases: pa.ChunkedArray
) -> CodedColumn[str] | None:
    """The runs' ``cases`` (in plan order; ``positions``: each run's plan position, the
    plan's length for a run it does not name) coded by the plan's cases, when each run's
    case is its planned run's; else ``None``. Drops ``plan.values`` (read no more)."""
    if plan is None:
        return None
    values, plan.values = plan.values, None
    if values is None or len(positions) == 0:
        return None
    if call("max", positions).as_py() >= len(values) or cases.null_count:
        return None
    planned = call("take", values, positions)
    del values
    if not call("all", call("equal", planned, combined(cases))).as_py():
        return None
    del planned
    import numpy as np

    codes = np.frombuffer(plan.codes, dtype=np.int32)[_numbers(positions)]
    return CodedColumn(plan.names, array("i", codes.tobytes()))


def _numbers(values: pa.Array) -> Any:
    """The int64 array ``values`` (no nulls) as a numpy array over its buffer."""
    import numpy as np

    start = 8 * values.offset
    return np.frombuffer(values.buffers()[1], dtype=np.int64, count=len(values), offset=start)


def _booleans(values: Any) -> pa.Array:
    """A numpy array of booleans as an Arrow boolean array (no nulls)."""
    import numpy as np

    bits = np.packbits(values, bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])


def arrow_column(values: pa.Array) -> ChunkedColumn[Any]:
    """The values of ``values`` (one array, not chunked) as a :class:`ChunkedColumn`: each
    made as a Python object (``to_pylist``'s, ``None`` for a null) when a chunk of them is
    read; the array's buffers are all it keeps."""
    return ChunkedColumn(
        len(values), lambda start, stop: values.slice(start, stop - start).to_pylist()
    )


def coded_column(values: pa.ChunkedArray) -> Sequence[Any]:
    """The values of ``values`` as a :class:`CodedColumn` (Arrow's dictionary encoding: each
    distinct value once; a 4-byte code a row, which readers grouping by value use), or as a
    tuple sharing one object per distinct value when the column has nulls."""
    if values.null_count:
        return tuple(shared_pylist(values))
    encoded = call("dictionary_encode", combined(values))
    names = encoded.dictionary.to_pylist()
    indices = as_int32(encoded.indices)
    start = 4 * indices.offset
    codes = array("i")
    codes.frombytes(memoryview(indices.buffers()[1])[start : start + 4 * len(indices)])
    return CodedColumn(names, codes)


class DamagedIndexError(AutobenchError, ValueError):
    """A run stored in a fresh index does not validate as a run record (the index was
    edited or damaged after it was built); the message names the command that rebuilds
    it."""


class _Loader:
    """Builds the run records at plan positions from their ``record_json`` (the row groups
    that hold them, read as needed; the last one kept for the next call)."""

    def __init__(self, path: Path, order: Sequence[int], group_rows: Sequence[int]) -> None:
        self.path = path
        self.order = order
        self.starts = list(_starts(group_rows))
        self.group: tuple[int, list[str]] | None = None
        self.validate = RunRecord.__pydantic_validator__.validate_json

    def __call__(self, positions: Sequence[int]) -> list[RunRecord]:
        rows = [self.order[position] for position in positions]
        by_group: dict[int, list[int]] = {}
        for row in rows:
            by_group.setdefault(bisect.bisect_right(self.starts, row) - 1, []).append(row)
        built: dict[int, RunRecord] = {}
        try:
            with gc_paused_for(len(rows)):
                for group in sorted(by_group):  # one row group's JSON text alive at a time
                    start, column = self._read(group)
                    for row in by_group[group]:
                        built[row] = self.validate(column[row - start])
                if len(rows) > PAUSE_ABOVE:  # long-lived: spare the next young collection
                    settle_long_lived()
        except ValidationError as error:
            raise DamagedIndexError(
                f"{self.path}: a stored run is not a valid run record; "
                f"`autobench index {self.path.parents[3]}` rebuilds the index from the YAML "
                f"records ({error.error_count()} validation error(s))"
            ) from error
        return [built[row] for row in rows]

    def _read(self, group: int) -> tuple[int, list[str]]:
        if self.group is None or self.group[0] != group:
            with pq.ParquetFile(self.path) as file:
                column = file.read_row_group(group, columns=["record_json"]).column(0)
            self.group = (group, column.to_pylist())
        return self.starts[group], self.group[1]


def _starts(group_rows: Sequence[int]) -> Iterator[int]:
    start = 0
    for rows in group_rows:
        yield start
        start += rows
