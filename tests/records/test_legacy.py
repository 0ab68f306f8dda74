"""Older record shapes (span tree, legacy trace envelope) load, replay and re-extract."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from autobench.abp import Trace
from autobench.records import (
    CompositeExtractor,
    SpanExtractor,
    UsageExtractor,
    load_run_record,
    replay_experiment,
    replay_extraction,
    run_record_from_yaml,
    run_record_to_yaml,
    trace_from_yaml,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "legacy"


@pytest.fixture
def legacy(tmp_path: Path) -> Path:
    root = tmp_path / "legacy"
    shutil.copytree(FIXTURES / "experiment", root)
    return root


def test_legacy_run_record_converts_into_the_one_trace_model(legacy: Path) -> None:
    run = load_run_record(legacy / "cases/ticket_1/route_v1/run.yaml")
    trace = run.trace
    assert isinstance(trace, Trace)
    assert trace.id == "70d8f4b6742d412a85cb7a198db07fe1"
    operations = [span.operation for span in trace.spans]
    assert operations == ["benchmark.run", "call_router", "lookup_user", "classify"]
    root, router, lookup, classify = trace.spans
    assert root.id == "3f2f6c57b9f56a11" and root.duration == 0.02
    assert root.scope == "autobench.manual"
    assert trace.scopes["autobench.manual"].version == "0.2.0"
    assert router.parent == root.id  # tree entries without a parent hang under the root
    assert lookup.parent == router.id and classify.parent == router.id
    assert lookup.input == {"user_id": "u1"} and lookup.output == {"tier": "gold"}
    assert (router.offset, lookup.offset, classify.offset) == pytest.approx((0.001, 0.002, 0.007))
    assert trace.root_spans == (root,)


def test_legacy_run_record_sections(legacy: Path) -> None:
    run = load_run_record(legacy / "cases/ticket_1/route_v1/run.yaml")
    assert run.run.index == 0
    assert run.score("routing_correctness").value is True
    assert [a.id for a in run.artifacts] == ["generated_spec"]
    by_name = {o.name: o for o in run.observations}
    assert by_name["latency_ms"].kind.value == "diagnostic"
    assert by_name["prompt.router"].value == "7c91d4d7b1af"
    assert {o.case_id for o in run.observations} == {"ticket_1"}


def test_a_legacy_record_round_trips_into_the_current_shape(legacy: Path) -> None:
    run = load_run_record(legacy / "cases/ticket_1/route_v1/run.yaml")
    text = run_record_to_yaml(run)
    assert "\nspans:" not in text and "trace_id" not in text
    assert run_record_from_yaml(text) == run


def test_legacy_trace_envelope_artifact_loads(legacy: Path) -> None:
    path = legacy / "artifacts/run_ticket_2_route_v1/trace.yaml"
    trace = trace_from_yaml(path.read_text())
    assert [(s.id, s.parent, s.scope) for s in trace.spans] == [
        ("a1a1a1a1a1a1a1a1", None, "autobench.manual"),
        ("b2b2b2b2b2b2b2b2", "a1a1a1a1a1a1a1a1", "autobench.openai"),
    ]
    assert trace.scopes["autobench.openai"].layer == "client"
    assert trace.spans[1].offset == pytest.approx(0.1)


def test_legacy_experiment_replays_and_extracts_without_changing_bytes(legacy: Path) -> None:
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in legacy.rglob("*.yaml")}
    result = replay_experiment(legacy)
    assert [run.run_id for run in result.runs] == ["run_ticket_1_route_v1", "run_ticket_2_route_v1"]
    assert [len(run.spans) for run in result.runs] == [4, 2]
    extractor = CompositeExtractor(SpanExtractor(), UsageExtractor())
    first = replay_extraction(legacy / "cases/ticket_1/route_v1/run.yaml", extractor)
    second = replay_extraction(legacy / "cases/ticket_2/route_v1/run.yaml", extractor)
    one = {o.semantic_type: o.value for o in first.observations}
    assert one["llm.tokens.input"] == 120
    assert one["workflow.tool_call.success"] == 1
    assert one["operation.depth.max"] == 3
    two = {o.semantic_type: o.value for o in second.observations}
    assert two["llm.tokens.input"] == 50
    assert two["llm.model.requested"] == "gpt-demo"
    assert two["llm.model.response"] == "gpt-demo-2026"
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in before} == before
