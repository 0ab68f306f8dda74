"""Autobench: a YAML-first benchmark and evidence framework.

The public API is re-exported here lazily (PEP 562): ``from autobench import
Case`` imports only what ``Case`` needs. Names provided by a distribution that
is not installed raise an ``ImportError`` naming the distribution to install.
This file belongs to ``autobench-core``; the other distributions add
subpackages (``autobench.abp``, ``autobench.records``, ``autobench.report``,
``autobench.cli``) found through the extended ``__path__``.
"""

from __future__ import annotations

import importlib
from pkgutil import extend_path
from typing import TYPE_CHECKING, Any

__path__ = extend_path(__path__, __name__)

__version__ = "0.1.0"

# public name -> (module, distribution that provides it)
_EXPORTS: dict[str, tuple[str, str]] = {}


def _export(module: str, distribution: str, *names: str) -> None:
    for name in names:
        _EXPORTS[name] = (module, distribution)


_export(
    "autobench.abp",
    "autobench-abp",
    "AccountingScope",
    "AutobenchError",
    "CaptureMode",
    "CapturePolicy",
    "DEFAULT_CAPTURE_POLICY",
    "DiagnosticRecord",
    "EventRecord",
    "InstrumentationScope",
    "LinkRecord",
    "MeasurementRecord",
    "PROTOCOL_VERSION",
    "PayloadRef",
    "ReferenceRecord",
    "SpanKind",
    "SpanRecord",
    "SpanStatus",
    "Trace",
    "TraceEnvelope",
)
_export(
    "autobench.records",
    "autobench-records",
    "ArtifactRef",
    "AssetBinding",
    "Case",
    "DEFAULT_SEMANTIC_REGISTRY",
    "Direction",
    "ErrorRecord",
    "EvaluationStatus",
    "ExperimentRecord",
    "ExperimentResult",
    "ExperimentSummary",
    "FactorValue",
    "Observation",
    "ObservationKind",
    "ObservationQuery",
    "ObservationRole",
    "ObservationSource",
    "RunRecord",
    "RunStatus",
    "ScoreRecord",
    "Semantic",
    "SemanticDefinition",
    "SemanticRegistry",
    "SemanticType",
    "TaskStatus",
    "Variant",
    "filter_observations",
    "project_observations",
)
_export(
    "autobench.core.spec",
    "autobench-core",
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
)
_export(
    "autobench.core.scoring",
    "autobench-core",
    "ExactScorer",
    "ExpectedAction",
    "ExpectedActionScorer",
    "MissingPathError",
    "OutputMetricScorer",
    "PassFailScorer",
    "PythonScorer",
    "SchemaScorer",
    "ScorerResolutionError",
    "ScorerSpec",
    "ScoringCall",
    "SpanSelector",
    "resolve_dotted_path",
)

