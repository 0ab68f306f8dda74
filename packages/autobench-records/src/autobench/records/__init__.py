"""Autobench evidence model, semantic registry, YAML record codec, record directory and replay.

Everything here works from recorded evidence alone: it never imports a task,
a scorer module or an instrumented SDK.
"""

from autobench.records._enums import (
    SOURCE_PRECEDENCE,
    Direction,
    EvaluationStatus,
    ObservationKind,
    ObservationRole,
    ObservationSource,
    RunStatus,
    TaskStatus,
)
from autobench.records._evidence import (
    ArtifactRef,
    Case,
    ErrorRecord,
    FactorValue,
    Observation,
    ScoreRecord,
    Variant,
    factors_from_mapping,
)
from autobench.records._paths import artifact_dir, run_record_path, safe_segment
from autobench.records._projection import (
    ObservationQuery,
    ProjectedMetric,
    filter_observations,
    project_observations,
    run_observations,
    score_observation,
)
from autobench.records._records import (
    EXPERIMENT_RECORD_VERSION,
    RUN_RECORD_VERSION,
    SUMMARY_RECORD_VERSION,
    BenchmarkInfoRecord,
    DatasetInfo,
    ExperimentInfo,
    ExperimentRecord,
    ExperimentSummary,
    PlannedRun,
    RunInfo,
    RunOutcome,
    RunRecord,
    SpecInfo,
    StatusCounts,
)
from autobench.records._result import ExperimentResult
from autobench.records._sink import ExperimentSink
from autobench.records._semantics import (
    DEFAULT_SEMANTIC_REGISTRY,
    Semantic,
    SemanticDefinition,
    SemanticRegistry,
    SemanticType,
)

__all__ = [
    "DEFAULT_SEMANTIC_REGISTRY",
    "EXPERIMENT_RECORD_VERSION",
    "RUN_RECORD_VERSION",
    "SOURCE_PRECEDENCE",
    "SUMMARY_RECORD_VERSION",
    "ArtifactRef",
    "BenchmarkInfoRecord",
    "Case",
    "DatasetInfo",
    "Direction",
    "ErrorRecord",
    "EvaluationStatus",
    "ExperimentInfo",
    "ExperimentRecord",
    "ExperimentResult",
    "ExperimentSink",
    "ExperimentSummary",
    "FactorValue",
    "Observation",
    "ObservationKind",
    "ObservationQuery",
    "ObservationRole",
    "ObservationSource",
    "PlannedRun",
    "ProjectedMetric",
    "RunInfo",
    "RunOutcome",
    "RunRecord",
    "RunStatus",
    "ScoreRecord",
    "Semantic",
    "SemanticDefinition",
    "SemanticRegistry",
    "SemanticType",
    "SpecInfo",
    "StatusCounts",
    "TaskStatus",
    "Variant",
    "artifact_dir",
    "factors_from_mapping",
    "filter_observations",
    "project_observations",
    "run_observations",
    "run_record_path",
    "safe_segment",
    "score_observation",
]
