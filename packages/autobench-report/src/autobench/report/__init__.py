"""Autobench reports over recorded evidence: builders, terminal rendering (Rich) and exporters."""

import importlib
from typing import TYPE_CHECKING, Any

from autobench.report._builders import (
    build_case_matrix,
    build_leaderboard,
    build_metric_distribution,
    build_reliability,
    build_report,
    build_run_metric_rows,
    compare_variants,
)
from autobench.report._builders import (
    compare_variants_with_headline as compare_variants_with_headline,
)
from autobench.report._builders import report_spec as report_spec
from autobench.report._calibration import CalibrationError as CalibrationError
from autobench.report._calibration import calibrate as calibrate
from autobench.report._calibration import stored_calibrations as stored_calibrations
from autobench.report._experiments import compare_experiments as compare_experiments
from autobench.report._exporters import Exporter as Exporter
from autobench.report._exporters import ExporterRegistry as ExporterRegistry
from autobench.report._exporters import ExportOptionError as ExportOptionError
from autobench.report._exporters import StreamingExporter as StreamingExporter
from autobench.report._exporters import UnknownExportFormatError as UnknownExportFormatError
from autobench.report._exporters import export_chunks as export_chunks
from autobench.report._exporters import export_content as export_content
from autobench.report._exporters import exporter_registry
from autobench.report._exporters import with_options as configure_exporter  # for the CLI
from autobench.report._metrics import UnknownVariantError as UnknownVariantError
from autobench.report._model import AggregateValue as AggregateValue
from autobench.report._model import AgreementStatistic as AgreementStatistic
from autobench.report._model import Calibration as Calibration
from autobench.report._model import CaseMatrix as CaseMatrix
from autobench.report._model import CaseReliability as CaseReliability
from autobench.report._model import Comparison as Comparison
from autobench.report._model import ComparisonMetric as ComparisonMetric
from autobench.report._model import Distribution as Distribution
from autobench.report._model import ExperimentComparison as ExperimentComparison
from autobench.report._model import FactorChange as FactorChange
from autobench.report._model import Headline as Headline
from autobench.report._model import Leaderboard as Leaderboard
from autobench.report._model import LeaderboardRow as LeaderboardRow
from autobench.report._model import MatrixCell as MatrixCell
from autobench.report._model import MetricColumn as MetricColumn
from autobench.report._model import MetricStatistics as MetricStatistics
from autobench.report._model import Reliability as Reliability
from autobench.report._model import Report as Report
from autobench.report._model import RunMetricRow as RunMetricRow
from autobench.report._model import UnpairedCase as UnpairedCase
from autobench.report._model import VariantDistribution as VariantDistribution
from autobench.report._model import VariantReliability as VariantReliability
from autobench.report._model import VariantSummary as VariantSummary
from autobench.report._model import Verdict as Verdict
from autobench.report._redaction import output_policy as output_policy
from autobench.report._redaction import redact_content as redact_content
from autobench.report._redaction import redact_known as redact_known
from autobench.report._redaction import redact_strings as redact_strings
from autobench.report._redaction import redact_text as redact_text
from autobench.report._redaction import redact_url as redact_url
from autobench.report._redaction import url_secrets as url_secrets
from autobench.report._regressions import interval_regressed as interval_regressed
from autobench.report._regressions import regressions as regressions
from autobench.report._run_diff import diff_runs as diff_runs
from autobench.report._run_diff_model import AttributeChange as AttributeChange
from autobench.report._run_diff_model import DiffStatus as DiffStatus
from autobench.report._run_diff_model import RunDiff as RunDiff
from autobench.report._run_diff_model import RunSummary as RunSummary
from autobench.report._run_diff_model import ScoreChange as ScoreChange
from autobench.report._run_diff_model import SpanDiff as SpanDiff
from autobench.report._run_diff_model import SpanSide as SpanSide
from autobench.report._run_diff_model import StepOp as StepOp
from autobench.report._run_diff_model import ToolCall as ToolCall
from autobench.report._run_diff_model import ToolStep as ToolStep
from autobench.report._run_diff_model import TotalDelta as TotalDelta
from autobench.report._run_diff_text import run_diff_lines as run_diff_lines

# The Rich renderers are imported on first use: loading the plugin manager imports this
# package (the built-in exporters are an entry point), and that must not cost a Rich import.
_RENDERERS = {
    "render_experiment_overview": "autobench.report._terminal",
    "render_plan": "autobench.report._terminal",
    "render_status_table": "autobench.report._terminal",
    "render_report": "autobench.report._render",
    "render_calibration": "autobench.report._render_calibration",
    "render_headline": "autobench.report._render_headline",
    "render_comparison": "autobench.report._render_summary",
    "render_experiment_comparison": "autobench.report._render_summary",
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
    "build_case_matrix",
    "build_leaderboard",
    "build_metric_distribution",
    "build_reliability",
    "build_report",
    "build_run_metric_rows",
    "calibrate",
    "compare_variants",
    "export_runs_csv",
    "export_summary_yaml",
    "exporter_registry",
]

if TYPE_CHECKING:  # pragma: no cover - static view of the lazy renderers
    from autobench.report._files import export_runs_csv, export_summary_yaml
    from autobench.report._files import write_export as write_export
    from autobench.report._render import render_report as render_report
    from autobench.report._render_calibration import render_calibration as render_calibration
    from autobench.report._render_headline import render_headline as render_headline
    from autobench.report._render_summary import render_comparison as render_comparison
    from autobench.report._render_summary import (
        render_experiment_comparison as render_experiment_comparison,
    )
    from autobench.report._terminal import render_experiment_overview as render_experiment_overview
    from autobench.report._terminal import render_plan as render_plan
    from autobench.report._terminal import render_status_table as render_status_table
