"""The benchmark spec: typed models and the YAML loader."""

from autobench.core.spec._models import (
    BenchmarkInfo,
    BenchmarkSpec,
    CaseDefaults,
    ComparisonReportSpec,
    DatasetSpec,
    DistributionReportSpec,
    LeaderboardReportSpec,
    MatrixReportSpec,
    MetricAggregation,
    ReportSpec,
    TaskSpec,
)

__all__ = [
    "BenchmarkInfo",
    "BenchmarkSpec",
    "CaseDefaults",
    "ComparisonReportSpec",
    "DatasetSpec",
    "DistributionReportSpec",
    "LeaderboardReportSpec",
    "MatrixReportSpec",
    "MetricAggregation",
    "ReportSpec",
    "TaskSpec",
]
