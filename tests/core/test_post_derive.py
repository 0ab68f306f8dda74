"""Paired-baseline post-derivation: formulas, matching, gaps, verdicts, storage and replay."""

from __future__ import annotations

import asyncio
import math
import re
from pathlib import Path
from typing import Any

import pytest
from runtime_support import CollectingSink, write_task_module

from autobench import ComparisonVerdict, PairedBaselineDeriverSpec, RunMatchKey
from autobench.core.plugins import post_deriver_registry
from autobench.core.postderive import verdict
from autobench.core.runtime import run_benchmark_spec
from autobench.core.spec import SpecError, load_benchmark_spec
from autobench.records import (
    ExperimentResult,
    Observation,
    ObservationKind,
    ObservationSource,
    RecordDirectoryWriter,
    RunRecord,
    load_post_derived,
    load_run_record,
    replay_experiment,
)

TASKS = """
def run_case(ctx, case):
    side = "baseline_ms" if ctx.variant.id == "baseline" else "candidate_ms"
    latency_ms = case.input.get(side)
    if "size" in case.input:
        ctx.factor_observation("workload.size", case.input["size"])
    if latency_ms is not None:
        ctx.metric("median_latency", latency_ms, semantic_type="time.latency", unit="ms")
    return {"latency_ms": latency_ms}
"""

SPEC = """
benchmark:
  latency-comparison:
    cases:
      - id: easy
        input: {{baseline_ms: 100, candidate_ms: 50}}
      - id: hard
        input: {{baseline_ms: 240, candidate_ms: 180}}
{extra_cases}
    run:
      python: {module}:run_case
    variants:
      baseline: {{}}
      candidate: {{}}
    post_derive:
      - kind: paired_baseline
        baseline_variant: baseline
        match_on:
          - kind: case_id
        metric: time.latency
        output:
          name: speedup
          semantic_type: performance.speedup
        formula: {formula}
{options}
    report:
      matrix:
        metric: performance.speedup
"""


def _spec(tmp_path: Path, formula: str = "baseline_over_candidate", options: str = "",
          extra_cases: str = "") -> Path:  # fmt: skip
    module = write_task_module(tmp_path, TASKS)
    path = tmp_path / "autobench.yaml"
    path.write_text(
        SPEC.format(module=module, formula=formula, options=options, extra_cases=extra_cases)
    )
    return path


def _run(path: Path, root: Path | None = None) -> ExperimentResult:
    sink = None if root is None else RecordDirectoryWriter(root)
    return asyncio.run(run_benchmark_spec(load_benchmark_spec(path), sink=sink))


def _derived(run: RunRecord, name: str) -> Observation | None:
    return next((o for o in run.observations if o.name == name), None)


def _values(result: ExperimentResult, name: str) -> dict[str, Any]:
    return {
        f"{run.case_id}/{run.variant_id}": obs.value
        for run in result.runs
        if (obs := _derived(run, name)) is not None
    }


def test_speedup_from_the_spec_example(tmp_path: Path) -> None:
    result = _run(_spec(tmp_path))
    assert _values(result, "speedup") == {"easy/candidate": 2.0, "hard/candidate": 240 / 180}
    speedup = _derived(result.runs[1], "speedup")
    assert speedup is not None
    assert speedup.semantic_type == "performance.speedup"
    assert speedup.unit == "ratio"
    assert speedup.source == ObservationSource.DERIVED
    assert speedup.tags == {
        "baseline_run": result.runs[0].run_id,
        "formula": "baseline_over_candidate",
    }
    assert speedup.case_id == "easy" and speedup.variant_id == "candidate"


@pytest.mark.parametrize(
    ("formula", "easy", "unit"),
    [
        ("baseline_over_candidate", 2.0, "ratio"),
        ("candidate_over_baseline", 0.5, "ratio"),
        ("candidate_minus_baseline", -0.05, "s"),
        ("baseline_minus_candidate", 0.05, "s"),
        ("percent_change_from_baseline", -50.0, "percent"),
    ],
)
def test_the_five_formulas(tmp_path: Path, formula: str, easy: float, unit: str) -> None:
    result = _run(_spec(tmp_path, formula))
    speedup = _derived(result.runs[1], "speedup")
    assert speedup is not None and math.isclose(speedup.value, easy) and speedup.unit == unit


def test_a_difference_is_converted_to_the_output_unit(tmp_path: Path) -> None:
    path = _spec(tmp_path, "baseline_minus_candidate")
    path.write_text(path.read_text().replace("semantic_type: performance.speedup",
                                             "semantic_type: time.saving\n          unit: ms"))  # fmt: skip
    result = _run(path)
    assert _values(result, "speedup") == {"easy/candidate": 50.0, "hard/candidate": 60.0}
    assert _derived(result.runs[1], "speedup").unit == "ms"  # type: ignore[union-attr]


