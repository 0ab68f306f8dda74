"""Autobench reports over recorded evidence: builders, terminal rendering (Rich) and exporters."""

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
from autobench.report._terminal import render_experiment_overview, render_plan, render_status_table

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
    "exporter_registry",
    "render_experiment_overview",
    "render_plan",
    "render_status_table",
    "report_spec",
]
