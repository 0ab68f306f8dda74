"""The benchmark spec: typed models and the YAML loader."""

from autobench.core.spec._dump import benchmark_spec_document, dump_benchmark_spec
from autobench.core.spec._errors import Location, SpecError
from autobench.core.spec._loader import is_structured, load_benchmark_spec, load_benchmark_spec_text
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
    "Location",
    "MatrixReportSpec",
    "MetricAggregation",
    "ReportSpec",
    "SpecError",
    "TaskSpec",
    "benchmark_spec_document",
    "dump_benchmark_spec",
    "is_structured",
    "load_benchmark_spec",
    "load_benchmark_spec_text",
]
