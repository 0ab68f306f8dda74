"""``autobench rescore``: scorers run again on a real record's outputs, into derived records
with lineage; the run files stay byte for byte; ``report``/``compare --rescored`` show them."""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator
from ruamel.yaml import YAML

from autobench.cli import cli
from autobench.core.planning import canonical_json
from autobench.core.rescore import rescore_experiment
from autobench.core.runtime import ProgressEvent, ProgressEventKind
from autobench.records import (
    load_rescore_record,
    replay_experiment,
    rescore_record_from_yaml,
    rescore_record_to_yaml,
    rescorings,
)

TASK = """
def run_case(ctx, case):
    return {"value": case.input["x"] * ctx.factor("factor")}
"""

SCORERS = """
import asyncio


def within_one(call):
    return abs(call.output["value"] - call.case.expected["value"]) <= 1


def within_three(call):
    return abs(call.output["value"] - call.case.expected["value"]) <= 3


async def slow_within_one(call):
    await asyncio.sleep(0)
    return abs(call.output["value"] - call.case.expected["value"]) <= 1


def count_in_context(call):
    call.ctx.metric("rescored", 1)
    return True


def explode(call):
    raise RuntimeError(f"judge unavailable for {call.case.id}")
"""

RECORDED = """
benchmark:
  rescore-demo:
    description: Multiply by the factor.
    dataset:
      cases:
        - {id: one, input: {x: 1}, expected: {value: 2}}
        - {id: two, input: {x: 2}, expected: {value: 4}}
        - {id: three, input: {x: 3}, expected: {value: 6}}
    run:
      python: rescore_task:run_case
    variants:
      double: {factors: {factor: 2}}
      triple: {factors: {factor: 3}}
    score:
      correct:
        exact: {actual: output.value, expected: case.expected.value}
        semantic: quality.correctness
        goal: maximize
      close:
        python: rescore_scorers:within_one
        semantic: quality.score
        goal: maximize
"""


def _changed(close_target: str, *, extra: str = "") -> str:
    """The spec with the ``close`` scorer's function (its threshold) changed."""
    return RECORDED.replace("rescore_scorers:within_one", close_target) + extra


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "rescore_task.py").write_text(TASK)
    (tmp_path / "rescore_scorers.py").write_text(SCORERS)
    (tmp_path / "autobench.yaml").write_text(RECORDED)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUTOBENCH_HOME", str(tmp_path / "home"))
    return tmp_path


