"""The closing report of ``autobench run --record`` is the report of its record.

A recording session keeps no record per run: once the record is complete it reads the
experiment back (from the columnar index when it was written, else from the YAML run files)
and the closing report is built from that, so it is byte for byte what ``autobench report
DIR`` prints for the same directory, and what the session printed when it kept every run's
evidence in memory. Real YAML specs with several variants, repeats, failing and erroring
runs, scores and metrics with units, a post-derivation, a resumed experiment and
``--no-index``; one case in real processes.
"""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from rich.console import Console

from autobench.cli import cli
from autobench.core.runtime import RunSession
from autobench.core.runtime._lean import lean_run
from autobench.core.spec import load_benchmark_spec
from autobench.records import (
    ExperimentResult,
    ExperimentSummary,
    RecordDirectoryWriter,
    RunRecord,
    replay_experiment,
)
from autobench.records._directory import PreparedRun
from autobench.report import build_report, render_report
from autobench.report._error_trace import first_traceback

TASK = """\
import os


def run(ctx, case):
    if case.id in os.environ.get("STOP_AT", "").split(","):
        raise KeyboardInterrupt
    n = case.input["n"]
    model = ctx.factor("model")
    ctx.metric("latency", 100 + 10 * n + 7 * (model == "large"), semantic_type="time.latency", unit="ms")
    ctx.metric("cost", 0.001 * n * (1 + (model == "wrong")), semantic_type="money.cost", unit="usd")
    if n == 3 and model == "small":
        raise ValueError("three is too many for the small model")
    return {"value": n * ctx.factor("k")}


def distance(call):
    return abs(call.output["value"] - call.case.expected["value"]) * 1.5
"""

SPEC = """\
benchmark:
  closing:
    cases:
      - {id: c1, input: {n: 1}, expected: {value: 2}}
      - {id: c2, input: {n: 2}, expected: {value: 4}}
      - {id: c3, input: {n: 3}, expected: {value: 6}}
      - {id: c4, input: {n: 4}, expected: {value: 8}}
    run: {python: "closing_task:run"}
    repeat: 2
    variants:
      small: {factors: {model: small, k: 2}}
      large: {factors: {model: large, k: 2}}
      wrong: {factors: {model: wrong, k: 3}}
    score:
      correct:
        exact: {actual: output.value, expected: case.expected.value}
        semantic: quality.correctness
        role: constraint
      distance:
        python: closing_task:distance
        semantic: quality.score
        unit: points
        goal: minimize
"""

POST_DERIVE = """\
    post_derive:
      - kind: paired_baseline
        baseline_variant: small
        match_on: [{kind: case_id}]
        metric: latency
        formula: candidate_over_baseline
        output: {name: latency_ratio, semantic_type: performance.speedup, unit: ratio}
"""

RUNS = 24  # 4 cases x 3 variants x 2 repeats


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "closing_task.py").write_text(TASK, encoding="utf-8")
    (tmp_path / "autobench.yaml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "derived.yaml").write_text(SPEC + POST_DERIVE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STOP_AT", raising=False)
    monkeypatch.delenv("AUTOBENCH_NO_INDEX", raising=False)
    return tmp_path


def _invoke(runner: CliRunner, *args: str) -> tuple[int, str, str]:
    done = runner.invoke(cli, list(args))
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        raise done.exception
    return done.exit_code, done.stdout, done.stderr


def _shows_the_experiment(text: str) -> None:
    """What the report of this experiment must show, so that equal texts are not both
    empty or both an error message."""
    for shown in (
        "closing",
        "small",
        "large",
        "wrong",
        "errored",
        "failed",
        "(ms)",
        "(USD)",
        "points",
    ):
        assert shown in text, shown


@pytest.mark.parametrize(
    ("spec", "options"),
    [
        pytest.param("autobench.yaml", (), id="index"),
        pytest.param("autobench.yaml", ("--no-index",), id="no-index"),
        pytest.param("derived.yaml", (), id="post-derive"),
        pytest.param("derived.yaml", ("--no-index",), id="post-derive-no-index"),
    ],
)
@pytest.mark.parametrize("runs", ["all", "none"])
def test_the_closing_report_is_the_report_of_the_record(
    runner: CliRunner, project: Path, spec: str, options: tuple[str, ...], runs: str
) -> None:
    record = project / "record"
    ran = _invoke(
        runner,
        *("run", spec, "--record", str(record), "--no-progress", "--concurrency", "3"),
        *("--runs", runs, *options),
    )
    reported = _invoke(runner, "report", str(record), "--runs", runs)

    assert ran[0] == reported[0] == 0, ran[1] + ran[2]
    assert ran[1] == reported[1]
    _shows_the_experiment(ran[1])
    assert (record / "index").is_dir() is not bool(options)
    if spec == "derived.yaml":
        assert "mean performance.speedup (ratio)" in ran[1]