_export(
    "autobench.records",
    "autobench-records",
    "RecordingError",
    "RecordFormatError",
    "load_experiment_record",
    "load_run_record",
    "record_experiment",
    "replay_experiment",
)
_export(
    "autobench.records",
    "autobench-records",
    "CompositeExtractor",
    "ExtractionDiagnostic",
    "ExtractionRecord",
    "ExtractionResult",
    "SignalExtractor",
    "SpanExtractor",
    "TraceExtractor",
    "UsageExtractor",
    "replay_extraction",
    "trace_to_observations",
)
_export("autobench.core.runtime", "autobench-core", "AttachedTrace", "attach_trace")
_export("autobench.core.spec", "autobench-core", "SpecError", "load_benchmark_spec")
_export("autobench.core.spec", "autobench-core", "dump_benchmark_spec", "load_benchmark_spec_text")
_export("autobench.core.builder", "autobench-core", "Benchmark")
_export(
    "autobench.core.planning",
    "autobench-core",
    "BenchmarkPlan",
    "MatrixRunSpec",
    "build_benchmark_plan",
    "expand_matrix",
)
_export(
    "autobench.core.runtime",
    "autobench-core",
    "DurationMetricSpec",
    "ProgressEvent",
    "ProgressEventKind",
    "RunContext",
    "Span",
    "TaskResolutionError",
    "capture_environment",
    "collect_benchmark_source_files",
    "get_active_run_context",
    "run_benchmark_path",
    "run_benchmark_spec",
)
_export("autobench.core.plugins", "autobench-core", "hookimpl")
_export(
    "autobench.report",
    "autobench-report",
    "build_case_matrix",
    "build_leaderboard",
    "build_metric_distribution",
    "build_report",
    "build_run_metric_rows",
    "compare_variants",
    "export_runs_csv",
    "export_summary_yaml",
)
_export(
    "autobench.core.tracking",
    "autobench-core",
    "AssetVersion",
    "FieldAsset",
    "ToolAsset",
    "TrackedAsset",
    "TrackedPrompt",
    "TrackingRegistry",
    "TypeAsset",
    "UntrackedAssetError",
    "track",
)
_export(
    "autobench.core.pricing",
    "autobench-core",
    "GenAIPricesSource",
    "LLMPricesSource",
    "ModelPrice",
    "PriceTier",
    "PricingError",
    "PricingTable",
    "StaticPriceSource",
    "TokenRate",
    "dump_pricing_table",
    "from_genai_prices",
    "from_llm_prices",
    "load_pricing_table",
)
_export(
    "autobench.core.derive",
    "autobench-core",
    "DeriverSpec",
    "TokenCostDeriver",
    "TokenCostDeriverSpec",
    "TokenCostInputs",
)
_export("autobench.core.bridges", "autobench-core", "PydanticAIUsage", "record_pydantic_ai_usage")
_export(
    "autobench.core.bridges",
    "autobench-core",
    "PydanticEvalsBridge",
    "PydanticEvalsCasePayload",
    "PydanticEvalsDatasetPayload",
    "PydanticEvalsUnavailableError",
)
_export(
    "autobench.core.packs",
    "autobench-core",
    "DEFAULT_METRIC_PACKS",
    "MetricPack",
    "MetricPackRegistry",
    "builtin_metric_pack_registry",
)
_export(
    "autobench.core.policies",
    "autobench-core",
    "PolicyResult",
    "PolicySpec",
    "evaluate_run_policies",
)
_export(
    "autobench.core.postderive",
    "autobench-core",
    "ComparisonVerdict",
    "ComparisonVerdictSpec",
    "DerivedMetricOutput",
    "PairedBaselineDeriverSpec",
    "PostDeriverSpec",
    "RelativeNoiseThreshold",
    "RunMatchKey",
)
_export(
    "autobench.core.measurement",
    "autobench-core",
    "Measurement",
    "MeasurementBudget",
    "measure_callable",
)
_export(
    "autobench.core.instrumentation",
    "autobench-core",
    "AbstractionLayer",
    "CaptureMechanism",
    "Compatibility",
    "CompatibilityState",
    "InstrumentCall",
    "InstrumentFactorSpec",
    "InstrumentMetricSpec",
    "InstrumentationError",
    "InstrumentationHandle",
    "InstrumentationManager",
    "InstrumentationRuntime",
    "Instrumentor",
    "InstrumentorInfo",
    "instrument_method",
    "suppress_instrumentation",
)

_export(
    "autobench.core.native",
    "autobench-core",
    "HTTPXCaptureSettings",
    "HTTPXInstrumentation",
    "InstrumentationSpec",
    "OpenAIAgentsInstrumentation",
    "OpenAIInstrumentation",
    "PydanticAIInstrumentation",
)
_export("autobench.core.plugins", "autobench-core", "instrumentor_statuses")

_export(
    "autobench.core.data",
    "autobench-core",
    "GeneratedCaseBatch",
    "GenerationInfo",
    "ProductionSample",
    "ReviewStatus",
    "SampleReason",
    "SamplingPolicy",
    "generated_batch_from_cases",
    "mark_generated_case",
    "sample_to_case",
    "samples_to_cases",
)
_export(
    "autobench.core.feedback",
    "autobench-core",
    "FailureCategory",
    "FeedbackRecord",
    "OptimizationFeedbackInput",
    "build_feedback_records",
    "build_optimization_feedback_input",
)


def __getattr__(name: str) -> Any:
    try:
        module_name, distribution = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'autobench' has no attribute {name!r}") from None
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (
            module_name == exc.name or module_name.startswith(exc.name + ".")
        ):
            from autobench.core.distributions import install_hint

            raise ImportError(
                f"autobench.{name} is provided by the {distribution!r} distribution, which is "
                f"not installed; {install_hint(distribution)}"
            ) from exc
        raise
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*_EXPORTS, "__version__"})


