"""The runtime: execute a benchmark's case x variant matrix and produce its evidence.

A task receives a :class:`RunContext` and a case; spans are ABP spans of the
run's trace; scorers run after the task; statuses follow the rule documented
in :mod:`autobench.core.runtime._status`.
"""

from autobench.core.runtime._api import run_benchmark_path, run_benchmark_spec
from autobench.core.runtime._attach import IMPORTED_SCOPE, AttachedTrace, attach_trace
from autobench.core.runtime._context import RunContext, get_active_run_context
from autobench.core.runtime._environment import capture_environment, collect_benchmark_source_files
from autobench.core.runtime._measurement import RecordedMeasurement
from autobench.core.runtime._progress import ProgressEvent, ProgressEventKind
from autobench.core.runtime._resume import ResumeError, load_for_resume, unrecorded_runs
from autobench.core.runtime._run import ROOT_SPAN
from autobench.core.runtime._session import DEFAULT_RECORD_ROOT, RunSession, default_record_dir
from autobench.core.runtime._span import DurationMetricSpec, Span
from autobench.core.runtime._tasks import TaskResolutionError

__all__ = [
    "DEFAULT_RECORD_ROOT",
    "IMPORTED_SCOPE",
    "ROOT_SPAN",
    "AttachedTrace",
    "DurationMetricSpec",
    "ProgressEvent",
    "ProgressEventKind",
    "RecordedMeasurement",
    "ResumeError",
    "RunContext",
    "RunSession",
    "Span",
    "TaskResolutionError",
    "attach_trace",
    "capture_environment",
    "collect_benchmark_source_files",
    "default_record_dir",
    "get_active_run_context",
    "load_for_resume",
    "run_benchmark_path",
    "run_benchmark_spec",
    "unrecorded_runs",
]
