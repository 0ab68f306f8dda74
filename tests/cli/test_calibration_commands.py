"""``autobench judge calibrate``, ``autobench label`` (the terminal walk and the CSV sheet)
and ``--fail-on 'kappa<FLOOR'``, on a real record (see ``calibration_support``)."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from calibration_support import HUMAN_VERDICTS, TASK, record, spec_text, verdict_labels_yaml
from click.testing import CliRunner

from autobench.cli import cli
from autobench.records import LABELS_FILE, Label, read_labels, replay_experiment

WIDE = {"COLUMNS": "200"}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(tmp_path_factory.mktemp("calibrate"))


@pytest.fixture
def recorded(pristine: Path, tmp_path: Path) -> Path:
    """A copy of the record per test: tests store labels beside it."""
    return Path(shutil.copytree(pristine, tmp_path / "out"))


@pytest.fixture
def run_ids(pristine: Path) -> dict[str, str]:
    return {run.case_id: run.run_id for run in replay_experiment(pristine).runs}


def _labels_file(tmp_path: Path, run_ids: dict[str, str]) -> Path:
    path = tmp_path / "people.yaml"
    path.write_text(verdict_labels_yaml(run_ids), encoding="utf-8")
    return path


def test_calibrate_reports_agreement_and_gates(
    recorded: Path, run_ids: dict[str, str], tmp_path: Path
) -> None:
    labels = _labels_file(tmp_path, run_ids)
    runner = CliRunner(env=WIDE)
    shown = runner.invoke(
        cli, ["judge", "calibrate", str(recorded), "--labels", str(labels), "--score", "verdict"]
    )
    assert shown.exit_code == 0, shown.output
    assert "Calibration of verdict (pass/fail) against 10 human label(s)" in shown.output
    assert "Cohen's kappa" in shown.output and "0.600" in shown.output
    assert "false positive rate" in shown.output and "0.200" in shown.output
    assert f"1 run(s) with a score but no label: {run_ids['c11']}" in shown.output
    assert "1 label(s) for no run of the record: run no-such-run" in shown.output
    assert not (recorded / LABELS_FILE).exists()  # not stored unless asked

    gated = runner.invoke(
        cli,
        ["judge", "calibrate", str(recorded), "--labels", str(labels), "--fail-on", "kappa<0.7"],
    )
    assert gated.exit_code == 3
    assert "--fail-on: verdict: kappa 0.600 < 0.7 (10 labelled runs; 95% interval" in gated.output
    held = runner.invoke(
        cli,
        [
            "judge",
            "calibrate",
            str(recorded),
            "--labels",
            str(labels),
            "--fail-on",
            "kappa<0.5,accuracy<0.75,fpr>0.25",
        ],
    )
    assert held.exit_code == 0, held.output
    scale = runner.invoke(
        cli,
        [
            "judge",
            "calibrate",
            str(recorded),
            "--labels",
            str(labels),
            "--fail-on",
            "kappa_linear<0.5",
        ],
    )
    assert scale.exit_code == 3
    assert "verdict: kappa_linear is not reported on a pass/fail scale" in scale.output
    wrong = runner.invoke(
        cli, ["judge", "calibrate", str(recorded), "--labels", str(labels), "--fail-on", "kappa<2"]
    )
    assert wrong.exit_code == 2 and "not in [-1, 1]" in wrong.output


def test_stored_labels_show_in_the_report_and_gate_it(
    recorded: Path, run_ids: dict[str, str], tmp_path: Path
) -> None:
    runner = CliRunner(env=WIDE)
    before = runner.invoke(cli, ["report", str(recorded), "--fail-on", "kappa<0.5"])
    assert before.exit_code == 3
    assert f"no human labels to calibrate against (no {LABELS_FILE} beside the record)" in (
        before.output
    )
    labels = _labels_file(tmp_path, run_ids)
    stored = runner.invoke(
        cli, ["judge", "calibrate", str(recorded), "--labels", str(labels), "--store"]
    )
    assert stored.exit_code == 0, stored.output
    kept = read_labels(recorded / LABELS_FILE)
    assert kept.score == "verdict" and kept.labels == read_labels(labels).labels
    report = runner.invoke(cli, ["report", str(recorded), "--fail-on", "kappa<0.5"])
    assert report.exit_code == 0, report.output
    assert f"Calibration of verdict (pass/fail) against 10 human label(s) from {LABELS_FILE}" in (
        report.output
    )
    assert runner.invoke(cli, ["report", str(recorded), "--fail-on", "kappa<0.7"]).exit_code == 3
    both = runner.invoke(cli, ["report", str(recorded), "--fail-on", "errored,fpr>0.1"])
    assert both.exit_code == 3 and "verdict: fpr 0.200 > 0.1" in both.output
    typo = runner.invoke(cli, ["report", str(recorded), "--fail-on", "kappa<high"])
    assert typo.exit_code == 2 and "'high' is not a number" in typo.output
    # other labels are never stored over these without --replace
    other = tmp_path / "other.yaml"
    other.write_text(f"labels:\n  - {{run_id: {run_ids['c1']}, label: fail}}\n", encoding="utf-8")
    refused = runner.invoke(
        cli,
        [
            "judge",
            "calibrate",
            str(recorded),
            "--labels",
            str(other),
            "--score",
            "verdict",
            "--store",
        ],
    )
    assert refused.exit_code == 1
    assert "already holds other labels; pass --replace" in refused.output
    assert read_labels(recorded / LABELS_FILE) == kept


def test_label_walk_in_the_terminal_is_resumable(recorded: Path, run_ids: dict[str, str]) -> None:
    runner = CliRunner(env=WIDE)
    # first sitting: c1 pass (with a note), a typo then fail for c2, skip c3, then quit
    first = runner.invoke(
        cli,
        ["label", str(recorded), "--score", "verdict", "--labeller", "ana"],
        input="pass\nright policy\nmaybe\nfail\n\ns\nq\n",
    )
    assert first.exit_code == 0, first.output
    assert "q1" in first.output and "Answer to q1" in first.output  # input and output shown
    assert "a1" in first.output  # expected
    assert "verdict: true" in first.output and "reason: cites the policy" in first.output
    assert "'maybe' is not pass/fail" in first.output
    assert "labelled 2, skipped 1, 8 left without a label" in first.output
    labels = read_labels(recorded / LABELS_FILE)
    assert labels.score == "verdict"
    assert labels.labels == (
        Label(run_id=run_ids["c1"], label=True, labeller="ana", note="right policy"),
        Label(run_id=run_ids["c2"], label=False, labeller="ana"),
    )
    # second sitting resumes with the first run without a label (the skipped c3)
    second = runner.invoke(cli, ["label", str(recorded), "--score", "verdict"], input="yes\n\nq\n")
    assert second.exit_code == 0, second.output
    assert "2 of 11 run(s) labelled for verdict (pass/fail); 9 to go" in second.output
    assert "case c3 / variant base" in second.output
    assert read_labels(recorded / LABELS_FILE).labels[-1] == Label(run_id=run_ids["c3"], label=True)


def test_label_sheet_export_and_import(
    recorded: Path, run_ids: dict[str, str], tmp_path: Path
) -> None:
    runner = CliRunner(env=WIDE)
    sheet = tmp_path / "sheet.csv"
    exported = runner.invoke(
        cli, ["label", str(recorded), "--score", "grade", "--export", str(sheet)]
    )
    assert exported.exit_code == 0, exported.output
    with sheet.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 11
    assert rows[0]["run_id"] == run_ids["c1"]
    assert rows[0]["output"] == '{"answer": "Answer to q1"}'
    assert rows[0]["expected"] == '{"answer": "a1"}'
    assert (rows[0]["score"], rows[0]["label"]) == ("1", "")
    for row in rows[:3]:
        row["label"] = "2"
        row["labeller"] = "bo"
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    imported = runner.invoke(
        cli, ["label", str(recorded), "--score", "grade", "--import", str(sheet)]
    )
    assert imported.exit_code == 0, imported.output
    assert "imported 3 label(s)" in imported.output
    labels = read_labels(recorded / LABELS_FILE)
    assert labels.score == "grade"
    assert [(item.run_id, item.label, item.labeller) for item in labels.labels] == [
        (run_ids[case], 2, "bo") for case in ("c1", "c2", "c3")
    ]
    # calibrate reads the stored file by default
    shown = runner.invoke(cli, ["judge", "calibrate", str(recorded)])
    assert shown.exit_code == 0, shown.output
    assert "Calibration of grade (integer) against 3 human label(s)" in shown.output
    assert "weighted kappa (quadratic)" in shown.output
    # a re-export carries the labels given so far
    runner.invoke(cli, ["label", str(recorded), "--score", "grade", "--export", str(sheet)])
    with sheet.open(encoding="utf-8", newline="") as handle:
        again = list(csv.DictReader(handle))
    assert [row["label"] for row in again[:4]] == ["2", "2", "2", ""]
    # a sheet label off the scale is refused before anything is written
    again[5]["label"] = "high"
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(again[0]))
        writer.writeheader()
        writer.writerows(again)
    refused = runner.invoke(
        cli, ["label", str(recorded), "--score", "grade", "--import", str(sheet)]
    )
    assert refused.exit_code == 1 and "'high' is not an integer" in refused.output
    assert read_labels(recorded / LABELS_FILE) == labels
    walk = runner.invoke(cli, ["label", str(recorded), "--score", "grade"], input="q\n")
    assert "label (an integer; 1 to 3 recorded; s skip, q quit)" in walk.output
    tone = runner.invoke(
        cli,
        ["label", str(recorded), "--score", "tone", "--labels", str(tmp_path / "t.yaml")],
        input="q\n",
    )
    assert "label (a label, e.g. curt, kind; s skip, q quit)" in tone.output
    wrong = runner.invoke(cli, ["label", str(recorded), "--score", "verdict"], input="q\n")
    assert wrong.exit_code == 1 and "holds labels for score 'grade', not 'verdict'" in wrong.output


FIXED = """\
from autobench import ScoreRecord

