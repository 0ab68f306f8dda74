"""Calibration of recorded scores against human labels, on a real record directory (see
``calibration_support`` for the experiment and the figures worked out by hand)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from calibration_support import GRADES, record, verdict_labels_yaml

from autobench.records import (
    LABELS_FILE,
    Label,
    LabelsError,
    LabelsFile,
    load_input,
    read_labels,
    replay_experiment,
    write_labels,
)
from autobench.report import CalibrationError, build_report, calibrate
from autobench.report._agreement import weighted_kappa
from autobench.report._export_markdown import render_markdown
from autobench.report._export_yaml import report_document
from autobench.report._html import render_html

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return record(tmp_path_factory.mktemp("calibration"))


@pytest.fixture(scope="module")
def run_ids(recorded: Path) -> dict[str, str]:
    return {run.case_id: run.run_id for run in replay_experiment(recorded).runs}


def _labels(tmp_path: Path, run_ids: dict[str, str]) -> LabelsFile:
    path = tmp_path / "labels.yaml"
    path.write_text(verdict_labels_yaml(run_ids), encoding="utf-8")
    return read_labels(path)


def test_pass_fail_calibration_by_hand(
    recorded: Path, run_ids: dict[str, str], tmp_path: Path
) -> None:
    result = replay_experiment(recorded, evidence_only=True)
    calibration = calibrate(result, _labels(tmp_path, run_ids), "verdict")
    assert calibration.scale == "pass/fail"
    assert calibration.items == 10
    assert calibration.categories == ("fail", "pass")
    assert calibration.confusion == ((4, 1), (1, 4))
    estimates = {item.name: item.estimate for item in calibration.statistics}
    assert estimates == pytest.approx({"accuracy": 0.8, "kappa": 0.6, "tpr": 0.8, "fpr": 0.2})
    for item in calibration.statistics:
        assert item.low is not None and item.high is not None
        assert item.low <= item.estimate <= item.high
    # nothing dropped in silence: the unlabelled run and the label of no run are listed
    assert calibration.unlabelled_runs == (run_ids["c11"],)
    assert calibration.unknown_labels == ("run no-such-run",)
    assert calibration.ambiguous_labels == calibration.unscored_runs == ()
    # seeded: the same labels give the same intervals
    again = calibrate(result, _labels(tmp_path, run_ids), "verdict")
    assert again == calibration


def test_integer_scale_keeps_unused_middle_categories(
    recorded: Path, run_ids: dict[str, str]
) -> None:
    """People and the judge use grades 1 and 3 only; grade 2 still sits between them, so a
    1-vs-3 disagreement counts as two steps."""
    result = replay_experiment(recorded, evidence_only=True)
    human = {
        case: (3 if grade == 1 else 1) if case in {"c1", "c8"} else grade
        for case, grade in GRADES.items()
    }
    labels = LabelsFile(
        labels=tuple(Label(run_id=run_ids[case], label=str(value)) for case, value in human.items())
    )
    calibration = calibrate(result, labels, "grade")
    assert calibration.scale == "integer"
    assert calibration.categories == ("1", "2", "3")
    # judge 1 on c1, c2, c6, c7, c9, c11; 3 on c3, c4, c5, c8, c10; people swap c1 and c8
    assert calibration.confusion == ((5, 0, 1), (0, 0, 0), (1, 0, 4))
    names = [item.name for item in calibration.statistics]
    assert names == ["accuracy", "kappa", "kappa_linear", "kappa_quadratic"]
    linear = calibration.statistic("kappa_linear")
    assert linear is not None
    assert linear.estimate == pytest.approx(
        float(weighted_kappa([[5, 0, 1], [0, 0, 0], [1, 0, 4]], "linear"))
    )
    # with only the two ends used, every disagreement is the full distance: all three
    # kappas agree; by hand p_o = 9/11, p_e = (6*6 + 5*5)/121 = 61/121, kappa = 38/60
    for name in ("kappa", "kappa_linear", "kappa_quadratic"):
        item = calibration.statistic(name)
        assert item is not None and item.estimate == pytest.approx(38 / 60)


def test_labels_scale_and_case_variant_labels(recorded: Path) -> None:
    result = replay_experiment(recorded, evidence_only=True)
    labels = LabelsFile(
        labels=(
            Label(case="c1", variant="base", label="kind"),
            Label(case="c2", variant="base", label="kind"),
            Label(case="c3", variant="base", label="kind"),
        )
    )
    calibration = calibrate(result, labels, "tone")
    assert calibration.scale == "labels"
    assert calibration.categories == ("curt", "kind")
    assert calibration.confusion == ((0, 0), (1, 2))
    assert calibration.statistic("kappa_linear") is None
    assert calibration.statistic("tpr") is None
    assert len(calibration.unlabelled_runs) == 8


def test_labels_that_cannot_be_compared(recorded: Path, run_ids: dict[str, str]) -> None:
    result = replay_experiment(recorded, evidence_only=True)
    with pytest.raises(
        CalibrationError,
        match="no run has a value of score 'nope'; scores recorded: grade, tone, verdict",
    ):
        calibrate(result, LabelsFile(), "nope")
    with pytest.raises(
        CalibrationError, match=r"run .*c2_base: the label 'maybe' is not pass/fail"
    ):
        calibrate(
            result, LabelsFile(labels=(Label(run_id=run_ids["c2"], label="maybe"),)), "verdict"
        )
    with pytest.raises(CalibrationError, match="two labels for run"):
        calibrate(
            result,
            LabelsFile(
                labels=(
                    Label(run_id=run_ids["c1"], label=True),
                    Label(case="c1", variant="base", label=False),
                )
            ),
            "verdict",
        )
    with pytest.raises(CalibrationError, match="labels are for score 'grade', not 'verdict'"):
        calibrate(result, LabelsFile(score="grade"), "verdict")


def test_report_shows_the_stored_calibration(
    recorded: Path, run_ids: dict[str, str], tmp_path: Path
) -> None:
    result = replay_experiment(recorded, evidence_only=True)
    assert build_report(result).calibrations == ()
    stored = recorded / LABELS_FILE
    write_labels(stored, _labels(tmp_path, run_ids))
    try:
        report = build_report(replay_experiment(recorded, evidence_only=True))
        (calibration,) = report.calibrations
        assert (calibration.score, calibration.labels_file) == ("verdict", LABELS_FILE)
        document = report_document(report)
        assert document["calibration"]["verdict"]["confusion"] == {
            "fail": {"fail": 4, "pass": 1},
            "pass": {"fail": 1, "pass": 4},
        }
        assert document["calibration"]["verdict"]["statistics"]["kappa"][
            "estimate"
        ] == pytest.approx(0.6)
        markdown = render_markdown(report)
        assert (
            "## Calibration of verdict (pass/fail) against 10 human label(s) from labels.yaml"
            in markdown
        )
        assert "| Cohen's kappa | 0.600 | [" in markdown
        assert (
            "| person vs verdict | fail | pass |\n| --- | --- | --- |\n| fail | 4 | 1 |\n| pass | 1 | 4 |"
            in markdown
        )
        assert "- 1 label(s) for no run of the record: run no-such-run" in markdown
        page = render_html(report, replay_experiment(recorded))
        assert "<h2>Calibration of verdict (pass/fail) against 10 human label(s)" in page
        assert "<th>person vs verdict</th>" in page
        assert '<td>fail</td><td class="num">4</td><td class="num">1</td>' in page
        # a labels file that cannot be used is a diagnostic, never a failed report
        stored.write_text("labels:\n  - {label: true}\n", encoding="utf-8")
        report = build_report(replay_experiment(recorded, evidence_only=True))
        assert report.calibrations == ()
        assert any("labels not used" in line for line in report.diagnostics)
    finally:
        stored.unlink()


def test_labels_files_round_trip_and_locate_problems(tmp_path: Path) -> None:
    labels = LabelsFile(
        score="verdict",
        labels=(
            Label(run_id="r1", label=True, labeller="ana", note="fine"),
            Label(case="c2", variant="base", label=3),
            Label(run_id="r3", label="kind"),
        ),
    )
    path = tmp_path / "labels.yaml"
    write_labels(path, labels)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=")
    assert "record:\n  type: labels\n  version: 1\n" in text
    assert read_labels(path) == labels
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind
    bare = tmp_path / "bare.yaml"
    bare.write_text("- {run_id: r1, label: pass}\n", encoding="utf-8")
    assert read_labels(bare).labels == (Label(run_id="r1", label="pass"),)
    sheet = tmp_path / "sheet.csv"
    sheet.write_text(
        'run_id,output,label,labeller,note\nr1,"a, b",pass,ana,\nr2,x,,,\n,,fail,,\n',
        encoding="utf-8",
    )
    with pytest.raises(LabelsError, match=r"sheet.csv: line 4: a label names its run"):
        read_labels(sheet)
    sheet.write_text("run_id,label\nr1,pass\nr2,\n", encoding="utf-8")
    assert read_labels(sheet).labels == (Label(run_id="r1", label="pass"),)
    broken = tmp_path / "broken.yaml"
    broken.write_text("labels:\n  - {run_id: r1}\n", encoding="utf-8")
    with pytest.raises(LabelsError, match=r"broken.yaml: label 1: label: Field required"):
        read_labels(broken)


def test_labels_files_match_their_json_schema(tmp_path: Path) -> None:
    """``schemas/labels.schema.json`` accepts what Autobench writes and what a person types
    without the header, and rejects a label without its run or value."""
    schema = json.loads((ROOT / "schemas" / "labels.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    path = tmp_path / "labels.yaml"
    write_labels(
        path,
        LabelsFile(score="verdict", labels=(Label(run_id="r1", label=True, note="ok"),)),
    )
    assert list(validator.iter_errors(load_input(path.read_text(encoding="utf-8")))) == []
    typed = {"score": "grade", "labels": [{"case": "c1", "variant": "base", "label": 4}]}
    assert list(validator.iter_errors(typed)) == []
    assert list(validator.iter_errors({"labels": [{"run_id": "r1"}]}))
    assert list(validator.iter_errors({"labels": [{"run_id": "r1", "label": True, "x": 1}]}))


def test_labels_file_versions(tmp_path: Path) -> None:
    path = tmp_path / "labels.yaml"
    path.write_text("record: {type: labels, version: 2}\nlabels: []\n", encoding="utf-8")
    with pytest.raises(LabelsError, match="labels version 2 is newer than this Autobench reads"):
        read_labels(path)
    path.write_text("record: {type: run, version: 1}\nlabels: []\n", encoding="utf-8")
    with pytest.raises(LabelsError, match="not a labels file"):
        read_labels(path)
