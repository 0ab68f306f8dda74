"""attach_trace and extraction replay on real recorded benchmarks (no mocks)."""

from __future__ import annotations

import hashlib
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from runtime_support import make_spec, run, write_task_module

from autobench import (
    CompositeExtractor,
    SignalExtractor,
    SpanExtractor,
    UsageExtractor,
    attach_trace,
    replay_extraction,
    trace_to_observations,
)
from autobench.abp import SpanRecord, Trace
from autobench.core.plugins import trace_extractor_registry
from autobench.records import (
    ExtractionResult,
    ObservationQuery,
    RecordDirectoryWriter,
    RecordingError,
    RunRecord,
    load_document,
    load_extraction_record,
    load_run_record,
    replay_experiment,
    replay_experiment_extraction,
    run_observations,
    upgrade_trace_document,
)
from autobench.records._paths import run_record_path

LEGACY = Path(__file__).resolve().parents[1] / "fixtures" / "legacy"

TASK = """
from autobench import attach_trace

ENVELOPE = {
    "trace_id": "trace-42",
    "name": "checkout-agent",
    "input": {"cart_id": "c1"},
    "output": {"status": "complete"},
    "attributes": {"framework": "custom-agent-runtime"},
    "spans": [
        {"id": "s_agent", "name": "agent_run", "kind": "agent",
         "started_at": "2026-05-07T12:00:00Z", "duration_seconds": 0.9},
        {"id": "s_llm", "parent_id": "s_agent", "name": "llm_call", "kind": "llm",
         "started_at": "2026-05-07T12:00:00.1Z", "duration_seconds": 0.42,
         "usage": {"prompt_tokens": 200, "completion_tokens": 40, "total_tokens": 240},
         "attributes": {"model_name": "gpt-demo", "provider": "openai"}},
        {"id": "s_tool", "parent_id": "s_agent", "name": "lookup", "kind": "tool",
         "started_at": "2026-05-07T12:00:00.6Z", "duration_seconds": 0.1,
         "status": "error", "error": {"type": "TimeoutError", "message": "slow"}},
    ],
}


def run_case(ctx, case):
    with ctx.span("plan", kind="agent"):
        with ctx.span("ask", kind="llm", attributes={"model": "small", "provider": "local"}) as s:
            s.set_usage(input_tokens=case.input["n"], output_tokens=2)
        for attempt in (1, 2):
            with ctx.span("tool", kind="tool", attributes={"attempt": attempt}):
                pass
    if case.input.get("attach"):
        attach_trace(ctx, ENVELOPE, raw={"native": "payload"})
    if case.input.get("big"):
        for index in range(900):
            with ctx.span(f"step_{index}", kind="custom", attributes={"pad": "x" * 40}):
                pass
    return {"ok": True}
"""


def record(tmp_path: Path, cases: list[dict[str, Any]]) -> Path:
    module = write_task_module(tmp_path, TASK)
    spec = make_spec(tmp_path, f"{module}:run_case", cases=cases)
    root = tmp_path / "records"
    run(spec, sink=RecordDirectoryWriter(root))
    return root


