"""Every example runs end to end: validate, run with recording, replay from the records alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from autobench.cli import cli
from autobench.records import RunStatus, replay_experiment

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
