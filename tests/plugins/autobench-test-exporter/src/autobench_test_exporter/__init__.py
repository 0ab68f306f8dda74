"""A third-party export format for the tests: ``json-lines``, one JSON object per run."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from autobench.core.plugins import hookimpl
from autobench.records import ExperimentResult
from autobench.report import Exporter, Report


def _plain(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class JsonLinesExporter:
    name = "json-lines"
    extension = "jsonl"
    description = "One JSON object per run (test plugin)."

    def export(self, report: Report, result: ExperimentResult) -> str:
        lines = []
        for row in report.run_rows:
            record = {
                "run": row.run_id,
                "case": row.case_id,
                "variant": row.variant_id,
                "status": row.status.value,
                "metrics": {key: _plain(value) for key, value in row.metrics.items()},
            }
            lines.append(json.dumps(record, sort_keys=True, default=str))
        return "\n".join(lines) + ("\n" if lines else "")


@hookimpl
def autobench_exporters() -> Sequence[Exporter]:
    return (JsonLinesExporter(),)