def digests(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    return record(
        tmp_path,
        [
            {"id": "plain", "input": {"n": 5}},
            {"id": "attached", "input": {"n": 7, "attach": True}},
            {"id": "big", "input": {"n": 1, "big": True}},
        ],
    )


def test_attach_trace_merges_one_trace_with_a_separate_root(recorded: Path) -> None:
    result = replay_experiment(recorded)
    attached = next(run for run in result.runs if run.case_id == "attached")
    trace = attached.trace
    assert isinstance(trace, Trace)
    roots = {span.operation: span for span in trace.root_spans}
    assert set(roots) == {"benchmark.run", "checkout-agent"}
    root = roots["checkout-agent"]
    assert root.tags == {"imported_trace": "trace-42"}
    assert root.input == {"cart_id": "c1"} and root.output == {"status": "complete"}
    assert root.attributes["framework"] == "custom-agent-runtime"
    assert root.status.value == "error"  # one external span failed
    assert trace.span("s_agent").parent == root.id
    assert trace.span("s_llm").parent == "s_agent"
    assert trace.span("s_llm").scope == "autobench.imported"
    assert trace.scopes["autobench.imported"].mechanism == "import"
    assert trace.span("s_llm").duration == 0.42
    # the raw native payload is an artifact named by the root span
    artifact = next(ref for ref in attached.artifacts if ref.name == "trace-42.raw")
    assert root.attributes["raw_artifact"] == artifact.id
    assert (recorded / str(artifact.path)).is_file()


def test_attach_trace_records_imported_observations_linked_to_spans(recorded: Path) -> None:
    attached = next(r for r in replay_experiment(recorded).runs if r.case_id == "attached")
    imported = {o.semantic_type or o.name: o for o in attached.observations}
    assert all(o.source.value == "imported" for o in attached.observations)
    assert imported["llm.tokens.input"].value == 200
    assert imported["llm.tokens.input"].span_id == "s_llm"
    assert imported["llm.tokens.output"].value == 40
    assert imported["llm.tokens.total"].value == 240
    assert imported["llm.model.name"].value == "gpt-demo"
    assert imported["llm.model.name"].kind.value == "factor"
    assert imported["llm.provider"].value == "openai"
    assert imported["lookup.error"].value == "TimeoutError"
    assert imported["lookup.error"].reason == "slow"
    assert imported["result.success"].value is False
    root = next(s for s in attached.spans if s.tags.get("imported_trace"))
    assert imported["result.success"].span_id == root.id
    assert attached.status.value == "passed"  # imported evidence never fails the run


def test_trace_to_observations_mapping_on_a_trace_model() -> None:
    trace = Trace(
        id="t",
        spans=(
            SpanRecord(
                id="x",
                operation="llm_call",
                kind="llm",
                started_at=datetime.now(UTC),
                duration=0.5,
                usage={"input_tokens": 3, "output_tokens": 4},
                attributes={"model": "m", "provider": "p", "server.address": "llm.test"},
            ),
        ),
    )
    observations = trace_to_observations(trace, case_id="c", variant_id="v")
    assert [(o.semantic_type, o.value) for o in observations] == [
        ("llm.tokens.input", 3),
        ("llm.tokens.output", 4),
        ("llm.model.name", "m"),
        ("llm.provider", "p"),
        ("server.address", "llm.test"),
        ("time.latency", 0.5),
        ("result.success", True),
    ]
    assert {o.span_id for o in observations} == {"x"}
    assert {(o.case_id, o.variant_id, o.source.value) for o in observations} == {
        ("c", "v", "imported")
    }


def test_clashing_span_ids_are_prefixed(tmp_path: Path) -> None:
    module = write_task_module(
        tmp_path,
        """
        from autobench import attach_trace
        from autobench.abp import active_span

        def run_case(ctx, case):
            own = active_span().id
            envelope = {"trace_id": "ext", "spans": [
                {"id": own, "name": "clash", "started_at": "2026-05-07T12:00:00Z",
                 "duration_seconds": 0.1}]}
            attached = attach_trace(ctx, envelope)
            return {"own": own, "ids": [s.id for s in attached.trace.spans]}
        """,
    )
    result = run(make_spec(tmp_path, f"{module}:run_case"))
    output = result.runs[0].output
    assert f"ext:{output['own']}" in output["ids"]
    assert len({span.id for span in result.runs[0].spans}) == len(result.runs[0].spans)


def test_replay_extraction_writes_a_derived_record_and_never_touches_originals(
    recorded: Path,
) -> None:
    before = digests(recorded)
    extractor = CompositeExtractor(SignalExtractor(), SpanExtractor(), UsageExtractor())
    experiment = replay_experiment(recorded)
    run_path = recorded / experiment.experiment.plan[0].path
    derived = replay_extraction(run_path, extractor)
    after = digests(recorded)
    assert {name: after[name] for name in before} == before
    assert all(name.startswith("derived/") for name in set(after) - set(before))
    assert derived.path is not None and derived.path.startswith("derived/composite/")
    assert derived.path.endswith("/cases/plain/v1/extraction.yaml")
    lineage = derived.lineage
    assert lineage.run == experiment.runs[0].run_id
    assert lineage.run_record == "cases/plain/v1/run.yaml"
    assert lineage.run_sha256 == before["cases/plain/v1/run.yaml"]
    assert (lineage.protocol, lineage.protocol_version, lineage.semantic_registry) == ("abp", 1, 1)
    assert [(c.name, c.version) for c in lineage.components] == [
        ("signal", "1"),
        ("span", "1"),
        ("usage", "3"),
    ]
    assert lineage.parent is None
    stored = load_extraction_record(recorded / derived.path)
    assert stored.observations == derived.extracted_observations
    assert derived.extraction.path == derived.path and derived.extraction.lineage.run == lineage.run
    by_semantic = {o.semantic_type: o.value for o in derived.extracted_observations}
    assert by_semantic["llm.tokens.input"] == 5
    assert by_semantic["operation.retries"] == 1
    assert by_semantic["operation.count"] == 5
    # the derived run record: the parent run's evidence, then the extracted observations
    parent = load_run_record(run_path)
    assert isinstance(derived, RunRecord) and derived != parent
    assert derived.run == parent.run and derived.trace == parent.trace
    assert derived.observations == parent.observations + tuple(
        o.model_copy(update={"case_id": "plain", "variant_id": "v1"})
        for o in derived.extracted_observations
    )
    assert derived.model_dump(exclude={"extraction"}) == stored.apply(parent).model_dump()
    with pytest.raises(RecordingError, match="never overwritten"):
        replay_extraction(run_path, extractor)


def test_extraction_reads_traces_stored_as_artifacts(recorded: Path) -> None:
    big = recorded / run_record_path("big", "v1")
    assert "artifact:" in big.read_text()
    derived = replay_extraction(big, SpanExtractor())
    counts = {o.semantic_type: o.value for o in derived.observations}
    assert counts["operation.count"] == 905


class SpanExtractorV2(SpanExtractor):
    version = "2"

    def extract(self, trace: Trace, run: RunRecord) -> ExtractionResult:
        result = super().extract(trace, run)
        return ExtractionResult(
            observations=tuple(o for o in result.observations if o.id == "span.operation.count")
        )


def test_a_newer_extractor_version_replaces_the_older_ones_observations(recorded: Path) -> None:
    run_path = recorded / run_record_path("plain", "v1")
    first = replay_extraction(run_path, CompositeExtractor(SpanExtractor(), UsageExtractor()))
    second = replay_extraction(run_path, CompositeExtractor(SpanExtractorV2(), UsageExtractor()))
    assert second.lineage.parent == first.path
    extracted = second.extracted_observations
    owners = {(o.tags["extractor"], o.tags["extractor_version"]) for o in extracted}
    assert owners == {("span", "2"), ("usage", "3")}
    span_ids = [o.id for o in extracted if o.tags["extractor"] == "span"]
    assert span_ids == ["span.operation.count"]
    # the older derived record is kept as the lineage parent, unchanged
    stored_first = load_extraction_record(recorded / str(first.path))
    assert stored_first.observations == first.extracted_observations


def test_replay_extraction_of_a_loaded_run_record_finds_its_directory(
    recorded: Path, tmp_path: Path
) -> None:
    """As the documentation calls it: a record loaded with ``root_dir``, no second root."""
    run_path = recorded / run_record_path("plain", "v1")
    before = digests(recorded)
    loaded = load_run_record(run_path, root_dir=recorded)
    kept = loaded.model_copy(deep=True)
    derived = replay_extraction(loaded, UsageExtractor())
    assert derived.path == "derived/usage/3/cases/plain/v1/extraction.yaml"
    assert derived.lineage.run_record == "cases/plain/v1/run.yaml"
    assert derived.lineage.run_sha256 == before["cases/plain/v1/run.yaml"]
    assert (derived.lineage.extractor.name, derived.lineage.extractor.version) == ("usage", "3")
    assert loaded == kept  # the original record is untouched, its file too
    assert {name: digest for name, digest in digests(recorded).items() if name in before} == before
    # the experiment directory is found from the run file too (three levels up)
    again = replay_extraction(load_run_record(run_path), SpanExtractor())
    assert again.path is not None and again.path.startswith("derived/span/")
    # a copy of the record somewhere else on disk names its own directory
    copy = tmp_path / "copy"
    shutil.copytree(recorded, copy)
    elsewhere = replay_extraction(
        load_run_record(copy / run_record_path("plain", "v1")), SignalExtractor()
    )
    assert (copy / str(elsewhere.path)).is_file() and not (recorded / str(elsewhere.path)).exists()


def test_replay_extraction_of_a_record_built_in_memory_needs_its_root(recorded: Path) -> None:
    run_path = recorded / run_record_path("plain", "v1")
    built = load_run_record(run_path).model_copy()  # a new object: no directory known
    with pytest.raises(TypeError, match=r"needs root=.*not read by load_run_record"):
        replay_extraction(built, UsageExtractor())
    with pytest.raises(TypeError, match="differ"):
        replay_extraction(built, UsageExtractor(), root=recorded, root_dir=recorded / "x")
    derived = replay_extraction(built, UsageExtractor(), root_dir=recorded)
    assert derived.path == "derived/usage/3/cases/plain/v1/extraction.yaml"


def test_whole_experiment_extraction_and_plugin_registry(recorded: Path) -> None:
    registry = trace_extractor_registry()
    assert {"signal", "span", "usage"} <= set(registry.by_name)
    records = replay_experiment_extraction(recorded, registry.get("span", "usage"))
    assert [r.lineage.run for r in records] == [r.run_id for r in replay_experiment(recorded).runs]
    with pytest.raises(KeyError, match="known"):
        registry.get("nope")


def test_legacy_envelope_fixture_attaches(tmp_path: Path) -> None:
    document = load_document((LEGACY / "trace_envelope.yaml").read_text())
    trace = Trace.model_validate(upgrade_trace_document(document))
    assert trace.id == "trace_123"
    assert [s.operation for s in trace.spans] == ["agent_run", "llm_call", "lookup"]
    assert trace.span("span_llm_1").parent == "span_agent"
    assert trace.span("span_llm_1").duration == 0.42
    module = write_task_module(
        tmp_path,
        f"""
        from pathlib import Path
        from autobench import attach_trace
        from autobench.records import load_document

        def run_case(ctx, case):
            attach_trace(ctx, load_document(Path({str(LEGACY / "trace_envelope.yaml")!r}).read_text()))
        """,
    )
    result = run(make_spec(tmp_path, f"{module}:run_case"))
    tokens = [o for o in result.runs[0].observations if o.semantic_type == "llm.tokens.input"]
    assert [(o.value, o.span_id) for o in tokens] == [(200, "span_llm_1")]
    assert attach_trace.__module__ == "autobench.core.runtime._attach"


def test_attached_spans_pass_the_capture_policy(tmp_path: Path) -> None:
    module = write_task_module(
        tmp_path,
        """
        from autobench import attach_trace

        def run_case(ctx, case):
            attach_trace(ctx, {"trace_id": "ext", "attributes": {"api_key": "k-1"}, "spans": [
                {"id": "a", "name": "call", "started_at": "2026-05-07T12:00:00Z",
                 "duration_seconds": 0.1, "input": {"password": "hunter2"},
                 "attributes": {"authorization": "Bearer abc"}}]})
        """,
    )
    spans = {span.id: span for span in run(make_spec(tmp_path, f"{module}:run_case")).runs[0].spans}
    assert spans["a"].input == {"password": "[redacted]"}
    assert spans["a"].attributes == {"authorization": "[redacted]"}
    root = next(span for span in spans.values() if span.tags.get("imported_trace") == "ext")
    assert root.attributes == {"api_key": "[redacted]"}


def test_reports_read_the_evidence_extracted_after_the_run(recorded: Path) -> None:
    def tokens(result_runs: tuple[RunRecord, ...], case: str) -> list[Any]:
        run = next(r for r in result_runs if r.case_id == case)
        return ObservationQuery(observations=run_observations(run)).values("llm.tokens.input")

    # "plain" put its usage on a span only: no token observation until the trace is extracted
    assert tokens(replay_experiment(recorded).runs, "plain") == []
    replay_experiment_extraction(recorded, CompositeExtractor(SpanExtractor(), UsageExtractor()))
    plain = recorded / run_record_path("plain", "v1")
    replay_extraction(plain, UsageExtractor())  # the same extractor again, on its own
    for evidence_only in (False, True):
        runs = replay_experiment(recorded, evidence_only=evidence_only).runs
        assert tokens(runs, "plain") == [5]
        # the run's own evidence (the 200 imported from the envelope) comes first; the trace
        # also holds the 7 of a span the task gave usage but no observation, and the
        # report is told that the extracted total differs
        assert tokens(runs, "attached") == [200]
        attached = next(r for r in runs if r.case_id == "attached")
        projected = ObservationQuery(observations=run_observations(attached)).projected()
        assert projected["llm.tokens.input"].note == (
            "llm.tokens.input: the direct total 200 is used; the extracted evidence totals 207"
        )
        merged = next(r for r in runs if r.case_id == "plain").observations
        usage = [o for o in merged if o.id == "usage.llm.tokens.input"]
        assert len(usage) == 1  # one observation, though two derived records hold it
        assert any(o.semantic_type == "operation.count" for o in merged)
    assert tokens(replay_experiment(recorded, extractions=False).runs, "plain") == []
    # the run records themselves are untouched
    assert (
        load_run_record(plain).observations
        == replay_experiment(recorded, extractions=False).runs[0].observations
    )


def test_extracted_measurements_are_totalled_with_their_trace(tmp_path: Path) -> None:
    module = write_task_module(
        tmp_path,
        """
        from autobench.abp import active_span

        def run_case(ctx, case):
            with ctx.span("agent", kind="agent"):
                active_span().record_measurement("input_tokens", 130, semantic_type="llm.tokens.input")
                for tokens in (50, 80):
                    with ctx.span("call", kind="llm"):
                        active_span().record_measurement(
                            "input_tokens", tokens, semantic_type="llm.tokens.input"
                        )
            return {}
        """,
    )
    root = tmp_path / "records"
    run(make_spec(tmp_path, f"{module}:run_case"), sink=RecordDirectoryWriter(root))

    def tokens() -> list[Any]:
        [replayed] = replay_experiment(root, evidence_only=True).runs
        return ObservationQuery(observations=run_observations(replayed)).values("llm.tokens.input")

    assert tokens() == []  # measurements live in the trace only
    derived = replay_experiment_extraction(root, SignalExtractor())[0]
    stored = [o for o in derived.observations if o.id == "accounting.extracted.llm.tokens.input"]
    assert [(o.value, o.tags["extractor"]) for o in stored] == [(130, "accounting")]
    assert tokens() == [130]  # the agent's roll-up is not added to its calls
