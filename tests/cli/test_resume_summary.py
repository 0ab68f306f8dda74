"""After an interrupted run and ``--resume``, ``summary.yaml`` describes the completed
experiment, each earlier session's summary is kept as ``summary.<n>.yaml``, and ``replay``
shows the same views as ``report``."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from autobench.cli import cli
from autobench.records import load_experiment_summary, replay_experiment
from autobench.records._directory import latest_session_file

TASK = """\
import os


def run(ctx, case):
    if case.id in os.environ.get("STOP_AT", "").split(","):
        raise KeyboardInterrupt
    ctx.metric("size", len(case.id), semantic_type="workload.size")
    return {"ok": case.id != "c2"}
"""

SPEC = """\
benchmark:
  resumed:
    cases: [{id: c1}, {id: c2}, {id: c3}, {id: c4}]
    run: {python: "task:run"}
    variants: {a: {}, b: {}}
    score:
      ok: {pass: output.ok}
    post_derive:
      - kind: paired_baseline
        baseline_variant: a
        match_on: [{kind: case_id}]
        metric: size
        formula: candidate_over_baseline
        output: {name: size_ratio, semantic_type: performance.speedup, unit: ratio}
"""


def _summary(path: Path) -> dict[str, object]:
    document = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    assert isinstance(document, dict)
    return document


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "task.py").write_text(TASK)
    (tmp_path / "autobench.yaml").write_text(SPEC)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(runner: CliRunner, monkeypatch: pytest.MonkeyPatch, stop: str, *args: str) -> int:
    monkeypatch.setenv("STOP_AT", stop)
    result = runner.invoke(cli, ["run", "autobench.yaml", "--no-progress", *args])
    return result.exit_code


def test_summary_yaml_describes_the_completed_experiment_and_keeps_the_history(
    runner: CliRunner, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = project / "r"
    args = ("--concurrency", "1")
    assert _run(runner, monkeypatch, "c2", "--record", str(record), *args) == 130
    first = (record / "summary.yaml").read_bytes()
    assert _summary(record / "summary.yaml")["complete"] is False
    assert _run(runner, monkeypatch, "c4", "--resume", str(record), *args) == 130
    second = (record / "summary.yaml").read_bytes()
    assert (record / "summary.1.yaml").read_bytes() == first
    assert _run(runner, monkeypatch, "", "--resume", str(record)) == 0

    assert (record / "summary.1.yaml").read_bytes() == first
    assert (record / "summary.2.yaml").read_bytes() == second
    assert not (record / "summary.3.yaml").exists()
    latest = _summary(record / "summary.yaml")
    assert latest["complete"] is True and latest["runs"] == 8
    assert _summary(record / "summary.2.yaml")["complete"] is False
    assert latest_session_file(record, "summary.yaml") == record / "summary.yaml"
    summary = load_experiment_summary(record)
    assert summary is not None and summary.complete and summary.runs == 8
    assert summary.resumed is not None
    assert replay_experiment(record).summary == summary
    post = [path.name for path in record.glob("post_derived*.yaml")]
    assert post == ["post_derived.yaml"]  # only the session that completed derives
    for path in record.glob("*.yaml"):
        reference = path.read_text().split("\n", 1)[0].split("$schema=", 1)[1]
        assert (record / reference).is_file(), path


def test_replay_shows_the_views_report_shows(
    runner: CliRunner, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = project / "r"
    assert _run(runner, monkeypatch, "c3", "--record", str(record), "--concurrency", "1") == 130
    assert _run(runner, monkeypatch, "", "--resume", str(record)) == 0
    for runs in ((), ("--runs", "all"), ("--runs", "none")):
        report = runner.invoke(cli, ["report", str(record), *runs])
        replay = runner.invoke(cli, ["replay", str(record), *runs])
        assert report.exit_code == replay.exit_code == 0, replay.output
        assert replay.output == report.output
    shown = runner.invoke(cli, ["replay", str(record)]).output
    assert "Run metrics" in shown and "Why runs did not pass" in shown
    assert re.search(r"runs +8 of 8 planned", shown) is not None


def test_a_record_of_the_earlier_numbering_still_reads_its_latest_session(
    runner: CliRunner, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before summaries were replaced, ``summary.yaml`` stayed session 1's and a resumed
    session wrote ``summary.2.yaml``: that directory still reads session 2, and resuming it
    keeps session 1 as ``summary.1.yaml`` and writes the latest as ``summary.yaml``."""
    record = project / "r"
    assert _run(runner, monkeypatch, "c2", "--record", str(record), "--concurrency", "1") == 130
    first = (record / "summary.yaml").read_bytes()
    assert _run(runner, monkeypatch, "c4", "--resume", str(record), "--concurrency", "1") == 130
    second = (record / "summary.yaml").read_bytes()
    (record / "summary.yaml").unlink()  # rebuild the earlier layout from the two sessions
    shutil.move(record / "summary.1.yaml", record / "summary.yaml")
    (record / "summary.2.yaml").write_bytes(second)
    assert (record / "summary.yaml").read_bytes() == first
    assert latest_session_file(record, "summary.yaml") == record / "summary.2.yaml"

    assert _run(runner, monkeypatch, "", "--resume", str(record)) == 0
    assert (record / "summary.1.yaml").read_bytes() == first
    assert (record / "summary.2.yaml").read_bytes() == second
    assert _summary(record / "summary.yaml")["complete"] is True
    assert latest_session_file(record, "summary.yaml") == record / "summary.yaml"
