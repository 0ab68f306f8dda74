"""The ``parquet`` export: the ``csv`` export's table (one row per run, one column per
projected metric and per policy) as a typed Parquet file, for pandas and polars.

Columns: ``benchmark``, ``experiment``, then the ``csv`` columns (``run, case, variant,
status, task_status, evaluation_status, reason``, one ``<type> [<unit>]`` column per
semantic type, one ``policy:<name>`` column per policy). A metric column is ``bool``
when every value is a boolean, ``int64`` when every value is an integer, ``double``
when every value is a number, ``string`` when every value is text, and otherwise the JSON
text of each value; a run without a value has null.

The file is written a row group of :data:`ROWS_PER_GROUP` runs at a time
(:meth:`ParquetExporter.chunks`): only that many runs are ever held as Arrow arrays, and
the bytes of each row group are given as soon as it is written.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from autobench.index._values import to_json
from autobench.records import ExperimentResult
from autobench.report import Report
from autobench.report._export_csv import FIXED_COLUMNS
from autobench.report._format import metric_label

ROWS_PER_GROUP = 65_536
"""Runs in one row group of the ``parquet`` export, and in one piece of
:meth:`ParquetExporter.chunks` (a record of fewer runs is one row group)."""

_JSON = pa.null()
"""Stands for "the JSON text of each value" among the column types of :func:`column_type`."""

_INT64 = range(-(2**63), 2**63)
_EXACT = frozenset({type(None), bool, int, float, str})


def column_type(values: Sequence[Any]) -> pa.DataType:
    """The Arrow type ``values`` (``None`` for no value) are written as (see the module
    docstring): ``bool``, ``int64``, ``float64`` or ``string``; ``pa.null()`` for the JSON
    text of each value (a ``string`` column). A column of no values is ``bool``."""
    kinds = set(map(type, values))
    if kinds <= _EXACT:  # one pass in C over the types, then at most one over the values
        kinds.discard(type(None))
        if kinds <= {bool}:
            return pa.bool_()
        if kinds == {int}:
            if all(value in _INT64 for value in values if value is not None):
                return pa.int64()
            return pa.float64()
        if kinds <= {int, float}:
            return pa.float64()
        if kinds == {str}:
            return pa.string()
        return _JSON
    present = [value for value in values if value is not None]
    if all(isinstance(v, bool) for v in present):
        return pa.bool_()
    if all(
        isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63 for v in present
    ):
        return pa.int64()
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return pa.float64()
    if all(isinstance(v, str) for v in present):
        return pa.string()
    return _JSON


def typed_array(values: Sequence[Any], kind: pa.DataType) -> pa.Array:
    """``values`` as an Arrow array of ``kind`` (a :func:`column_type`)."""
    if kind == pa.float64():
        return pa.array([None if v is None else float(v) for v in values], type=kind)
    if kind == _JSON:
        return pa.array([None if v is None else to_json(v) for v in values], type=pa.string())
    return pa.array(values, type=kind)


def typed_column(values: Sequence[Any]) -> pa.Array:
    """``values`` (``None`` for no value) as one Arrow array (see the module docstring)."""
    return typed_array(values, column_type(values))


_Batches = Callable[[int, int], Sequence[Any]]
"""The values of one column for the runs ``start`` to ``stop`` (a batch of rows)."""


def _batches(values: Iterable[Any]) -> _Batches:
    """The batches of ``values`` taken in order (each call gives the next ones)."""
    flowing = iter(values)
    return lambda start, stop: list(itertools.islice(flowing, stop - start))


class ParquetExporter:
    """``parquet``: the per-run metric table as Parquet (see the module docstring)."""

    name = "parquet"
    extension = "parquet"
    description = "One row per run with its projected metrics, typed, for pandas and polars."

    def export(self, report: Report, result: ExperimentResult) -> bytes:
        return b"".join(self.chunks(report, result))

    def chunks(self, report: Report, result: ExperimentResult) -> Iterator[bytes]:
        """The file's bytes: the first row group with the header, one piece per row group
        of :data:`ROWS_PER_GROUP` runs, then the footer."""
        rows = report.run_rows  # read as columns: no row model per run
        count = len(rows)
        status_text = {status: status.value for status in set(rows.statuses)}
        fixed: tuple[tuple[Iterable[Any], pa.DataType], ...] = (
            (rows.run_ids, pa.string()),
            (rows.case_ids, pa.string()),
            (rows.variant_ids, pa.string()),
            ((status_text[status] for status in rows.statuses), pa.string()),
            (rows.task_statuses, pa.string()),
            (rows.evaluation_statuses, pa.string()),
            ((rows.reason(index) for index in range(count)), pa.string()),
        )
        columns: dict[str, tuple[_Batches, pa.DataType]] = {
            "benchmark": (lambda start, stop: [report.benchmark] * (stop - start), pa.string()),
            "experiment": (lambda start, stop: [report.experiment] * (stop - start), pa.string()),
        }
        for name, (values, kind) in zip(FIXED_COLUMNS, fixed, strict=True):
            columns[name] = (_batches(values), kind)
        metrics: list[tuple[str, Sequence[Any]]] = [
            (metric_label(semantic, report.metric_units[semantic]), rows.values(semantic))
            for semantic in report.metric_units
        ]
        metrics += [(f"policy:{name}", rows.policy_values(name)) for name in _policies(report)]
        for label, values in metrics:  # a later column of the same name takes the place
            columns[label] = (_batches(values), column_type(values))
        schema = pa.schema(
            [(name, pa.string() if kind == _JSON else kind) for name, (_, kind) in columns.items()]
        )
        sink = io.BytesIO()
        with pq.ParquetWriter(sink, schema) as writer:
            for start in range(0, count, ROWS_PER_GROUP) or (0,):
                stop = min(start + ROWS_PER_GROUP, count)
                arrays = [typed_array(batch(start, stop), kind) for batch, kind in columns.values()]
                writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
                yield _taken(sink)
        yield _taken(sink)


def _policies(report: Report) -> list[str]:
    return [policy.name for policy in report.policies]


def _taken(sink: io.BytesIO) -> bytes:
    """What was written to ``sink`` since it was last taken; ``sink`` is emptied."""
    data = sink.getvalue()
    sink.seek(0)
    sink.truncate()
    return data
