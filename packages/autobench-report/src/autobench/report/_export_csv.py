"""The ``csv`` export: one row per run, one column per projected semantic metric.

Columns: ``run, case, variant, status, task_status, evaluation_status,
reason``, then one column per semantic type headed ``<type> [<unit>]`` (the
canonical unit; the bare type without one). Cells: empty = no value;
booleans ``True``/``False`` (pandas reads a gap-free column of them as
``bool``); integers and floats in Python's shortest round-tripping form
(``repr``), infinities as ``inf``/``-inf``; mappings and lists as JSON;
anything else as ``str``. Written with the :mod:`csv` module (RFC 4180
quoting, ``\\r\\n`` line ends).
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from autobench.records import ExperimentResult
from autobench.report._format import metric_label
from autobench.report._model import Report

FIXED_COLUMNS = ("run", "case", "variant", "status", "task_status", "evaluation_status", "reason")


def cell(value: Any) -> str:
    """The CSV text of one metric value (see the module docstring)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, default=str, ensure_ascii=False)
    return str(value)


class CsvExporter:
    """``csv``: a flat run-and-metric table for analysis tools (see the module docstring)."""

    name = "csv"
    extension = "csv"
    description = "One row per run with its projected metrics, for analysis tools."

    def export(self, report: Report, result: ExperimentResult) -> str:
        semantics = list(report.metric_units)
        policies = [policy.name for policy in report.policies]
        stream = io.StringIO()
        writer = csv.writer(stream)
        writer.writerow(
            [
                *FIXED_COLUMNS,
                *(metric_label(s, report.metric_units[s]) for s in semantics),
                *(f"policy:{name}" for name in policies),
            ]
        )
        rows = report.run_rows  # read as columns: no row model per run
        values = [rows.values(semantic) for semantic in semantics]
        verdicts = [rows.policy_values(name) for name in policies]
        ids, statuses = rows.run_ids, rows.statuses
        cases, variants = rows.case_ids, rows.variant_ids
        tasks, evaluations = rows.task_statuses, rows.evaluation_statuses
        for index in range(len(rows)):
            writer.writerow(
                [
                    ids[index],
                    cases[index],
                    variants[index],
                    statuses[index].value,
                    tasks[index],
                    evaluations[index],
                    rows.reason(index) or "",
                    *(cell(column[index]) for column in values),
                    *(cell(column[index]) for column in verdicts),
                ]
            )
        return stream.getvalue()
