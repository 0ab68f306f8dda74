"""RunRows: the report's per-run rows held as columns give back the rows they stand for."""

from __future__ import annotations

from autobench.records import ErrorLocation, RunStatus, StatusCounts
from autobench.report import Report, RunMetricRow
from autobench.report._run_row_table import RunRows

ROWS = (
    RunMetricRow(
        run_id="r1",
        case_id="c1",
        variant_id="a",
        status=RunStatus.PASSED,
        task_status="passed",
        evaluation_status="passed",
        metrics={"quality.score": 0.5, "time.latency": 1.25},
        record_path="cases/c1/a/run.yaml",
    ),
    RunMetricRow(
        run_id="r2",
        case_id="c1",
        variant_id="b",
        status=RunStatus.ERRORED,
        task_status="errored",
        evaluation_status="skipped",
        metrics={"time.latency": 2.0, "quality.score": None, "result.success": False},
        policies={"fast": False},
        reason="ValueError: boom",
        location=ErrorLocation(file="task.py", line=3, function="run"),
        traceback_key="errors[0].traceback",
    ),
)


def test_run_rows_of_models_give_back_each_model_and_their_columns() -> None:
    rows = RunRows.of(ROWS)
    assert len(rows) == 2
    assert rows[0] == ROWS[0] and rows[1] == ROWS[1] and rows[-1] == ROWS[1]
    assert list(rows) == list(ROWS) and rows == ROWS and rows[0:1] == ROWS[0:1]
    assert list(rows[1].metrics) == ["time.latency", "quality.score", "result.success"]
    assert list(rows.values("quality.score")) == [0.5, None]
    assert list(rows.values("money.cost")) == [None, None]
    assert rows.policy_values("fast") == [None, False]
    assert [rows.reason(0), rows.reason(1)] == [None, "ValueError: boom"]
    assert rows.statuses[1] is RunStatus.ERRORED and rows.record_path("r1") == ROWS[0].record_path


def test_a_report_validated_from_rows_holds_them_as_columns() -> None:
    report = Report(
        benchmark="b", experiment="e", runs=2, planned=2, status=StatusCounts(), run_rows=ROWS
    )
    assert isinstance(report.run_rows, RunRows) and report.run_rows == ROWS
    assert (
        Report(benchmark="b", experiment="e", runs=0, planned=0, status=StatusCounts()).run_rows
        == ()
    )
