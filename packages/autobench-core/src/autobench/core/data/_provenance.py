"""Production samples, sampling policy and generated-case marking: case provenance.

Provenance is stored flat in ``case.metadata`` as plain JSON values, so it
round-trips through records and dataset hashing unchanged. Its ``source`` is
``production`` or ``generated``; keys whose value is unset are left out, and
provenance keys win over sample/case metadata keys of the same name:

* production (:func:`sample_to_case`, :data:`PRODUCTION_METADATA_KEYS`):
  ``source``, ``sample_id``, ``source_system``, ``sample_reason``,
  ``review_status``, ``reviewer``, ``timestamp`` (ISO 8601 text),
  ``privacy_tags``, ``trace_id``, ``production_output`` (what production
  returned) and ``input_hash``.
* generated (:func:`mark_generated_case`, :data:`GENERATED_METADATA_KEYS`):
  ``source``, ``generator_asset_version``, ``model_provider``, ``model_name``,
  ``prompt_version``, ``generation_reason``, ``review_status``, ``input_hash``,
  ``batch`` (the :class:`GeneratedCaseBatch` id, when made by
  :func:`generated_batch_from_cases`) and ``derived_from`` (when the case had a
  ``source`` that was not ``generated``, e.g. the production sample a generated
  variation was made from: that provenance, moved out of the flat keys into
  this mapping). Marking an already generated case replaces its generated keys.

``input_hash`` is the sha256 of the canonical JSON of the input (sorted keys,
``repr`` for values JSON cannot encode); :func:`samples_to_cases` deduplicates on it.

Autobench does not generate data: these helpers only label cases consistently.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from autobench.records import Case

PRODUCTION_METADATA_KEYS = (
    "source",
    "sample_id",
    "source_system",
    "sample_reason",
    "review_status",
    "reviewer",
    "timestamp",
    "privacy_tags",
    "trace_id",
    "production_output",
    "input_hash",
)
"""The ``case.metadata`` keys :func:`sample_to_case` may set."""

GENERATED_METADATA_KEYS = (
    "source",
    "generator_asset_version",
    "model_provider",
    "model_name",
    "prompt_version",
    "generation_reason",
    "review_status",
    "input_hash",
    "batch",
    "derived_from",
)
"""The ``case.metadata`` keys :func:`mark_generated_case` may set."""


class ReviewStatus(StrEnum):
    """Where a sample or generated case is in human review."""

    CANDIDATE = "candidate"
    NEEDS_REVIEW = "needs_review"
    APPROVED = "approved"
    REJECTED = "rejected"


class SampleReason(StrEnum):
    """Why a production sample was taken."""

    RANDOM = "random"
    FAILURE_ONLY = "failure_only"
    HIGH_COST = "high_cost"
    HIGH_LATENCY = "high_latency"
    USER_FEEDBACK = "user_feedback"
    MANUAL = "manual"


def input_hash(value: Any) -> str:
    """sha256 hex digest of the canonical JSON form of ``value`` (see the module docstring)."""
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)
    except (TypeError, ValueError):  # mixed-type keys cannot be sorted, NaN is fine
        text = repr(value)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _tuple(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(dict.fromkeys(value))
    return value


class ProductionSample(BaseModel):
    """One request/response seen in production and its review state.

    ``id`` is the id in the source system (``source``); ``output`` is what
    production returned, ``expected`` the reviewed answer when there is one.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    input: Any = None
    output: Any = None
    expected: Any = None
    timestamp: datetime | None = None
    source: str | None = None
    reason: SampleReason | None = None
    review_status: ReviewStatus = ReviewStatus.CANDIDATE
    reviewer: str | None = None
    tags: tuple[str, ...] = ()
    privacy_tags: tuple[str, ...] = ()
    trace_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("tags", "privacy_tags", mode="before")
    @classmethod
    def _dedupe(cls, value: Any) -> Any:
        return _tuple(value)

    @property
    def input_hash(self) -> str:
        return input_hash(self.input)


def _compact(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if value is not None and value != ()}