def test_include_baseline_pairs_the_baseline_with_itself(tmp_path: Path) -> None:
    result = _run(_spec(tmp_path, options="        include_baseline: true"))
    assert _values(result, "speedup") == {
        "easy/baseline": 1.0,
        "easy/candidate": 2.0,
        "hard/baseline": 1.0,
        "hard/candidate": 240 / 180,
    }


MISSING_CASE = """      - id: lonely
        input: {candidate_ms: 70}
"""


def test_missing_baseline_metric_gives_a_diagnostic(tmp_path: Path) -> None:
    result = _run(_spec(tmp_path, extra_cases=MISSING_CASE))
    lonely = result.runs_for(case_id="lonely", variant_id="candidate")[0]
    diagnostic = _derived(lonely, "paired_baseline_unavailable")
    assert diagnostic is not None
    assert diagnostic.kind == ObservationKind.DIAGNOSTIC
    assert diagnostic.value == "missing_metric"
    assert "baseline run" in (diagnostic.reason or "")
    assert _derived(lonely, "speedup") is None


def test_missing_skip_is_silent(tmp_path: Path) -> None:
    result = _run(_spec(tmp_path, options="        missing: skip", extra_cases=MISSING_CASE))
    lonely = result.runs_for(case_id="lonely", variant_id="candidate")[0]
    assert [o.name for o in lonely.observations] == ["median_latency"]


FACTOR_TASK_SPEC = """
benchmark:
  sizes:
    cases:
      - {{id: a, input: {{size: small, baseline_ms: 10, candidate_ms: 5}}}}
      - {{id: b, input: {{size: large, candidate_ms: 8}}}}
      - {{id: c, input: {{candidate_ms: 8}}}}
    run: {{python: "{module}:run_case"}}
    variants:
      baseline: {{}}
      candidate: {{}}
    post_derive:
      - kind: paired_baseline
        baseline_variant: baseline
        match_on: [{{kind: factor, name: workload.size}}]
        metric: time.latency
        output: {{name: speedup, semantic_type: performance.speedup}}
        diagnostics_name: no_pair
"""


def test_match_on_a_factor_and_unmatched_candidates(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, TASKS)
    path = tmp_path / "autobench.yaml"
    path.write_text(FACTOR_TASK_SPEC.format(module=module))
    result = _run(path)
    assert _values(result, "speedup") == {"a/candidate": 2.0}
    unmatched = _values(result, "no_pair")
    # b's baseline run is found through its factor observation but has no latency
    assert unmatched == {"b/candidate": "missing_metric", "c/candidate": "no_baseline_match"}
    c_run = result.runs_for(case_id="c", variant_id="candidate")[0]
    assert "factor 'workload.size' = (absent)" in (_derived(c_run, "no_pair").reason or "")  # type: ignore[union-attr]


ZERO_CASE = """      - id: instant
        input: {baseline_ms: 100, candidate_ms: 0}
"""


@pytest.mark.parametrize("handling", ["diagnostic", "skip"])
def test_zero_division(tmp_path: Path, handling: str) -> None:
    options = f"        zero_division: {handling}"
    result = _run(_spec(tmp_path, options=options, extra_cases=ZERO_CASE))
    run = result.runs_for(case_id="instant", variant_id="candidate")[0]
    diagnostic = _derived(run, "paired_baseline_unavailable")
    if handling == "skip":
        assert diagnostic is None
    else:
        assert diagnostic is not None and diagnostic.value == "zero_division"
    assert _derived(run, "speedup") is None


VERDICT = """        verdict:
          output: {name: latency_verdict, semantic_type: comparison.verdict}
          threshold: {kind: relative_noise, pct: 30.0}
"""


def test_verdicts_respect_the_direction_and_the_noise_band(tmp_path: Path) -> None:
    extra = """      - id: slower
        input: {baseline_ms: 100, candidate_ms: 200}
"""
    result = _run(_spec(tmp_path, options=VERDICT, extra_cases=extra))
    # easy -50 % (improved: lower latency is better), hard -25 % (within 30 %: unchanged),
    # slower +100 % (regressed)
    assert _values(result, "latency_verdict") == {
        "easy/candidate": "improved",
        "hard/candidate": "unchanged",
        "slower/candidate": "regressed",
    }


def test_verdict_rule() -> None:
    from_verdict = ComparisonVerdict
    spec = PairedBaselineDeriverSpec(
        baseline_variant="b",
        metric="quality.score",
        output={"name": "delta", "semantic_type": "quality.delta"},
        formula="candidate_minus_baseline",
        threshold={"kind": "relative_noise", "pct": 2.0},
    )
    assert spec.verdict_spec is not None and spec.verdict_spec.output.name == "delta_verdict"
    assert spec.match_on == (RunMatchKey(kind="case_id"),)
    assert verdict(0.8, 0.9, None, 2.0) is from_verdict.INCONCLUSIVE
    assert verdict(0.8, 0.9, "maximize", 2.0) is from_verdict.IMPROVED  # type: ignore[arg-type]
    assert verdict(0.8, 0.7, "maximize", 2.0) is from_verdict.REGRESSED  # type: ignore[arg-type]
    assert verdict(0.8, 0.81, "maximize", 2.0) is from_verdict.UNCHANGED  # type: ignore[arg-type]
    assert verdict(0.0, 0.1, "maximize", 2.0) is from_verdict.INCONCLUSIVE  # type: ignore[arg-type]