@pytest.fixture
def record(runner: CliRunner, workspace: Path) -> Path:
    target = workspace / "records"
    args = ["run", str(workspace / "autobench.yaml"), "--record", str(target), "--no-progress"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    return target


def _hashes(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.relative_to(root).parts[0] != "derived"
    }


def _score_files(record: Path, scorer: str) -> list[Path]:
    return sorted((record / "derived" / "rescore" / scorer).rglob("score.yaml"))


def _values(record: Path, scorer: str) -> dict[tuple[str, str], Any]:
    found = {}
    for path in _score_files(record, scorer):
        loaded = load_rescore_record(path, root=record)
        found[(loaded.lineage.case, loaded.lineage.variant)] = loaded.score.value
    return found


def _flat(text: str) -> str:
    """``text`` without panel borders, on one line (a panel wraps long messages)."""
    return " ".join(re.sub(r"[\u2500-\u257f]", " ", text).split())


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat(sep=" ")
    return value


def test_a_changed_threshold_rescores_into_derived_records_and_leaves_the_runs_untouched(
    runner: CliRunner, workspace: Path, record: Path
) -> None:
    before = _hashes(record)
    (workspace / "changed.yaml").write_text(_changed("rescore_scorers:within_three"))
    result = runner.invoke(
        cli,
        ["rescore", str(record), "--score", "close", "--spec", "changed.yaml", "--no-progress"],
    )
    assert result.exit_code == 0, result.output
    assert _hashes(record) == before  # same files, same bytes

    # triple gives 3, 6, 9 against 2, 4, 6: off by 1, 2, 3 (within three); double is exact.
    assert _values(record, "close") == {
        (case, variant): True
        for case in ("one", "two", "three")
        for variant in ("double", "triple")
    }
    files = _score_files(record, "close")
    assert len(files) == 6
    first = load_rescore_record(files[0], root=record)
    lineage = first.lineage
    assert lineage.scorer.name == "close"
    assert lineage.scorer.kind == "python"
    assert lineage.scorer.definition["target"] == "rescore_scorers:within_three"
    expected_hash = hashlib.sha256(canonical_json(lineage.scorer.definition).encode()).hexdigest()
    assert lineage.scorer.hash == expected_hash
    assert lineage.spec == "changed.yaml"
    spec_bytes = (workspace / "changed.yaml").read_bytes()
    assert lineage.spec_sha256 == hashlib.sha256(spec_bytes).hexdigest()
    assert lineage.run_sha256 == before[lineage.run_record]
    assert lineage.experiment == replay_experiment(record).experiment_id
    assert lineage.rescored_at.tzinfo is not None
    assert files[0].relative_to(record).parts[:4] == (
        "derived",
        "rescore",
        "close",
        lineage.scorer.hash[:12],
    )
    assert first.score.semantic_type == "quality.score"  # filled from the scorer, as at run time
    assert "close@" + lineage.scorer.hash[:12] in result.output
    assert "6 runs scored" in result.output


def test_the_file_reads_back_and_matches_its_json_schema(runner: CliRunner, record: Path) -> None:
    result = runner.invoke(cli, ["rescore", str(record), "--score", "correct", "--no-progress"])
    assert result.exit_code == 0, result.output
    path = _score_files(record, "correct")[0]
    text = path.read_text(encoding="utf-8")
    loaded = rescore_record_from_yaml(text)
    assert rescore_record_from_yaml(rescore_record_to_yaml(loaded)) == loaded
    reference = text.split("\n", 1)[0].removeprefix("# yaml-language-server: $schema=")
    schema = json.loads((path.parent / reference).read_text(encoding="utf-8"))
    document = _plain(YAML(typ="safe", pure=True).load(text))
    Draft202012Validator(schema).validate(document)
    assert document["lineage"]["spec"] == "recorded"


def test_the_recorded_scorer_gives_the_recorded_values(runner: CliRunner, record: Path) -> None:
    result = runner.invoke(cli, ["rescore", str(record), "--score", "correct", "--no-progress"])
    assert result.exit_code == 0, result.output
    recorded = {
        (run.case_id, run.variant_id): run.score("correct").value
        for run in replay_experiment(record).runs
    }
    assert _values(record, "correct") == recorded
    assert sorted(set(recorded.values())) == [0.0, 1.0]


def test_a_scorer_that_raises_is_an_error_on_each_run_not_a_failed_command(
    runner: CliRunner, workspace: Path, record: Path
) -> None:
    extra = "      judge:\n        python: rescore_scorers:explode\n"
    (workspace / "with_judge.yaml").write_text(_changed("rescore_scorers:within_one", extra=extra))
    result = runner.invoke(
        cli,
        [
            "rescore",
            str(record),
            "--score",
            "judge",
            "--score",
            "close",
            "--spec",
            "with_judge.yaml",
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "6 with a scorer error" in result.output
    assert "RuntimeError: judge unavailable for" in result.output
    for path in _score_files(record, "judge"):
        loaded = load_rescore_record(path)
        assert loaded.score.value is None
        assert loaded.score.error == f"RuntimeError: judge unavailable for {loaded.lineage.case}"
        (error,) = loaded.errors
        assert (error.stage, error.source, error.type) == ("scorer", "judge", "RuntimeError")
    # The other scorer of the same runs scored.
    assert set(_values(record, "close").values()) == {True, False}


def test_a_scorer_needing_the_run_context_is_told_the_record_keeps_none(
    runner: CliRunner, workspace: Path, record: Path
) -> None:
    extra = "      counted:\n        python: rescore_scorers:count_in_context\n"
    (workspace / "with_ctx.yaml").write_text(_changed("rescore_scorers:within_one", extra=extra))
    result = runner.invoke(
        cli, ["rescore", str(record), "--score", "counted", "--spec", "with_ctx.yaml"]
    )
    assert result.exit_code == 0, result.output
    line = 1 + SCORERS.splitlines().index('    call.ctx.metric("rescored", 1)')
    for path in _score_files(record, "counted"):
        loaded = load_rescore_record(path)
        (error,) = loaded.errors
        run_file = loaded.lineage.run_record
        assert error.location is not None
        assert (error.location.file, error.location.line) == ("rescore_scorers.py", line)
        assert f"({run_file}: a record keeps no run context, so call.ctx is None" in error.message
        assert f"the scorer at rescore_scorers.py:{line} in count_in_context needs it" in (
            loaded.score.error or ""
        )


def test_a_scorer_the_recorded_spec_lacks_is_a_located_error_with_the_closest_name(
    runner: CliRunner, record: Path
) -> None:
    before = _hashes(record)
    result = runner.invoke(cli, ["rescore", str(record), "--score", "corect", "--no-progress"])
    assert result.exit_code == 1
    text = _flat(result.output)
    assert "Unknown scorer" in text
    assert re.search(r"experiment\.yaml:\d+:\d+: no scorer 'corect'", text), text
    assert "(did you mean 'correct'?)" in text
    assert "one of: close, correct" in text
    line = int(re.search(r"experiment\.yaml:(\d+):", text).group(1))  # type: ignore[union-attr]
    lines = (record / "experiment.yaml").read_text().splitlines()
    assert lines[line - 2].strip() == "scoring:"  # the recorded scorers' list starts here
    assert _hashes(record) == before and not (record / "derived").exists()


def test_a_scorer_a_spec_file_lacks_is_located_in_that_file(
    runner: CliRunner, workspace: Path, record: Path
) -> None:
    result = runner.invoke(
        cli, ["rescore", str(record), "--score", "clsoe", "--spec", "autobench.yaml"]
    )
    assert result.exit_code == 1
    text = _flat(result.output)
    match = re.search(r"autobench\.yaml:(\d+):\d+: no scorer 'clsoe'", text)
    assert match, text
    assert "(did you mean 'close'?)" in text
    assert RECORDED.splitlines()[int(match.group(1)) - 2].strip() == "score:"


def test_report_shows_rescored_values_only_when_asked(
    runner: CliRunner, workspace: Path, record: Path
) -> None:
    plain_before = runner.invoke(cli, ["report", str(record), "--runs", "all"])
    assert plain_before.exit_code == 0, plain_before.output
    (workspace / "changed.yaml").write_text(_changed("rescore_scorers:within_three"))
    rescored = runner.invoke(
        cli, ["rescore", str(record), "--score", "close", "--spec", "changed.yaml", "--no-progress"]
    )
    assert rescored.exit_code == 0, rescored.output

    plain_after = runner.invoke(cli, ["report", str(record), "--runs", "all"])
    assert plain_after.stdout == plain_before.stdout  # the default view is the recorded one
    assert "has re-scored scores (close@" in " ".join(plain_after.stderr.split())

    shown = runner.invoke(cli, ["report", str(record), "--runs", "all", "--rescored", "close"])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.startswith("Re-scored scores shown in place of the recorded ones: close@")
    # Recorded: triple's `close` holds for case one only (off by 1); re-scored: for all three.
    assert _leaderboard_value(plain_before.stdout, "triple") == pytest.approx(1 / 3, abs=1e-3)
    assert _leaderboard_value(shown.stdout, "triple") == 1.0

    wrong = runner.invoke(cli, ["report", str(record), "--rescored", "clsoe"])
    assert wrong.exit_code == 1
    assert "did you mean 'close'?" in _flat(wrong.output)


def _leaderboard_value(text: str, variant: str) -> float:
    """The last column (``quality.score`` mean) of ``variant``'s leaderboard row."""
    board = text[text.index("Leaderboard") :]
    row = next(line for line in board.splitlines() if line.startswith(variant + " "))
    return float(row.split()[-1].lstrip("*"))


def test_compare_uses_the_rescored_values_when_asked(
    runner: CliRunner, workspace: Path, record: Path
) -> None:
    # `correct` becomes "within three" (a python scorer): triple is then correct everywhere.
    lenient = RECORDED.replace(
        "exact: {actual: output.value, expected: case.expected.value}",
        "python: rescore_scorers:within_three",
    )
    (workspace / "lenient.yaml").write_text(lenient)
    rescored = runner.invoke(
        cli, ["rescore", str(record), "--score", "correct", "--spec", "lenient.yaml"]
    )
    assert rescored.exit_code == 0, rescored.output
    args = ["compare", str(record), "--baseline", "double", "--candidate", "triple"]
    plain = runner.invoke(cli, args)
    shown = runner.invoke(cli, [*args, "--rescored", "correct"])
    assert plain.exit_code == 0 and shown.exit_code == 0, plain.output + shown.output
    assert _metric_row(plain.stdout, "quality.correctness")[-2:] == ["-1", "-100.0%"]
    assert _metric_row(shown.stdout, "quality.correctness")[-2:] == ["+0", "+0.0%"]
    assert shown.stdout.startswith("Re-scored scores shown in place of the recorded ones: correct@")


def _metric_row(text: str, metric: str) -> list[str]:
    """The cells of the comparison table's row of ``metric`` (any aggregate)."""
    pattern = re.compile(rf"^\S+ {re.escape(metric)}\s")
    line = next(line for line in text.splitlines() if pattern.match(line))
    return line.split()


def test_rescoring_again_keeps_what_was_written_and_a_new_definition_sits_beside_it(
    runner: CliRunner, workspace: Path, record: Path
) -> None:
    args = ["rescore", str(record), "--score", "close", "--no-progress"]
    assert runner.invoke(cli, args).exit_code == 0
    written = {path: path.read_bytes() for path in _score_files(record, "close")}
    again = runner.invoke(cli, args)
    assert again.exit_code == 0, again.output
    assert "0 runs scored, 6 already re-scored, kept" in again.output
    assert {path: path.read_bytes() for path in _score_files(record, "close")} == written

    (workspace / "changed.yaml").write_text(_changed("rescore_scorers:within_three"))
    changed = runner.invoke(cli, [*args, "--spec", "changed.yaml"])
    assert changed.exit_code == 0, changed.output
    found = [item for item in rescorings(record) if item.name == "close"]
    assert len(found) == 2 and found[0].hash != found[1].hash
    assert all(len(item.records) == 6 for item in found)


def test_concurrent_rescoring_of_an_async_scorer_gives_every_run_its_score(
    runner: CliRunner, workspace: Path, record: Path
) -> None:
    (workspace / "async.yaml").write_text(_changed("rescore_scorers:slow_within_one"))
    result = runner.invoke(
        cli,
        [
            "rescore",
            str(record),
            "--score",
            "close",
            "--spec",
            "async.yaml",
            "--concurrency",
            "4",
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    recorded = {
        (run.case_id, run.variant_id): run.score("close").value
        for run in replay_experiment(record).runs
    }
    assert _values(record, "close") == recorded


def test_replay_and_extraction_leave_rescored_records_alone(
    runner: CliRunner, workspace: Path, record: Path
) -> None:
    (workspace / "changed.yaml").write_text(_changed("rescore_scorers:within_three"))
    runner.invoke(
        cli, ["rescore", str(record), "--score", "close", "--spec", "changed.yaml", "--no-progress"]
    )
    replayed = replay_experiment(record)
    assert [run.score("close").value for run in replayed.runs].count(False) == 2
    extracted = runner.invoke(cli, ["replay", str(record), "--extract", "span"])
    assert extracted.exit_code == 0, extracted.output
    assert len(list((record / "derived" / "span").rglob("extraction.yaml"))) == 6


def test_the_python_api_reports_progress_per_run_in_plan_order(
    workspace: Path, record: Path
) -> None:
    extra = "      judge:\n        python: rescore_scorers:explode\n"
    (workspace / "with_judge.yaml").write_text(_changed("rescore_scorers:within_one", extra=extra))
    events: list[ProgressEvent] = []
    outcome = asyncio.run(
        rescore_experiment(
            record, ["judge"], spec="with_judge.yaml", concurrency=3, progress=events.append
        )
    )
    kinds = [event.kind for event in events]
    assert kinds == [
        ProgressEventKind.EXPERIMENT_STARTED,
        *[ProgressEventKind.RUN_FINISHED] * 6,
        ProgressEventKind.EXPERIMENT_FINISHED,
    ]
    plan = [planned.id for planned in replay_experiment(record).experiment.plan]
    assert [event.run_id for event in events[1:-1]] == plan
    assert {event.status for event in events[1:-1]} == {"errored"}
    assert [event.completed for event in events[1:-1]] == [1, 2, 3, 4, 5, 6]
    assert outcome.errors == 6 and outcome.kept == 0
    assert [record.run_id for record in outcome.records] == plan
