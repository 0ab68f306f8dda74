"""Autobench evidence model, semantic registry, YAML record codec, record directory and replay.

Everything here works from recorded evidence alone: it never imports a task,
a scorer module or an instrumented SDK.
"""

from autobench.records._accounting import (
    AGGREGATE_MEASUREMENT_MISMATCH as AGGREGATE_MEASUREMENT_MISMATCH,
)
from autobench.records._accounting import (
    AMBIGUOUS_DIRECT_MEASUREMENT as AMBIGUOUS_DIRECT_MEASUREMENT,
)
from autobench.records._accounting import LAYER_PRIORITY as LAYER_PRIORITY
from autobench.records._aggregate import AGGREGATIONS as AGGREGATIONS
from autobench.records._aggregate import Aggregate as Aggregate
from autobench.records._aggregate import UnknownAggregationError as UnknownAggregationError
from autobench.records._aggregate import aggregate as aggregate
from autobench.records._changes import experiment_changes as experiment_changes
from autobench.records._chunked import ChunkedColumn as ChunkedColumn
from autobench.records._chunked import CodedColumn as CodedColumn
from autobench.records._codec import EVIDENCE_ONLY as EVIDENCE_ONLY
from autobench.records._codec import artifact_payload_from_yaml as artifact_payload_from_yaml
from autobench.records._codec import artifact_payload_to_yaml as artifact_payload_to_yaml
from autobench.records._codec import experiment_record_from_yaml as experiment_record_from_yaml
from autobench.records._codec import experiment_record_to_yaml as experiment_record_to_yaml
from autobench.records._codec import experiment_summary_from_yaml as experiment_summary_from_yaml
from autobench.records._codec import experiment_summary_to_yaml as experiment_summary_to_yaml
from autobench.records._codec import post_derived_from_yaml as post_derived_from_yaml
from autobench.records._codec import post_derived_to_yaml as post_derived_to_yaml
from autobench.records._codec import run_record_from_yaml as run_record_from_yaml
from autobench.records._codec import run_record_to_yaml as run_record_to_yaml
from autobench.records._codec import trace_from_yaml as trace_from_yaml
from autobench.records._codec import trace_to_yaml as trace_to_yaml
from autobench.records._directory import TRACE_INLINE_LIMIT as TRACE_INLINE_LIMIT
from autobench.records._directory import RecordDirectoryWriter
from autobench.records._enums import SOURCE_PRECEDENCE as SOURCE_PRECEDENCE
from autobench.records._enums import (
    Direction,
    EvaluationStatus,
    ObservationKind,
    ObservationRole,
    RunStatus,
    TaskStatus,
)
from autobench.records._enums import ObservationSource as ObservationSource
from autobench.records._errors import MissingRecordError as MissingRecordError
from autobench.records._errors import RecordFormatError, RecordingError
from autobench.records._evidence import (
    ArtifactRef,
    Case,
    ErrorLocation,
    ErrorRecord,
    FactorValue,
    Observation,
    ScoreRecord,
    Variant,
)
from autobench.records._evidence import factors_from_mapping as factors_from_mapping
from autobench.records._evidence import trusted_observation as trusted_observation
from autobench.records._extract_signals import SignalExtractor
from autobench.records._extract_spans import SpanExtractor
from autobench.records._extract_usage import UsageExtractor
from autobench.records._extraction import CompositeExtractor, ExtractionResult, TraceExtractor
from autobench.records._extraction import EvidenceReference as EvidenceReference
from autobench.records._extraction import ExtractionDiagnostic as ExtractionDiagnostic
from autobench.records._extraction_io import (
    extraction_record_from_yaml as extraction_record_from_yaml,
)
from autobench.records._extraction_io import extraction_record_to_yaml as extraction_record_to_yaml
from autobench.records._extraction_io import load_extraction_record as load_extraction_record
from autobench.records._extraction_io import merge_extractions as merge_extractions
from autobench.records._extraction_record import (
    EXTRACTION_RECORD_VERSION as EXTRACTION_RECORD_VERSION,
)
from autobench.records._extraction_record import DerivedRunRecord, ExtractionRecord
from autobench.records._extraction_record import ExtractionLineage as ExtractionLineage
from autobench.records._extraction_record import ExtractorInfo as ExtractorInfo
from autobench.records._extraction_replay import (
    replay_experiment_extraction,
    replay_extraction,
)
from autobench.records._labels import LABEL_COLUMNS as LABEL_COLUMNS
from autobench.records._labels import LabelsError as LabelsError
from autobench.records._labels import labels_text as labels_text
from autobench.records._labels import read_labels as read_labels
from autobench.records._labels import write_labels as write_labels
from autobench.records._labels_model import LABELS_FILE as LABELS_FILE
from autobench.records._labels_model import Label as Label
from autobench.records._labels_model import LabelsFile as LabelsFile
from autobench.records._legacy import upgrade_run_body as upgrade_run_body
from autobench.records._legacy import upgrade_trace_document as upgrade_trace_document
from autobench.records._native import NativeObservation as NativeObservation
from autobench.records._native import native_observations as native_observations
from autobench.records._output_redaction import output_policy as output_policy
from autobench.records._output_redaction import redact_content as redact_content
from autobench.records._output_redaction import redact_known as redact_known
from autobench.records._output_redaction import redact_strings as redact_strings
from autobench.records._output_redaction import redact_text as redact_text
from autobench.records._output_redaction import redact_url as redact_url
from autobench.records._output_redaction import redact_value as redact_value
from autobench.records._output_redaction import url_secrets as url_secrets
from autobench.records._ownership import case_input_hash as case_input_hash
from autobench.records._ownership import check_own_run as check_own_run
from autobench.records._ownership import record_file as record_file
from autobench.records._pairwise_io import load_pairwise_record as load_pairwise_record
from autobench.records._pairwise_io import pairwise_path as pairwise_path
from autobench.records._pairwise_io import pairwise_record_from_yaml as pairwise_record_from_yaml
from autobench.records._pairwise_io import pairwise_record_to_yaml as pairwise_record_to_yaml
from autobench.records._pairwise_io import pairwise_records as pairwise_records
from autobench.records._pairwise_io import store_pairwise_record as store_pairwise_record
from autobench.records._pairwise_record import PAIRWISE_RECORD_VERSION as PAIRWISE_RECORD_VERSION
from autobench.records._pairwise_record import PairwiseCase as PairwiseCase
from autobench.records._pairwise_record import PairwiseLineage as PairwiseLineage
from autobench.records._pairwise_record import PairwiseOrder as PairwiseOrder
from autobench.records._pairwise_record import PairwiseRecord as PairwiseRecord
from autobench.records._pairwise_record import combined_outcome as combined_outcome
from autobench.records._parsed_runs import ParsedRuns as ParsedRuns
from autobench.records._paths import artifact_dir as artifact_dir
from autobench.records._paths import run_record_path as run_record_path
from autobench.records._paths import safe_segment as safe_segment
from autobench.records._plan_columns import (
    experiment_record_with_plan_columns as experiment_record_with_plan_columns,
)
from autobench.records._plan_table import PLAN_COLUMNS as PLAN_COLUMNS
from autobench.records._plan_table import PlanTable as PlanTable
from autobench.records._plan_table import plan_column as plan_column
from autobench.records._plan_table import plan_column_chunks as plan_column_chunks
from autobench.records._post_derived import POST_DERIVED_FILE as POST_DERIVED_FILE
from autobench.records._post_derived import (
    POST_DERIVED_RECORD_VERSION as POST_DERIVED_RECORD_VERSION,
)
from autobench.records._post_derived import PostDerivedRecord as PostDerivedRecord
from autobench.records._post_derived import merge_post_derived as merge_post_derived
from autobench.records._projection import (
    ObservationQuery,
    filter_observations,
    project_observations,
    run_observations,
)
from autobench.records._projection import ProjectedMetric as ProjectedMetric
from autobench.records._projection import score_observation as score_observation
from autobench.records._records import EXPERIMENT_RECORD_VERSION as EXPERIMENT_RECORD_VERSION
from autobench.records._records import RUN_RECORD_VERSION as RUN_RECORD_VERSION
from autobench.records._records import SUMMARY_RECORD_VERSION as SUMMARY_RECORD_VERSION
from autobench.records._records import TRACE_MEDIA_TYPE as TRACE_MEDIA_TYPE
from autobench.records._records import TRACE_RECORD_VERSION as TRACE_RECORD_VERSION
from autobench.records._records import AssetBinding as AssetBinding
from autobench.records._records import AttemptError as AttemptError
from autobench.records._records import AttemptRecord as AttemptRecord
from autobench.records._records import BenchmarkInfoRecord as BenchmarkInfoRecord
from autobench.records._records import CassetteInfo as CassetteInfo
from autobench.records._records import DatasetInfo as DatasetInfo
from autobench.records._records import ExperimentInfo as ExperimentInfo
from autobench.records._records import ExperimentRecord, ExperimentSummary, RunRecord
from autobench.records._records import PlannedRun as PlannedRun
from autobench.records._records import PlanSequence as PlanSequence
from autobench.records._records import RedactionInfo as RedactionInfo
from autobench.records._records import ResumeInfo as ResumeInfo
from autobench.records._records import RunInfo as RunInfo
from autobench.records._records import RunOutcome as RunOutcome
from autobench.records._records import SpecInfo as SpecInfo
from autobench.records._records import StatusCounts as StatusCounts
from autobench.records._records import TraceSummary as TraceSummary
from autobench.records._replay import apply_record_redaction as apply_record_redaction
from autobench.records._replay import check_run_files as check_run_files
from autobench.records._replay import (
    load_experiment_record,
    load_run_record,
    record_experiment,
    replay_experiment,
)
from autobench.records._replay import load_experiment_summary as load_experiment_summary
from autobench.records._replay import load_post_derived as load_post_derived
from autobench.records._rescore_io import HASH_DIGITS as HASH_DIGITS
from autobench.records._rescore_io import Rescoring as Rescoring
from autobench.records._rescore_io import UnknownRescoringError as UnknownRescoringError
from autobench.records._rescore_io import find_rescoring as find_rescoring
from autobench.records._rescore_io import load_rescore_record as load_rescore_record
from autobench.records._rescore_io import rescore_path as rescore_path
from autobench.records._rescore_io import rescore_record_from_yaml as rescore_record_from_yaml
from autobench.records._rescore_io import rescore_record_to_yaml as rescore_record_to_yaml
from autobench.records._rescore_io import rescoring_labels as rescoring_labels
from autobench.records._rescore_io import rescorings as rescorings
from autobench.records._rescore_io import run_sha256 as run_sha256
from autobench.records._rescore_io import store_rescore_record as store_rescore_record
from autobench.records._rescore_io import with_rescored as with_rescored
from autobench.records._rescore_record import RECORDED_SPEC as RECORDED_SPEC
from autobench.records._rescore_record import RESCORE_RECORD_VERSION as RESCORE_RECORD_VERSION
from autobench.records._rescore_record import SCORER_TAG as SCORER_TAG
from autobench.records._rescore_record import RescoredRunRecord as RescoredRunRecord
from autobench.records._rescore_record import RescoreLineage as RescoreLineage
from autobench.records._rescore_record import RescoreRecord as RescoreRecord
from autobench.records._rescore_record import ScorerDefinition as ScorerDefinition
from autobench.records._result import ExperimentResult
from autobench.records._run_accounting import ACCOUNTED_SOURCES as ACCOUNTED_SOURCES
from autobench.records._run_accounting import ACCOUNTING_VERSION as ACCOUNTING_VERSION
from autobench.records._run_accounting import POOLS as POOLS
from autobench.records._run_accounting import Pool as Pool
from autobench.records._run_accounting import PoolTotal as PoolTotal
from autobench.records._run_accounting import SpanIndex as SpanIndex
from autobench.records._run_accounting import account_run as account_run
from autobench.records._run_accounting import accounting_observations as accounting_observations
from autobench.records._run_accounting import is_summary as is_summary
from autobench.records._run_accounting import needs_accounting as needs_accounting
from autobench.records._run_accounting import pool_of as pool_of
from autobench.records._run_accounting import pool_total as pool_total
from autobench.records._run_table import PlainFields as PlainFields
from autobench.records._run_table import PlainItem as PlainItem
from autobench.records._run_table import PlainRun as PlainRun
from autobench.records._run_table import PlainRuns as PlainRuns
from autobench.records._run_table import RunTable as RunTable
from autobench.records._run_table import plain_items as plain_items
from autobench.records._run_table import plain_run as plain_run
from autobench.records._schemas import RECORD_VERSIONS as RECORD_VERSIONS
from autobench.records._schemas import ensure_schema_cache
from autobench.records._schemas import record_schemas as record_schemas
from autobench.records._schemas import schema_dir as schema_dir
from autobench.records._schemas import schema_id as schema_id
from autobench.records._semantics import (
    DEFAULT_SEMANTIC_REGISTRY,
    Semantic,
    SemanticDefinition,
    SemanticRegistry,
    SemanticType,
)
from autobench.records._semantics import NAMESPACE_DIRECTIONS as NAMESPACE_DIRECTIONS
from autobench.records._sink import ClosableSink as ClosableSink
from autobench.records._sink import DirectorySink as DirectorySink
from autobench.records._sink import DurableRun as DurableRun
from autobench.records._sink import DurableSink as DurableSink
from autobench.records._sink import ExperimentSink as ExperimentSink
from autobench.records._sink import ListenedSink as ListenedSink
from autobench.records._sink import PreparingSink as PreparingSink
from autobench.records._sink import RecordListener as RecordListener
from autobench.records._trace_import import trace_to_observations
from autobench.records._trace_shape import DiagnosticTally as DiagnosticTally
from autobench.records._trace_shape import ExperimentTraceShape as ExperimentTraceShape
from autobench.records._trace_shape import RunTraceShape as RunTraceShape
from autobench.records._trace_shape import ScopeShape as ScopeShape
from autobench.records._trace_shape import SpanTally as SpanTally
from autobench.records._trace_shape import VariantTraceShape as VariantTraceShape
from autobench.records._trace_shape import experiment_trace_shape as experiment_trace_shape
from autobench.records._trace_shape import trace_shape as trace_shape
from autobench.records._units import COUNT_UNITS as COUNT_UNITS
from autobench.records._units import CURRENCIES as CURRENCIES
from autobench.records._units import TIME_FACTORS as TIME_FACTORS
from autobench.records._units import ConvertedValues as ConvertedValues
from autobench.records._units import UnitConversionError as UnitConversionError
from autobench.records._units import UnitValue as UnitValue
from autobench.records._units import conversion_factor as conversion_factor
from autobench.records._units import convert_unit as convert_unit
from autobench.records._units import same_unit as same_unit
from autobench.records._units import to_common_unit as to_common_unit
from autobench.records._units import unit_dimension as unit_dimension
from autobench.records._values import OpaqueValue as OpaqueValue
from autobench.records._values import encode_value as encode_value
from autobench.records._yaml import compose_yaml as compose_yaml
from autobench.records._yaml import construct_yaml as construct_yaml
from autobench.records._yaml import load_document as load_document
from autobench.records._yaml import render_sections as render_sections
from autobench.records._yaml_input import InputDocument as InputDocument
from autobench.records._yaml_input import compose_input as compose_input
from autobench.records._yaml_input import construct_input as construct_input
from autobench.records._yaml_input import load_input as load_input
from autobench.records._yaml_input import render_input_sections as render_input_sections
from autobench.records._yaml_limits import MAX_EXPANDED_VALUES as MAX_EXPANDED_VALUES
from autobench.records._yaml_limits import MAX_INPUT_NESTING as MAX_INPUT_NESTING
from autobench.records._yaml_limits import MAX_RECORD_NESTING as MAX_RECORD_NESTING
from autobench.records._yaml_limits import YamlLimitError as YamlLimitError

