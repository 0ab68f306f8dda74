"""The ``csv`` export: one row per run, one column per projected semantic metric.

Columns: ``run, case, variant, status, task_status, evaluation_status,
reason``, then one column per semantic type headed ``<type> [<unit>]`` (the
canonical unit; the bare type without one). Cells: empty = no value;
booleans ``True``/``False`` (pandas reads a gap-free column of them as
``bool``); integers and floats in Python's shortest round-tripping form
(``repr``), infinities as ``inf``/``-inf``; mappings and lists as JSON;
anything else as ``str``. Written with the :mod:`csv` module (RFC 4180
quoting, ``\\r\\n`` line ends), a column at a time: the writer is given whole columns
and formats the usual values itself, so a million rows cost no Python call per cell. The
text is made a few thousand rows at a time (:meth:`CsvExporter.chunks`), never whole.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections.abc import Iterator, Sequence
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
    """``csv``: a flat run-and-metric table for analysis tools (see the module docstring).

    ``chunks`` gives the file as pieces of :data:`ROWS_PER_PIECE` whole rows (the header
    with the first), made as they are asked for; ``export`` joins them."""

    name = "csv"
    extension = "csv"
    description = "One row per run with its projected metrics, for analysis tools."

    def export(self, report: Report, result: ExperimentResult) -> str:
        return "".join(self.chunks(report, result))

    def chunks(self, report: Report, result: ExperimentResult) -> Iterator[str]:
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
        count = len(rows)
        reasons = [""] * count
        for index in rows.details:
            reasons[index] = rows.reason(index) or ""
        status_text = {status: status.value for status in set(rows.statuses)}
        columns = [
            rows.run_ids,
            rows.case_ids,
            rows.variant_ids,
            [status_text[status] for status in rows.statuses],
            rows.task_statuses,
            rows.evaluation_statuses,
            reasons,
            *(cells(rows.values(semantic)) for semantic in semantics),
            *(cells(rows.policy_values(name)) for name in policies),
        ]
        records = zip(*columns, strict=True)
        while True:  # the header, then ROWS_PER_PIECE rows a piece: a piece ends with a row
            writer.writerows(itertools.islice(records, ROWS_PER_PIECE))
            piece = stream.getvalue()
            if not piece:
                return
            yield piece
            stream.seek(0)
            stream.truncate()


ROWS_PER_PIECE = 4_096
"""Rows of the ``csv`` export in one piece of :meth:`CsvExporter.chunks` (about 300 KB of
text for the runs of a trivial benchmark)."""


_WRITTEN_AS_CELL = frozenset({type(None), bool, int, float, str})
"""Types the :mod:`csv` writer turns into :func:`cell`'s text itself (``None`` as an empty
field, a float by its ``repr``, the rest by ``str``)."""


def cells(values: Sequence[Any]) -> Sequence[Any]:
    """``values`` as the :mod:`csv` writer should be given them to write each as
    :func:`cell` would: as they are when every value's type is one the writer formats the
    same way (one pass over the types, in C), else each through :func:`cell`."""
    if set(map(type, values)) <= _WRITTEN_AS_CELL:
        return values
    return [cell(value) for value in values]
