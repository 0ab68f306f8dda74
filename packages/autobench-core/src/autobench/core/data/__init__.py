"""Case provenance: production samples, sampling policy and generated-case batches."""

from autobench.core.data._provenance import GENERATED_METADATA_KEYS as GENERATED_METADATA_KEYS
from autobench.core.data._provenance import PRODUCTION_METADATA_KEYS as PRODUCTION_METADATA_KEYS
from autobench.core.data._provenance import (
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
from autobench.core.data._provenance import input_hash as input_hash

__all__ = [
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
]