def test_the_gate_of_a_recorded_run_is_the_gate_of_its_report(
    runner: CliRunner, project: Path
) -> None:
    record = project / "record"
    gate = ("--fail-on", "failed,errored,missing,pass^k<0.9")
    ran = _invoke(runner, "run", "autobench.yaml", "--record", str(record), "--no-progress", *gate)
    reported = _invoke(runner, "report", str(record), *gate)

    assert ran[0] == reported[0] == 3
    assert ran[1] == reported[1]
    gated = [line for line in ran[2].splitlines() if line.startswith("--fail-on")]
    assert gated == [line for line in reported[2].splitlines() if line.startswith("--fail-on")]
    assert gated and "run(s) failed" in gated[0] and "run(s) errored" in gated[0]
    assert "pass^2" in gated[0]


@pytest.mark.parametrize("options", [(), ("--no-index",)], ids=["index", "no-index"])
def test_a_resumed_experiment_closes_with_the_report_of_every_run(
    runner: CliRunner, project: Path, monkeypatch: pytest.MonkeyPatch, options: tuple[str, ...]
) -> None:
    record = project / "record"
    monkeypatch.setenv("STOP_AT", "c3")
    first = _invoke(
        runner, "run", "autobench.yaml", "--record", str(record), "--no-progress", *options
    )
    assert first[0] == 130
    monkeypatch.delenv("STOP_AT")
    ran = _invoke(runner, "run", "autobench.yaml", "--resume", str(record), "--no-progress")
    reported = _invoke(runner, "report", str(record))

    assert ran[0] == reported[0] == 0, ran[1] + ran[2]
    assert ran[1] == reported[1]
    _shows_the_experiment(ran[1])
    assert f"{RUNS} of {RUNS} planned" in " ".join(ran[1].split())
    replayed = replay_experiment(record, evidence_only=True)
    assert replayed.summary is not None and replayed.summary.runs == RUNS
    assert replayed.summary.resumed is not None and 0 < replayed.summary.resumed.runs < RUNS


def test_in_real_processes_the_closing_report_is_the_report(project: Path) -> None:
    env = {**os.environ, "COLUMNS": "160", "NO_COLOR": "1", "PYTHONPATH": str(project)}

    def autobench(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "autobench.cli", *args],
            cwd=project,
            env=env,
            capture_output=True,
            check=False,
        )

    ran = autobench("run", "autobench.yaml", "--record", "record", "--no-progress", "--runs", "all")
    reported = autobench("report", "record", "--runs", "all")

    assert ran.returncode == reported.returncode == 0, ran.stderr
    assert ran.stdout == reported.stdout
    _shows_the_experiment(ran.stdout.decode())
    assert (project / "record" / "index" / "manifest.json").is_file()


class _KeepingWriter(RecordDirectoryWriter):
    """A record directory writer that also keeps every record it stores and the summary,
    as the session kept them before it read its result back."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.kept: list[RunRecord] = []
        self.summary: ExperimentSummary | None = None

    def run_finished(self, run: RunRecord, payloads: Mapping[str, Any]) -> RunRecord:
        stored = super().run_finished(run, payloads)
        self.kept.append(stored)
        return stored

    def run_prepared(self, prepared: PreparedRun) -> RunRecord:
        stored = super().run_prepared(prepared)
        self.kept.append(stored)
        return stored

    def finish(self, summary: ExperimentSummary) -> None:
        self.summary = summary
        super().finish(summary)


def _rendered(result: ExperimentResult, spec_dir: Path) -> str:
    console = Console(file=io.StringIO(), width=160, color_system=None)
    report = render_report(build_report(result), records="RECORD", runs="all", spec_dir=spec_dir)
    console.print(report)
    assert isinstance(console.file, io.StringIO)
    return console.file.getvalue()


def _in_plan_order(result: ExperimentResult, runs: Sequence[RunRecord]) -> tuple[RunRecord, ...]:
    position = {planned.id: index for index, planned in enumerate(result.experiment.plan)}
    return tuple(sorted(runs, key=lambda run: position[run.run_id]))


@pytest.mark.parametrize("listeners", [True, False], ids=["index", "no-index"])
def test_the_read_back_result_reports_what_the_kept_evidence_did(
    project: Path, listeners: bool
) -> None:
    """The result a lean session reads back gives the report, the first traceback and the
    counts that the evidence it used to keep of each run gave."""
    spec = load_benchmark_spec(project / "autobench.yaml")
    writer = _KeepingWriter(project / "record")
    session = RunSession.start(spec, sink=writer)
    result = asyncio.run(session.execute(concurrency_limit=3, listeners=listeners, lean=True))
    kept = ExperimentResult(
        experiment=session.experiment,
        runs=_in_plan_order(result, [lean_run(run) for run in writer.kept]),
        summary=writer.summary,
        root_dir=writer.root,
        registry=spec.registry,
        evidence_only=True,
    )

    assert len(result.runs) == len(writer.kept) == RUNS
    assert result.summary == writer.summary
    assert result.status_counts() == kept.status_counts()
    assert result.status_counts().errored == 2 and result.status_counts().failed > 0
    assert _rendered(result, project) == _rendered(kept, project)
    shown = first_traceback(result, project)
    assert shown is not None and "three is too many" in shown
    assert shown == first_traceback(kept, project)