__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # pragma: no cover - static view of the lazy exports
    from autobench.abp import (
        DEFAULT_CAPTURE_POLICY,
        PROTOCOL_VERSION,
        AccountingScope,
        AutobenchError,
        CaptureMode,
        CapturePolicy,
        DiagnosticRecord,
        EventRecord,
        InstrumentationScope,
        LinkRecord,
        MeasurementRecord,
        PayloadRef,
        ReferenceRecord,
        SpanKind,
        SpanRecord,
        SpanStatus,
        Trace,
        TraceEnvelope,
    )
    from autobench.core.bridges import (
        PydanticAIUsage,
        PydanticEvalsBridge,
        PydanticEvalsCasePayload,
        PydanticEvalsDatasetPayload,
        PydanticEvalsUnavailableError,
        record_pydantic_ai_usage,
    )
    from autobench.core.builder import Benchmark
    from autobench.core.data import (
        GeneratedCaseBatch,
        GenerationInfo,
        ProductionSample,
        ReviewStatus,
        SampleReason,
        SamplingPolicy,
        generated_batch_from_cases,
        mark_generated_case,
        sample_to_case,
        samples_to_cases,
    )
    from autobench.core.derive import (
        DeriverSpec,
        TokenCostDeriver,
        TokenCostDeriverSpec,
        TokenCostInputs,
    )
    from autobench.core.feedback import (
        FailureCategory,
        FeedbackRecord,
        OptimizationFeedbackInput,
        build_feedback_records,
        build_optimization_feedback_input,
    )
    from autobench.core.instrumentation import (
        AbstractionLayer,
        CaptureMechanism,
        Compatibility,
        CompatibilityState,
        InstrumentationError,
        InstrumentationHandle,
        InstrumentationManager,
        InstrumentationRuntime,
        InstrumentCall,
        InstrumentFactorSpec,
        InstrumentMetricSpec,
        Instrumentor,
        InstrumentorInfo,
        instrument_method,
        suppress_instrumentation,
    )
    from autobench.core.measurement import Measurement, MeasurementBudget, measure_callable
    from autobench.core.native import (
        HTTPXCaptureSettings,
        HTTPXInstrumentation,
        InstrumentationSpec,
        OpenAIAgentsInstrumentation,
        OpenAIInstrumentation,
        PydanticAIInstrumentation,
    )
    from autobench.core.packs import (
        DEFAULT_METRIC_PACKS,
        MetricPack,
        MetricPackRegistry,
        builtin_metric_pack_registry,
    )
    from autobench.core.plugins import instrumentor_statuses
    from autobench.core.policies import PolicyResult, PolicySpec, evaluate_run_policies
    from autobench.core.postderive import (
        ComparisonVerdict,
        ComparisonVerdictSpec,
        DerivedMetricOutput,
        PairedBaselineDeriverSpec,
        PostDeriverSpec,
        RelativeNoiseThreshold,
        RunMatchKey,
    )
    from autobench.core.pricing import (
        GenAIPricesSource,
        LLMPricesSource,
        ModelPrice,
        PriceTier,
        PricingError,
        PricingTable,
        StaticPriceSource,
        TokenRate,
        dump_pricing_table,
        from_genai_prices,
        from_llm_prices,
        load_pricing_table,
    )
    from autobench.core.runtime import AttachedTrace, attach_trace
    from autobench.core.scoring import (
        ExactScorer,
        ExpectedAction,
        ExpectedActionScorer,
        MissingPathError,
        OutputMetricScorer,
        PassFailScorer,
        PythonScorer,
        SchemaScorer,
        ScorerResolutionError,
        ScorerSpec,
        ScoringCall,
        SpanSelector,
        resolve_dotted_path,
    )
    from autobench.core.spec import (
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
        dump_benchmark_spec,
        load_benchmark_spec_text,
    )
    from autobench.core.tracking import (
        AssetVersion,
        FieldAsset,
        ToolAsset,
        TrackedAsset,
        TrackedPrompt,
        TrackingRegistry,
        TypeAsset,
        UntrackedAssetError,
        track,
    )
    from autobench.records import (
        DEFAULT_SEMANTIC_REGISTRY,
        ArtifactRef,
        AssetBinding,
        Case,
        CompositeExtractor,
        Direction,
        ErrorRecord,
        EvaluationStatus,
        ExperimentRecord,
        ExperimentResult,
        ExperimentSummary,
        ExtractionDiagnostic,
        ExtractionRecord,
        ExtractionResult,
        FactorValue,
        Observation,
        ObservationKind,
        ObservationQuery,
        ObservationRole,
        ObservationSource,
        RunRecord,
        RunStatus,
        ScoreRecord,
        Semantic,
        SemanticDefinition,
        SemanticRegistry,
        SemanticType,
        SignalExtractor,
        SpanExtractor,
        TaskStatus,
        TraceExtractor,
        UsageExtractor,
        Variant,
        filter_observations,
        project_observations,
        replay_extraction,
        trace_to_observations,
    )
    from autobench.report import (
        build_case_matrix,
        build_leaderboard,
        build_metric_distribution,
        build_report,
        build_run_metric_rows,
        compare_variants,
        export_runs_csv,
        export_summary_yaml,
    )