def sample_to_case(
    sample: ProductionSample,
    *,
    case_id: str | None = None,
    expected_from_output: bool = False,
    tags: Iterable[str] = (),
) -> Case:
    """A :class:`Case` from ``sample``, its provenance flat in ``case.metadata``.

    The case id is ``case_id`` or the sample id; ``expected`` is the sample's
    expected value, or its production output when that is ``None`` and
    ``expected_from_output`` is true. Tags are the sample's plus ``tags``.
    """
    provenance = _compact(
        {
            "source": "production",
            "sample_id": sample.id,
            "source_system": sample.source,
            "sample_reason": sample.reason.value if sample.reason else None,
            "review_status": sample.review_status.value,
            "reviewer": sample.reviewer,
            "timestamp": sample.timestamp.isoformat() if sample.timestamp else None,
            "privacy_tags": list(sample.privacy_tags) or None,
            "trace_id": sample.trace_id,
            "production_output": sample.output,
            "input_hash": sample.input_hash,
        }
    )
    expected = sample.expected
    if expected is None and expected_from_output:
        expected = sample.output
    return Case(
        id=case_id or sample.id,
        input=sample.input,
        expected=expected,
        metadata={**sample.metadata, **provenance},
        tags=(*sample.tags, *tags),
    )


_DEFAULT_STATUSES = (ReviewStatus.CANDIDATE, ReviewStatus.NEEDS_REVIEW, ReviewStatus.APPROVED)


class SamplingPolicy(BaseModel):
    """Which production samples become cases, and how many.

    Applied by :func:`samples_to_cases` in this order:

    1. keep samples whose ``review_status`` is in ``review_statuses`` (default:
       everything but ``rejected``) and, when ``reasons`` is set, whose reason is in it;
    2. when ``dedupe`` (default), keep the first sample of each input hash;
    3. when more than ``max_samples`` remain, keep the ``max_samples`` samples with the
       smallest ``sha256(f"{seed}:{sample.id}")``: the choice depends only on the seed
       and the sample ids, not on the order or the number of other samples.

    The result keeps the input order.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_samples: int | None = Field(default=None, ge=0)
    review_statuses: tuple[ReviewStatus, ...] = _DEFAULT_STATUSES
    reasons: tuple[SampleReason, ...] | None = None
    seed: int = 0
    dedupe: bool = True
    expected_from_output: bool = False

    def accepts(self, sample: ProductionSample) -> bool:
        if sample.review_status not in self.review_statuses:
            return False
        return self.reasons is None or sample.reason in self.reasons

    def select(self, samples: Iterable[ProductionSample]) -> list[ProductionSample]:
        """The samples this policy keeps, in input order (steps 1 to 3)."""
        kept = [sample for sample in samples if self.accepts(sample)]
        if self.dedupe:
            seen: set[str] = set()
            unique = []
            for sample in kept:
                digest = sample.input_hash
                if digest not in seen:
                    seen.add(digest)
                    unique.append(sample)
            kept = unique
        if self.max_samples is not None and len(kept) > self.max_samples:
            chosen = sorted(
                range(len(kept)),
                key=lambda i: hashlib.sha256(f"{self.seed}:{kept[i].id}".encode()).hexdigest(),
            )[: self.max_samples]
            kept = [kept[i] for i in sorted(chosen)]
        return kept


def samples_to_cases(
    samples: Iterable[ProductionSample], policy: SamplingPolicy | None = None
) -> list[Case]:
    """Cases from the samples ``policy`` (default :class:`SamplingPolicy`) selects.

    Raises ``ValueError`` when two selected samples share an id (case ids must be unique).
    """
    policy = policy or SamplingPolicy()
    cases = [
        sample_to_case(sample, expected_from_output=policy.expected_from_output)
        for sample in policy.select(samples)
    ]
    ids = [case.id for case in cases]
    if len(ids) != len(set(ids)):
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        raise ValueError(f"samples share ids: {', '.join(duplicates)}")
    return cases


class GenerationInfo(BaseModel):
    """How a generated case was made: generator asset (or tool) version, model provider
    and name, prompt version, why (``reason``, kept as ``generation_reason``), and its
    review state."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    generator_asset_version: str = Field(min_length=1)
    model_provider: str | None = None
    model_name: str | None = None
    prompt_version: str | None = None
    reason: str | None = None
    review_status: ReviewStatus = ReviewStatus.CANDIDATE


