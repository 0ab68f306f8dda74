"""Every example runs end to end: validate, run with recording, replay from the records alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.cli import cli
from autobench.records import (
    Observation,
    ObservationRole,
    ObservationSource,
    RunRecord,
    RunStatus,
    replay_experiment,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run_example(name: str, record: Path) -> None:
    runner = CliRunner()
    spec = str(EXAMPLES / name / "autobench.yaml")
    validated = runner.invoke(cli, ["validate", spec])
    assert validated.exit_code == 0, validated.output
    ran = runner.invoke(
        cli, ["run", spec, "--record", str(record), "--no-progress", "--concurrency", "4"]
    )
    assert ran.exit_code == 0, ran.output
    replayed = runner.invoke(cli, ["replay", str(record)])
    assert replayed.exit_code == 0, replayed.output
    reported = runner.invoke(cli, ["report", str(record)])
    assert reported.exit_code == 0, reported.output
    for fmt in ("yaml", "csv", "markdown", "junit"):
        exported = runner.invoke(
            cli, ["export", str(record), "--format", fmt, "--path", f"{record}.{fmt}"]
        )
        assert exported.exit_code == 0, exported.output


def test_minimal_example(tmp_path: Path) -> None:
    _run_example("minimal", tmp_path / "minimal")
    result = replay_experiment(tmp_path / "minimal")
    assert len(result.runs) == 10
    failed = sorted(
        (run.case_id, run.variant_id) for run in result.runs if run.status is RunStatus.FAILED
    )
    assert (
        failed == []
    )  # exact scores are objectives: a wrong answer lowers the score, it does not fail the run
    naive = {run.case_id: run.score("correct").value for run in result.runs_for(variant_id="naive")}
    assert naive["multiply-negative"] == 0.0
    assert sum(naive.values()) == 4.0
    assert all(run.score("correct").value == 1.0 for run in result.runs_for(variant_id="builtin"))


def test_basic_example_v2_fixes_the_enterprise_outages(tmp_path: Path) -> None:
    _run_example("basic", tmp_path / "basic")
    result = replay_experiment(tmp_path / "basic")
    assert len(result.experiment.plan) == 64 and result.complete
    v1_failed = {
        run.case_id
        for run in result.runs_for(variant_id="rules_v1")
        if run.status is RunStatus.FAILED
    }
    assert v1_failed == {
        "enterprise-outage-production",
        "enterprise-outage-api",
        "enterprise-outage-503",
        "enterprise-outage-sync",
        "enterprise-outage-billing-page",
    }
    assert all(run.status is RunStatus.PASSED for run in result.runs_for(variant_id="rules_v2"))
    run = result.runs_for(case_id="enterprise-outage-api", variant_id="rules_v1")[0]
    assert [span.operation for span in run.spans] == [
        "benchmark.run",
        "route_ticket",
        "extract_features",
        "choose_queue",
    ]
    check = next(
        observation for observation in run.observations if observation.name == "queue_matches"
    )
    assert check.value is False and "routed to technical" in (check.reason or "")
    markdown = (tmp_path / "basic.markdown").read_text()
    assert "| rules_v1 |" in markdown and "enterprise-outage-api" in markdown
    (artifact,) = run.artifacts
    assert artifact.path is not None and (tmp_path / "basic" / artifact.path).is_file()
    assert run.case.metadata["locale"] == "en-US" and "support" in run.case.tags


def test_console_script_is_installed() -> None:
    completed = subprocess.run(
        [str(Path(sys.executable).parent / "autobench"), "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0
    assert "validate" in completed.stdout and "replay" in completed.stdout


def _observation(run: RunRecord, name: str) -> Observation:
    return next(observation for observation in run.observations if observation.name == name)


def test_advanced_example_measures_repeatedly_and_derives_speedups(tmp_path: Path) -> None:
    _run_example("advanced", tmp_path / "advanced")
    result = replay_experiment(tmp_path / "advanced")
    assert len(result.runs) == 24 and result.complete
    # correctness is a constraint: only the O(n) shortcut fails, and only where documents moved
    # further than one place
    failed = {
        (run.case_id, run.variant_id) for run in result.runs if run.status is not RunStatus.PASSED
    }
    assert failed == {
        (case, "adjacent_only")
        for case in ("small-shuffled", "medium-shuffled", "large-shuffled", "large-reversed")
    }
    baseline = {run.case_id: run for run in result.runs_for(variant_id="pairwise")}
    for run in result.runs:
        median = _observation(run, "distance_runtime.median")
        assert (median.semantic_type, median.unit, median.role) == (
            "time.latency",
            "ms",
            ObservationRole.OBJECTIVE,
        )
        repetitions = _observation(run, "distance_runtime.repetitions").value
        assert 3 <= repetitions <= 7  # min_repetitions..repetitions of the case budget
        (samples,) = (a for a in run.artifacts if a.name == "distance_runtime.samples")
        assert samples.path is not None
        payload = (tmp_path / "advanced" / samples.path).read_text()
        assert "samples:" in payload and "warmup: 1" in payload
        # the speedup is baseline median / this run's median, paired by case
        speedup = _observation(run, "speedup")
        assert speedup.semantic_type == "performance.speedup"
        assert speedup.source is ObservationSource.DERIVED
        base_median = _observation(baseline[run.case_id], "distance_runtime.median").value
        assert speedup.value == pytest.approx(base_median / median.value)
    assert all(_observation(run, "speedup").value == 1.0 for run in baseline.values())
    markdown = (tmp_path / "advanced.markdown").read_text()
    assert "performance.speedup" in markdown and "| merge_sort |" in markdown


def test_mid_example_prices_replies_and_gates_them_with_policies(tmp_path: Path) -> None:
    _run_example("mid", tmp_path / "mid")
    result = replay_experiment(tmp_path / "mid")
    assert len(result.runs) == 18 and result.complete
    passed = {
        variant: sorted(
            run.case_id
            for run in result.runs_for(variant_id=variant)
            if run.status is RunStatus.PASSED
        )
        for variant in ("mini", "standard", "large")
    }
    # mini uses one knowledge snippet, standard two, large every one but busts the cost cap
    assert passed == {
        "mini": ["cancel-subscription", "password-reset"],
        "standard": ["cancel-subscription", "duplicate-charge", "late-delivery", "password-reset"],
        "large": [
            "cancel-subscription",
            "duplicate-charge",
            "late-delivery",
            "password-reset",
            "vat-invoice",
        ],
    }
    outage = result.runs_for(case_id="enterprise-outage", variant_id="large")[0]
    assert _observation(outage, "input_tokens").value == 145
    assert _observation(outage, "output_tokens").value == 117
    assert _observation(outage, "total_tokens").value == 262
    assert _observation(outage, "model_name").value == "demo/large"
    cost = _observation(outage, "request_cost")
    assert (cost.semantic_type, cost.unit, cost.source) == (
        "money.cost",
        "usd",
        ObservationSource.DERIVED,
    )
    assert cost.value == pytest.approx((145 * 5.0 + 117 * 20.0) / 1_000_000)
    cap = _observation(outage, "cost-cap")
    assert cap.value is False and cap.semantic_type == "policy.result"
    assert _observation(outage, "reply-must-be-complete").value is True
    incomplete = result.runs_for(case_id="vat-invoice", variant_id="standard")[0]
    assert _observation(incomplete, "reply-must-be-complete").value is False
    assert _observation(incomplete, "cost-cap").value is True
    assert incomplete.output is not None
    assert incomplete.output["missing_phrases"] == ["original number"]
    markdown = (tmp_path / "mid.markdown").read_text()
    assert "money.cost" in markdown and "| large |" in markdown