__all__ = [
    "DEFAULT_SEMANTIC_REGISTRY",
    "LABELS_FILE",
    "ArtifactRef",
    "Case",
    "CompositeExtractor",
    "DerivedRunRecord",
    "Direction",
    "ErrorLocation",
    "ErrorRecord",
    "EvaluationStatus",
    "ExperimentRecord",
    "ExperimentResult",
    "ExperimentSummary",
    "ExtractionRecord",
    "ExtractionResult",
    "FactorValue",
    "Label",
    "LabelsError",
    "LabelsFile",
    "Observation",
    "ObservationKind",
    "ObservationQuery",
    "ObservationRole",
    "RecordDirectoryWriter",
    "RecordFormatError",
    "RecordingError",
    "RunRecord",
    "RunStatus",
    "ScoreRecord",
    "Semantic",
    "SemanticDefinition",
    "SemanticRegistry",
    "SemanticType",
    "SignalExtractor",
    "SpanExtractor",
    "TaskStatus",
    "TraceExtractor",
    "UsageExtractor",
    "Variant",
    "ensure_schema_cache",
    "filter_observations",
    "load_experiment_record",
    "load_run_record",
    "project_observations",
    "read_labels",
    "record_experiment",
    "replay_experiment",
    "replay_experiment_extraction",
    "replay_extraction",
    "run_observations",
    "trace_to_observations",
    "write_labels",
]
