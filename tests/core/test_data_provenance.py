"""Production samples, sampling policy and generated cases: provenance kept flat in case metadata."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest
from runtime_support import make_spec, write_task_module

from autobench import (
    Case,
    GeneratedCaseBatch,
    ProductionSample,
    ReviewStatus,
    SampleReason,
    SamplingPolicy,
    generated_batch_from_cases,
    mark_generated_case,
    sample_to_case,
    samples_to_cases,
)
from autobench.core.data import GENERATED_METADATA_KEYS, PRODUCTION_METADATA_KEYS, input_hash
from autobench.core.runtime import run_benchmark_spec
from autobench.records import RecordDirectoryWriter, replay_experiment

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _sample(i: int, **extra: object) -> ProductionSample:
    data: dict[str, object] = {"id": f"prod_{i:03d}", "input": {"message": f"m{i}"}}
    data.update(extra)
    return ProductionSample.model_validate(data)


def test_sample_to_case_keeps_provenance() -> None:
    sample = ProductionSample(
        id="prod_001",
        input={"message": "refund please"},
        output={"queue": "billing"},
        expected={"queue": "billing"},
        reason=SampleReason.FAILURE_ONLY,
        review_status=ReviewStatus.APPROVED,
        reviewer="ana",
        timestamp=WHEN,
        source="support-api",
        tags=["routing", "routing"],
        privacy_tags=("pii_redacted",),
        trace_id="trace-1",
        metadata={"tenant": "demo"},
    )
    case = sample_to_case(sample, tags=["prod"])
    assert (case.id, case.input, case.expected) == ("prod_001", sample.input, {"queue": "billing"})
    assert case.tags == ("routing", "prod")
    assert case.metadata == {
        "tenant": "demo",
        "source": "production",
        "sample_id": "prod_001",
        "source_system": "support-api",
        "sample_reason": "failure_only",
        "review_status": "approved",
        "reviewer": "ana",
        "timestamp": "2026-01-02T03:04:05+00:00",
        "privacy_tags": ["pii_redacted"],
        "trace_id": "trace-1",
        "production_output": {"queue": "billing"},
        "input_hash": input_hash({"message": "refund please"}),
    }
    bare = sample_to_case(_sample(2, output="x"), case_id="c2", expected_from_output=True)
    assert bare.id == "c2" and bare.expected == "x"
    assert set(bare.metadata) == {
        "source", "sample_id", "review_status", "production_output", "input_hash"
    }  # fmt: skip
    assert set(case.metadata) - {"tenant"} == set(PRODUCTION_METADATA_KEYS)
    # provenance wins over sample metadata of the same name
    clash = sample_to_case(_sample(3, metadata={"source": "crm", "team": "x"}))
    assert (clash.metadata["source"], clash.metadata["team"]) == ("production", "x")


def test_input_hash_is_canonical() -> None:
    assert input_hash({"a": 1, "b": [1, 2]}) == input_hash({"b": [1, 2], "a": 1})
    assert input_hash({"a": 1}) != input_hash({"a": 2})
    assert len(input_hash({1: "x", "y": 2})) == 64  # mixed keys fall back to repr


def test_policy_filters_by_review_status_and_reason() -> None:
    samples = [
        _sample(1, review_status="approved", reason="high_cost"),
        _sample(2, review_status="rejected", reason="high_cost"),
        _sample(3, review_status="candidate", reason="random"),
        _sample(4, review_status="needs_review", reason="failure_only"),
    ]
    assert [c.id for c in samples_to_cases(samples)] == ["prod_001", "prod_003", "prod_004"]
    policy = SamplingPolicy(reasons=(SampleReason.FAILURE_ONLY, SampleReason.HIGH_COST))
    assert [c.id for c in samples_to_cases(samples, policy)] == ["prod_001", "prod_004"]
    approved = SamplingPolicy(review_statuses=(ReviewStatus.APPROVED,))
    assert [c.id for c in samples_to_cases(samples, approved)] == ["prod_001"]


def test_dedupe_by_input_hash_keeps_the_first() -> None:
    samples = [
        _sample(1, input={"q": "same", "n": 1}),
        _sample(2, input={"n": 1, "q": "same"}),
        _sample(3, input={"q": "other"}),
    ]
    assert [c.id for c in samples_to_cases(samples)] == ["prod_001", "prod_003"]
    kept = samples_to_cases(samples, SamplingPolicy(dedupe=False))
    assert [c.id for c in kept] == ["prod_001", "prod_002", "prod_003"]


def test_seeded_sampling_is_deterministic_and_order_independent() -> None:
    samples = [_sample(i) for i in range(50)]
    policy = SamplingPolicy(max_samples=10, seed=7)
    first = [c.id for c in samples_to_cases(samples, policy)]
    assert len(first) == 10
    assert first == sorted(first)  # input order is kept
    assert [c.id for c in samples_to_cases(list(reversed(samples)), policy)] == sorted(
        first, reverse=True
    )
    assert [c.id for c in samples_to_cases(samples, policy)] == first
    other = [c.id for c in samples_to_cases(samples, SamplingPolicy(max_samples=10, seed=8))]
    assert other != first
    assert samples_to_cases(samples, SamplingPolicy(max_samples=0)) == []


def test_duplicate_sample_ids_are_refused() -> None:
    with pytest.raises(ValueError, match="samples share ids: prod_001"):
        samples_to_cases([_sample(1), _sample(1, input={"other": True})])


def test_mark_generated_case() -> None:
    case = Case(id="synthetic_1", input={"question": "q"}, expected={"answer": "a"})
    marked = mark_generated_case(
        case,
        generator_asset_version="prompt.generator@abc123",
        model_provider="openrouter",
        model_name="openai/gpt-5.6-luna",
        prompt_version="v3",
        reason="cover refunds",
    )
    assert case.metadata == {}  # the original is untouched
    assert marked.metadata == {
        "source": "generated",
        "generator_asset_version": "prompt.generator@abc123",
        "model_provider": "openrouter",
        "model_name": "openai/gpt-5.6-luna",
        "prompt_version": "v3",
        "generation_reason": "cover refunds",
        "review_status": "candidate",
        "input_hash": input_hash({"question": "q"}),
    }
    production = sample_to_case(_sample(1, reason="high_cost", metadata={"tenant": "demo"}))
    from_production = mark_generated_case(
        production, generator_asset_version="paraphraser@1", review_status="approved"
    )
    metadata = from_production.metadata
    assert (metadata["source"], metadata["review_status"]) == ("generated", "approved")
    assert metadata["tenant"] == "demo"
    # the production provenance moves into derived_from: nothing is stored twice
    assert metadata["derived_from"] == {
        key: value for key, value in production.metadata.items() if key != "tenant"
    }
    assert "sample_reason" not in metadata and "sample_id" not in metadata
    assert set(metadata) - {"tenant"} <= set(GENERATED_METADATA_KEYS)
    # re-marking a generated case replaces its generated keys
    again = mark_generated_case(marked, generator_asset_version="other@2")
    assert again.metadata == {
        "source": "generated",
        "generator_asset_version": "other@2",
        "review_status": "candidate",
        "input_hash": input_hash({"question": "q"}),
    }
    # ... but never where the case came from
    remarked = mark_generated_case(from_production, generator_asset_version="paraphraser@2")
    assert remarked.metadata["derived_from"] == metadata["derived_from"]
    assert remarked.metadata["generator_asset_version"] == "paraphraser@2"


def test_generated_batch() -> None:
    cases = [Case(id=f"g{i}", input={"q": i}) for i in range(3)]
    batch = generated_batch_from_cases(
        cases,
        generator_asset_version="gen@1",
        model_provider="openrouter",
        model_name="m",
        policy="max 3 per topic",
        source="refund topics",
    )
    assert isinstance(batch, GeneratedCaseBatch)
    assert batch.id.startswith("gen_") and len(batch.id) == 16
    assert batch.case_ids == ("g0", "g1", "g2")
    assert (batch.policy, batch.source, batch.generation.generator_asset_version) == (
        "max 3 per topic", "refund topics", "gen@1"
    )  # fmt: skip
    assert (batch.generation.model_provider, batch.generation.model_name) == ("openrouter", "m")
    for case in batch.cases:
        assert case.metadata["batch"] == batch.id
        assert (case.metadata["model_provider"], case.metadata["model_name"]) == ("openrouter", "m")
    again = generated_batch_from_cases(
        cases,
        generator_asset_version="gen@1",
        model_provider="openrouter",
        model_name="m",
        policy="max 3 per topic",
        source="refund topics",
    )
    assert again.id == batch.id
    assert generated_batch_from_cases(cases, generator_asset_version="gen@2").id != batch.id
    assert generated_batch_from_cases(cases, generator_asset_version="g", batch_id="b1").id == "b1"
    with pytest.raises(ValueError, match="cases share ids: g0"):
        generated_batch_from_cases([cases[0], cases[0]], generator_asset_version="g")


def test_provenance_survives_a_recorded_run(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, "def run_case(ctx, case):\n    return case.input\n")
    production = samples_to_cases([_sample(1, timestamp=WHEN, reason="high_latency")])
    generated = generated_batch_from_cases(
        [Case(id="gen_1", input={"q": 1})], generator_asset_version="gen@1"
    )
    cases = [c.model_dump(mode="json", by_alias=True) for c in [*production, *generated.cases]]
    spec = make_spec(tmp_path, f"{module}:run_case", cases=cases)
    asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(tmp_path / "rec")))
    runs = replay_experiment(tmp_path / "rec").runs
    assert runs[0].case.metadata == production[0].metadata
    assert runs[0].case.metadata["timestamp"] == WHEN.isoformat()
    assert runs[1].case.metadata == generated.cases[0].metadata
    assert runs[1].case.metadata["batch"] == generated.id