def _mark(case: Case, info: GenerationInfo, batch: str | None) -> Case:
    metadata = dict(case.metadata)
    derived_from = None
    previous_source = metadata.get("source")
    if previous_source == "generated":
        # Re-marking replaces how the case was generated but never where it came from.
        derived_from = metadata.get("derived_from")
        for key in GENERATED_METADATA_KEYS:
            metadata.pop(key, None)
    elif previous_source is not None:
        derived_from = {
            key: metadata.pop(key) for key in PRODUCTION_METADATA_KEYS if key in metadata
        }
    generation = info.model_dump(mode="json")
    provenance = _compact(
        {
            "source": "generated",
            "generator_asset_version": generation["generator_asset_version"],
            "model_provider": generation["model_provider"],
            "model_name": generation["model_name"],
            "prompt_version": generation["prompt_version"],
            "generation_reason": generation["reason"],
            "review_status": generation["review_status"],
            "input_hash": input_hash(case.input),
            "batch": batch,
            "derived_from": derived_from,
        }
    )
    return case.model_copy(update={"metadata": {**metadata, **provenance}})


def mark_generated_case(
    case: Case,
    *,
    generator_asset_version: str,
    model_provider: str | None = None,
    model_name: str | None = None,
    prompt_version: str | None = None,
    reason: str | None = None,
    review_status: ReviewStatus | str = ReviewStatus.CANDIDATE,
) -> Case:
    """A copy of ``case`` whose metadata says it was generated (see the module docstring)."""
    info = GenerationInfo(
        generator_asset_version=generator_asset_version,
        model_provider=model_provider,
        model_name=model_name,
        prompt_version=prompt_version,
        reason=reason,
        review_status=ReviewStatus(review_status),
    )
    return _mark(case, info, None)


class GeneratedCaseBatch(BaseModel):
    """Generated cases with the generation details and policy they share.

    ``id`` defaults to ``gen_`` plus 12 hex digits of a hash of the generation
    details and the case ids and inputs, so the same batch gets the same id.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    generation: GenerationInfo
    cases: tuple[Case, ...]
    policy: str | None = None
    source: str | None = None
    created_at: datetime | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def case_ids(self) -> tuple[str, ...]:
        return tuple(case.id for case in self.cases)


def generated_batch_from_cases(
    cases: Sequence[Case],
    *,
    generator_asset_version: str,
    model_provider: str | None = None,
    model_name: str | None = None,
    prompt_version: str | None = None,
    reason: str | None = None,
    review_status: ReviewStatus | str = ReviewStatus.CANDIDATE,
    batch_id: str | None = None,
    policy: str | None = None,
    source: str | None = None,
    created_at: datetime | None = None,
    metadata: dict[str, Any] | None = None,
) -> GeneratedCaseBatch:
    """Mark every case as generated (provenance ``batch`` set to the batch id) and
    bundle them. ``policy`` and ``source`` describe how the batch was selected and
    what it was generated from. Raises ``ValueError`` on duplicate case ids."""
    ids = [case.id for case in cases]
    if len(ids) != len(set(ids)):
        raise ValueError(
            f"cases share ids: {', '.join(sorted({i for i in ids if ids.count(i) > 1}))}"
        )
    info = GenerationInfo(
        generator_asset_version=generator_asset_version,
        model_provider=model_provider,
        model_name=model_name,
        prompt_version=prompt_version,
        reason=reason,
        review_status=ReviewStatus(review_status),
    )
    if batch_id is None:
        digest = input_hash(
            [
                info.model_dump(mode="json"),
                policy,
                source,
                [[c.id, input_hash(c.input)] for c in cases],
            ]
        )
        batch_id = f"gen_{digest[:12]}"
    return GeneratedCaseBatch(
        id=batch_id,
        generation=info,
        cases=tuple(_mark(case, info, batch_id) for case in cases),
        policy=policy,
        source=source,
        created_at=created_at,
        metadata=dict(metadata or {}),
    )
