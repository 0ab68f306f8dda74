"""The runtime: execute a benchmark's case x variant matrix and produce its evidence.

A task receives a :class:`RunContext` and a case; spans are ABP spans of the
run's trace; scorers run after the task; statuses follow the rule documented
in :mod:`autobench.core.runtime._status`.
"""

from autobench.core.runtime._api import (
    run_benchmark_path,
    run_benchmark_path_async,
    run_benchmark_spec,
)
from autobench.core.runtime._attach import IMPORTED_SCOPE as IMPORTED_SCOPE
from autobench.core.runtime._attach import AttachedTrace as AttachedTrace
from autobench.core.runtime._attach import attach_trace
from autobench.core.runtime._cassette import CassetteSetup as CassetteSetup
from autobench.core.runtime._cassette import CassetteSourceError as CassetteSourceError
from autobench.core.runtime._context import RunContext, get_active_run_context
from autobench.core.runtime._environment import capture_environment, collect_benchmark_source_files
from autobench.core.runtime._executor import ExecutorFactory as ExecutorFactory
from autobench.core.runtime._executor import local_executor as local_executor
from autobench.core.runtime._measurement import RecordedMeasurement as RecordedMeasurement
from autobench.core.runtime._progress import ProgressEvent, ProgressEventKind
from autobench.core.runtime._resume import ResumeError
from autobench.core.runtime._resume import load_for_resume as load_for_resume
from autobench.core.runtime._resume import unrecorded_runs as unrecorded_runs
from autobench.core.runtime._run import ROOT_SPAN as ROOT_SPAN
from autobench.core.runtime._run import TaskInterrupted as TaskInterrupted
from autobench.core.runtime._session import DEFAULT_RECORD_ROOT as DEFAULT_RECORD_ROOT
from autobench.core.runtime._session import ExecutedExperiment as ExecutedExperiment
from autobench.core.runtime._session import Interruption as Interruption
from autobench.core.runtime._session import RunSession as RunSession
from autobench.core.runtime._session import default_record_dir as default_record_dir
from autobench.core.runtime._span import DurationMetricSpec, Span
from autobench.core.runtime._sync import RunningLoopError
from autobench.core.runtime._tasks import TaskResolutionError, TaskSignatureError
from autobench.core.runtime._tasks import resolve_task as resolve_task

__all__ = [
    "DurationMetricSpec",
    "ProgressEvent",
    "ProgressEventKind",
    "ResumeError",
    "RunContext",
    "RunningLoopError",
    "Span",
    "TaskResolutionError",
    "TaskSignatureError",
    "attach_trace",
    "capture_environment",
    "collect_benchmark_source_files",
    "get_active_run_context",
    "run_benchmark_path",
    "run_benchmark_path_async",
    "run_benchmark_spec",
]
