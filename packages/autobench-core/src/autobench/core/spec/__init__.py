"""The benchmark spec: typed models and the YAML loader."""

from autobench.core.spec._case_list import CaseList as CaseList
from autobench.core.spec._dump import benchmark_spec_document as benchmark_spec_document
from autobench.core.spec._dump import dump_benchmark_spec
from autobench.core.spec._errors import Location as Location
from autobench.core.spec._errors import SpecError
from autobench.core.spec._loader import is_structured as is_structured
from autobench.core.spec._loader import load_benchmark_spec
from autobench.core.spec._loader import load_benchmark_spec_text as load_benchmark_spec_text
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
    "SpecError",
    "TaskSpec",
    "dump_benchmark_spec",
    "load_benchmark_spec",
]
