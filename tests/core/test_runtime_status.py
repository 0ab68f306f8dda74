"""The status rule, rule by rule, with real tasks and real scorers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runtime_support import make_spec, run, write_task_module

from autobench.records import EvaluationStatus, ObservationRole, RunRecord, RunStatus, TaskStatus

TASKS = """
def ok(ctx, case):
    return {"ok": True, "value": 2, "score": 0}

def not_ok(ctx, case):
    return {"ok": False, "value": 3, "score": 0}

def raises(ctx, case):
    ctx.metric("before", 1)
    ctx.artifact("kept", {"a": 1})
    raise ValueError("task broke")

def reports_error(ctx, case):
    ctx.error("degraded")
    return {"ok": True, "value": 2}

def failed_check(ctx, case):
    ctx.check("format", False, reason="not json")
    return {"ok": True, "value": 2}

def zero_objective(ctx, case):
    ctx.metric("quality", 0, role="objective")
    ctx.diagnostic("retries", 0)
    ctx.outcome(False)
    return {"ok": True, "value": 2}

def zero_constraint(ctx, case):
    ctx.metric("budget_left", 0, role="constraint")
    return {"ok": True, "value": 2}
"""

PASS = {"kind": "pass_fail", "name": "ok", "path": "output.ok"}
EXACT = {
    "kind": "exact",
    "name": "correct",
    "actual": "output.value",
    "expected": "case.expected.value",
}


def _record(tmp_path: Path, task: str, scoring: list[dict[str, Any]]) -> RunRecord:
    module = write_task_module(tmp_path, TASKS)
    return run(make_spec(tmp_path, f"{module}:{task}", scoring=scoring)).runs[0]


def _statuses(record: RunRecord) -> tuple[TaskStatus, EvaluationStatus, RunStatus]:
    return record.task_status, record.evaluation_status, record.status


def test_all_good_passes(tmp_path: Path) -> None:
    record = _record(tmp_path, "ok", [PASS, EXACT])
    assert _statuses(record) == (TaskStatus.PASSED, EvaluationStatus.PASSED, RunStatus.PASSED)
    ok, correct = record.scores
    assert (ok.value, ok.role) == (True, ObservationRole.CONSTRAINT)
    assert (correct.value, correct.role, correct.actual_value, correct.expected_value) == (
        1.0,
        ObservationRole.OBJECTIVE,
        2,
        2,
    )


def test_raising_task_is_errored_still_scores_and_keeps_evidence(tmp_path: Path) -> None:
    record = _record(tmp_path, "raises", [PASS])
    # The scorers run on the errored run: `pass: output.ok` cannot resolve on a None
    # output, so its error is recorded and the evaluation errors, but the run was
    # already errored by the task and stays so.
    assert _statuses(record) == (TaskStatus.ERRORED, EvaluationStatus.ERRORED, RunStatus.ERRORED)
    (score,) = record.scores
    assert score.value is None and score.error is not None and "MissingPathError" in score.error
    task_error, scorer_error = record.errors
    assert (task_error.stage, task_error.type, task_error.message) == (
        "task",
        "ValueError",
        "task broke",
    )
    assert task_error.traceback is not None and "raise ValueError" in task_error.traceback
    assert (scorer_error.stage, scorer_error.source) == ("scorer", "ok")
    assert [o.name for o in record.observations] == ["before"]
    assert [a.name for a in record.artifacts] == ["kept"]


def test_ctx_error_without_raise_is_task_failed(tmp_path: Path) -> None:
    record = _record(tmp_path, "reports_error", [PASS])
    assert _statuses(record) == (TaskStatus.FAILED, EvaluationStatus.PASSED, RunStatus.FAILED)
    assert record.scores[0].value is True


def test_false_pass_score_fails_evaluation(tmp_path: Path) -> None:
    record = _record(tmp_path, "not_ok", [PASS])
    assert _statuses(record) == (TaskStatus.PASSED, EvaluationStatus.FAILED, RunStatus.FAILED)


def test_zero_exact_score_is_objective_and_does_not_fail(tmp_path: Path) -> None:
    record = _record(tmp_path, "not_ok", [EXACT])
    assert record.scores[0].value == 0.0
    assert _statuses(record) == (TaskStatus.PASSED, EvaluationStatus.PASSED, RunStatus.PASSED)


def test_exact_with_constraint_role_fails_on_zero(tmp_path: Path) -> None:
    record = _record(tmp_path, "not_ok", [{**EXACT, "role": "constraint"}])
    assert _statuses(record) == (TaskStatus.PASSED, EvaluationStatus.FAILED, RunStatus.FAILED)


def test_failed_check_fails_evaluation(tmp_path: Path) -> None:
    record = _record(tmp_path, "failed_check", [])
    assert _statuses(record) == (TaskStatus.PASSED, EvaluationStatus.FAILED, RunStatus.FAILED)


def test_zero_constraint_metric_fails_evaluation(tmp_path: Path) -> None:
    record = _record(tmp_path, "zero_constraint", [])
    assert record.status is RunStatus.FAILED


def test_objective_and_diagnostic_zeros_never_fail(tmp_path: Path) -> None:
    record = _record(
        tmp_path, "zero_objective", [{"kind": "output", "name": "score", "path": "output.value"}]
    )
    assert _statuses(record) == (TaskStatus.PASSED, EvaluationStatus.PASSED, RunStatus.PASSED)


def test_missing_path_scorer_errors_the_run(tmp_path: Path) -> None:
    scorer = {
        "kind": "output",
        "name": "bad",
        "path": "output.not_here",
        "semantic": "quality.score",
        "unit": "pts",
    }
    record = _record(tmp_path, "ok", [scorer, PASS])
    assert _statuses(record) == (TaskStatus.PASSED, EvaluationStatus.ERRORED, RunStatus.ERRORED)
    bad, ok = record.scores
    assert (
        bad.value is None
        and bad.error is not None
        and "MissingPathError" in bad.error
        and "not_here" in bad.error
    )
    assert (bad.semantic_type, bad.unit, bad.role) == (
        "quality.score",
        "pts",
        ObservationRole.OBJECTIVE,
    )
    assert ok.value is True
    (error,) = record.errors
    assert (error.stage, error.type, error.source) == ("scorer", "MissingPathError", "bad")


def test_optional_scorer_error_does_not_affect_status(tmp_path: Path) -> None:
    scorer = {"kind": "output", "name": "debug", "path": "output.debug.score", "optional": True}
    record = _record(tmp_path, "ok", [scorer, PASS])
    assert _statuses(record) == (TaskStatus.PASSED, EvaluationStatus.PASSED, RunStatus.PASSED)
    assert record.scores[0].error is not None and record.scores[0].optional is True
    assert record.errors[0].stage == "scorer"


def test_scorer_fields_fill_plain_return_values(tmp_path: Path) -> None:
    scorer = {
        "kind": "output",
        "name": "s",
        "path": "output.value",
        "semantic": "quality.score",
        "goal": "maximize",
    }
    record = _record(tmp_path, "ok", [scorer])
    score = record.scores[0]
    assert (score.name, score.value, score.semantic_type, score.direction, score.role) == (
        "s",
        2,
        "quality.score",
        "maximize",
        ObservationRole.OBJECTIVE,
    )