PEOPLE = {people!r}


def verdict(call):
    return ScoreRecord(name="verdict", value=PEOPLE.get(call.case.id, True), reason="fixed rubric")
"""


def test_calibrate_a_rescored_judge(
    recorded: Path, run_ids: dict[str, str], tmp_path: Path
) -> None:
    """A judge re-scored with a better rubric (``autobench rescore``) is calibrated with
    --rescored: here it says what people said on every labelled run, kappa 1."""
    workspace = tmp_path / "fixed"
    workspace.mkdir()
    (workspace / "support_task.py").write_text(TASK, encoding="utf-8")
    (workspace / "support_fixed.py").write_text(
        FIXED.format(people=HUMAN_VERDICTS), encoding="utf-8"
    )
    spec = workspace / "fixed.yaml"
    spec.write_text(
        spec_text().replace('"support_task:verdict"', '"support_fixed:verdict"'), encoding="utf-8"
    )
    runner = CliRunner(env=WIDE)
    rescored = runner.invoke(
        cli, ["rescore", str(recorded), "--score", "verdict", "--spec", str(spec), "--no-progress"]
    )
    assert rescored.exit_code == 0, rescored.output
    labels = _labels_file(tmp_path, run_ids)
    before = runner.invoke(cli, ["judge", "calibrate", str(recorded), "--labels", str(labels)])
    assert "Cohen's kappa" in before.output and "0.600" in before.output
    after = runner.invoke(
        cli,
        ["judge", "calibrate", str(recorded), "--labels", str(labels), "--rescored", "verdict"],
    )
    assert after.exit_code == 0, after.output
    assert "Re-scored scores shown in place of the recorded ones: verdict@" in after.output
    assert "│ Cohen's kappa       │    1.000 │ [1.000, 1.000] │" in after.output
    stored = runner.invoke(
        cli, ["judge", "calibrate", str(recorded), "--labels", str(labels), "--store"]
    )
    assert stored.exit_code == 0, stored.output
    report = runner.invoke(
        cli, ["report", str(recorded), "--rescored", "verdict", "--fail-on", "kappa<0.9"]
    )
    assert report.exit_code == 0, report.output
    assert "│ Cohen's kappa       │    1.000 │" in report.output
