"""Autobench reports over recorded evidence: builders, terminal rendering (Rich) and exporters."""

import importlib
from typing import TYPE_CHECKING, Any

from autobench.report._builders import (
    build_case_matrix,
    build_leaderboard,
    build_metric_distribution,
    build_report,
    build_run_metric_rows,
    compare_variants,
    report_spec,
)
from autobench.report._exporters import (
    Exporter,
    ExporterRegistry,
    UnknownExportFormatError,
    exporter_registry,
)
from autobench.report._metrics import UnknownVariantError
from autobench.report._model import (
    AggregateValue,
    CaseMatrix,
    Comparison,
    ComparisonMetric,
    Distribution,
    FactorChange,
    Leaderboard,
    LeaderboardRow,
    MatrixCell,
    MetricColumn,
    Report,
    RunMetricRow,
    UnpairedCase,
    VariantDistribution,
    VariantSummary,
)

# The Rich renderers are imported on first use: loading the plugin manager imports this
# package (the built-in exporters are an entry point), and that must not cost a Rich import.
_RENDERERS = {
    "render_experiment_overview": "autobench.report._terminal",
    "render_plan": "autobench.report._terminal",
    "render_status_table": "autobench.report._terminal",
    "render_report": "autobench.report._render",
    "render_comparison": "autobench.report._render_summary",
    # file exports, with their exporters, on first use as well
    "export_runs_csv": "autobench.report._files",
    "export_summary_yaml": "autobench.report._files",
    "write_export": "autobench.report._files",
}


def __getattr__(name: str) -> Any:
    module = _RENDERERS.get(name)
    if module is None:
        raise AttributeError(f"module 'autobench.report' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "AggregateValue",
    "CaseMatrix",
    "Comparison",
    "ComparisonMetric",
    "Distribution",
    "Exporter",
    "ExporterRegistry",
    "FactorChange",
    "Leaderboard",
    "LeaderboardRow",
    "MatrixCell",
    "MetricColumn",
    "Report",
    "RunMetricRow",
    "UnknownExportFormatError",
    "UnknownVariantError",
    "UnpairedCase",
    "VariantDistribution",
    "VariantSummary",
    "build_case_matrix",
    "build_leaderboard",
    "build_metric_distribution",
    "build_report",
    "build_run_metric_rows",
    "compare_variants",
    "export_runs_csv",
    "export_summary_yaml",
    "exporter_registry",
    "render_comparison",
    "render_experiment_overview",
    "render_plan",
    "render_report",
    "render_status_table",
    "report_spec",
    "write_export",
]

if TYPE_CHECKING:  # pragma: no cover - static view of the lazy renderers
    from autobench.report._files import export_runs_csv, export_summary_yaml, write_export
    from autobench.report._render import render_report
    from autobench.report._render_summary import render_comparison
    from autobench.report._terminal import (
        render_experiment_overview,
        render_plan,
        render_status_table,
    )
