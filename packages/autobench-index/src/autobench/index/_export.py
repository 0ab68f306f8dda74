"""The ``parquet`` export: the ``csv`` export's table (one row per run, one column per
projected metric and per policy) as a typed Parquet file, for pandas and polars.

Columns: ``benchmark``, ``experiment``, then the ``csv`` columns (``run, case, variant,
status, task_status, evaluation_status, reason``, one ``<type> [<unit>]`` column per
semantic type, one ``policy:<name>`` column per policy). A metric column is ``bool``
when every value is a boolean, ``int64`` when every value is an integer, ``double``
when every value is a number, ``string`` when every value is text, and otherwise the JSON
text of each value; a run without a value has null.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from autobench.index._values import to_json
from autobench.records import ExperimentResult
from autobench.report import Report
from autobench.report._export_csv import FIXED_COLUMNS
from autobench.report._format import metric_label


def typed_column(values: Sequence[Any]) -> pa.Array:
    """``values`` (``None`` for no value) as one Arrow array (see the module docstring)."""
    present = [value for value in values if value is not None]
    if all(isinstance(v, bool) for v in present):
        return pa.array(values, type=pa.bool_())
    if all(
        isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63 for v in present
    ):
        return pa.array(values, type=pa.int64())
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return pa.array([None if v is None else float(v) for v in values], type=pa.float64())
    if all(isinstance(v, str) for v in present):
        return pa.array(values, type=pa.string())
    return pa.array([None if v is None else to_json(v) for v in values], type=pa.string())


class ParquetExporter:
    """``parquet``: the per-run metric table as Parquet (see the module docstring)."""

    name = "parquet"
    extension = "parquet"
    description = "One row per run with its projected metrics, typed, for pandas and polars."

    def export(self, report: Report, result: ExperimentResult) -> bytes:
        rows = report.run_rows
        semantics = list(report.metric_units)
        policies = [policy.name for policy in report.policies]
        columns: dict[str, pa.Array] = {
            "benchmark": pa.array([report.benchmark] * len(rows), type=pa.string()),
            "experiment": pa.array([report.experiment] * len(rows), type=pa.string()),
        }
        fixed = (  # read as columns: no row model per run
            rows.run_ids,
            rows.case_ids,
            rows.variant_ids,
            [status.value for status in rows.statuses],
            rows.task_statuses,
            rows.evaluation_statuses,
            [rows.reason(index) for index in range(len(rows))],
        )
        for name, values in zip(FIXED_COLUMNS, fixed, strict=True):
            columns[name] = pa.array(values, type=pa.string())
        for semantic in semantics:
            label = metric_label(semantic, report.metric_units[semantic])
            columns[label] = typed_column(rows.values(semantic))
        for name in policies:
            columns[f"policy:{name}"] = typed_column(rows.policy_values(name))
        sink = io.BytesIO()
        pq.write_table(pa.table(columns), sink)
        return sink.getvalue()
