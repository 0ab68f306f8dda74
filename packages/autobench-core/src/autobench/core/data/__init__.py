"""Case provenance: production samples, sampling policy and generated-case batches."""

from autobench.core.data._provenance import (
    GENERATED_METADATA_KEYS,
    PRODUCTION_METADATA_KEYS,
    GeneratedCaseBatch,
    GenerationInfo,
    ProductionSample,
    ReviewStatus,
    SampleReason,
    SamplingPolicy,
    generated_batch_from_cases,
    input_hash,
    mark_generated_case,
    sample_to_case,
    samples_to_cases,
)

__all__ = [
    "GENERATED_METADATA_KEYS",
    "PRODUCTION_METADATA_KEYS",
    "GeneratedCaseBatch",
    "GenerationInfo",
    "ProductionSample",
    "ReviewStatus",
    "SampleReason",
    "SamplingPolicy",
    "generated_batch_from_cases",
    "input_hash",
    "mark_generated_case",
    "sample_to_case",
    "samples_to_cases",
]
