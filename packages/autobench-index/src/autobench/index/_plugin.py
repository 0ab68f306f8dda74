"""autobench-index's plugin (entry point ``index`` of group ``autobench``).

Importing this module imports neither pyarrow nor DuckDB: a process that loads every
plugin (a replay-only worker, ``autobench run``) pays nothing for the index until it is
used.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from autobench.core.plugins import ExportFormat, hookimpl

if TYPE_CHECKING:
    from autobench.records import ExperimentResult


@hookimpl
def autobench_indexed_result(record_dir: Path) -> ExperimentResult | None:
    """The experiment from ``record_dir/index`` when it is fresh (``load_index``); ``None``
    when there is no index directory, without importing pyarrow."""
    if not (Path(record_dir) / "index" / "manifest.json").is_file():
        return None
    from autobench.index._load import load_index  # pyarrow only when an index exists

    return load_index(record_dir)


class _LazyParquetExporter:
    """The ``parquet`` exporter, importing pyarrow when it exports."""

    name = "parquet"
    extension = "parquet"
    description = "One row per run with its projected metrics, typed, for pandas and polars."

    def export(self, report: object, result: object) -> bytes:
        from autobench.index._export import ParquetExporter

        return ParquetExporter().export(report, result)  # type: ignore[arg-type]


@hookimpl
def autobench_exporters() -> Sequence[ExportFormat]:
    return [_LazyParquetExporter()]