def test_storage_post_derived_file_and_replay(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    live = _run(_spec(tmp_path), root)
    record = load_post_derived(root)
    assert record is not None and record.experiment == live.experiment_id
    assert list(record.runs) == [live.runs[1].run_id, live.runs[3].run_id]
    text = (root / "post_derived.yaml").read_text()
    assert "record:\n  type: post_derived\n  version: 1" in text
    assert "case:" not in text  # the run id names the case and variant
    # run.yaml files are untouched: the speedup lives only in post_derived.yaml
    stored = load_run_record(root / live.experiment.plan[1].path)
    assert _derived(stored, "speedup") is None
    replayed = replay_experiment(root)
    assert _values(replayed, "speedup") == _values(live, "speedup")
    assert replay_experiment(root, evidence_only=True).runs[1].observations[-1].name == "speedup"
    assert _derived(replayed.runs[1], "speedup") == _derived(live.runs[1], "speedup")


def test_post_derivers_come_from_the_plugin_hook() -> None:
    assert post_deriver_registry().by_kind["paired_baseline"] is PairedBaselineDeriverSpec


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("        baseline_variant: nope", r"unknown baseline variant 'nope'"),
        ("formula: ratio", r"invalid 'formula'"),
        ("        missing: ignore", r"'missing'"),
        ("        match_on: [{kind: factor}]", r"needs a 'name'"),
        ("        threshold: {kind: absolute, pct: 2}", r"threshold"),
    ],
)
def test_post_derive_errors_are_located(tmp_path: Path, options: str, message: str) -> None:
    if options.startswith("formula: "):
        path = _spec(tmp_path, formula=options.removeprefix("formula: "))
    else:
        path = _spec(tmp_path, options=options)
    text = path.read_text()
    if "baseline_variant: nope" in options:
        text = text.replace("        baseline_variant: baseline\n", "")
    if "match_on" in options:
        text = text.replace("        match_on:\n          - kind: case_id\n", "")
    path.write_text(text)
    with pytest.raises(SpecError, match=message) as caught:
        load_benchmark_spec(path)
    assert re.search(r"autobench\.yaml:2\d:\d+: ", str(caught.value))


def test_unknown_kind_and_policies_on_post_derived_metrics_are_refused(tmp_path: Path) -> None:
    path = _spec(tmp_path)
    path.write_text(path.read_text().replace("kind: paired_baseline", "kind: paired"))
    with pytest.raises(
        SpecError, match=r"autobench.yaml:16:15: post_derive entry 0 has unknown kind 'paired'"
    ):
        load_benchmark_spec(path)
    path = _spec(tmp_path)
    path.write_text(
        path.read_text().replace(
            "    report:",
            "    policies:\n      - {name: fast, metric: performance.speedup, must_greater: 1}\n"
            "    report:",
        )
    )
    with pytest.raises(SpecError, match=r"policy 'fast' reads 'performance.speedup'"):
        load_benchmark_spec(path)


def test_the_sink_gets_post_derived_evidence_before_the_summary(tmp_path: Path) -> None:
    sink = CollectingSink()
    result = asyncio.run(run_benchmark_spec(load_benchmark_spec(_spec(tmp_path)), sink=sink))
    assert sink.calls[-2:] == ["post_derived", "finish"]
    assert list(sink.post_derived_observations) == [result.runs[1].run_id, result.runs[3].run_id]
    # the records the sink stored stay as they were; the returned result carries the speedup
    assert all(_derived(run, "speedup") is None for run in sink.runs)
    assert _values(result, "speedup")["easy/candidate"] == 2.0


def test_a_result_typed_as_the_metric_it_reads_is_refused(tmp_path: Path) -> None:
    spec = tmp_path / "autobench.yaml"
    spec.write_text(
        "benchmark:\n  b:\n    cases: [{id: c}]\n    run: {python: t:run}\n"
        "    variants: {base: {}, cand: {}}\n"
        "    post_derive:\n"
        "      - kind: paired_baseline\n        baseline_variant: base\n"
        "        match_on: [{kind: case_id}]\n        metric: time.latency\n"
        "        formula: candidate_minus_baseline\n"
        "        output: {name: delta, semantic_type: time.latency, unit: ms}\n"
    )
    with pytest.raises(SpecError, match="the metric it reads"):
        load_benchmark_spec(spec)
