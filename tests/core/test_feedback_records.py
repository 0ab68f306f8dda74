"""Optimization feedback from real recorded and replayed experiments."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from runtime_support import make_spec, write_task_module

import autobench
from autobench import build_feedback_records, build_optimization_feedback_input
from autobench.core.feedback import FailureCategory
from autobench.core.runtime import run_benchmark_spec
from autobench.records import RecordDirectoryWriter, RunStatus, load_run_record, replay_experiment

TASK = """
def run_case(ctx, case):
    mode = case.input["mode"]
    with ctx.span("plan", kind="agent"):
        pass
    if mode == "raise":
        with ctx.span("tool.search", kind="tool"):
            raise RuntimeError("search backend down")
    if mode == "error":
        ctx.error("quota exceeded", source="llm")
    if mode == "check":
        ctx.check("has_citation", False, reason="no citation in answer")
    if mode == "recovered":
        try:
            with ctx.span("retry", kind="tool"):
                raise TimeoutError("slow")
        except TimeoutError:
            pass
    return {"score": case.input["score"]}
"""

CASES = [
    {"id": "good", "input": {"mode": "ok", "score": 0.9}},
    {"id": "low", "input": {"mode": "ok", "score": 0.6}},
    {"id": "policy", "input": {"mode": "ok", "score": 0.2}},
    {"id": "check", "input": {"mode": "check", "score": 0.9}},
    {"id": "raise", "input": {"mode": "raise", "score": 0.9}},
    {"id": "error", "input": {"mode": "error", "score": 0.9}},
    {"id": "recovered", "input": {"mode": "recovered", "score": 0.95}},
]


@pytest.fixture
def record_dir(tmp_path: Path) -> Path:
    module = write_task_module(tmp_path, TASK)
    spec = make_spec(
        tmp_path,
        f"{module}:run_case",
        cases=CASES,
        variants=[{"id": "v1", "factors": {"model": "small", "temperature": 0.2}}],
        scoring=[
            {
                "kind": "output",
                "name": "quality",
                "path": "output.score",
                "semantic": "quality.score",
            }
        ],
        policies=[{"name": "q_min", "metric": "quality.score", "must_greater_equal": 0.5}],
    )
    root = tmp_path / "rec"
    asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(root)))
    return root


def _by_case(records: tuple[autobench.FeedbackRecord, ...]) -> dict[str, autobench.FeedbackRecord]:
    return {record.case_id: record for record in records}


def test_one_record_per_run_that_did_not_pass(record_dir: Path) -> None:
    records = _by_case(build_feedback_records(record_dir))
    assert set(records) == {"policy", "check", "raise", "error"}

    policy = records["policy"]
    assert policy.status == RunStatus.FAILED and not policy.passed
    assert policy.failure_categories == (FailureCategory.POLICY_VIOLATION,)
    assert policy.failure_category is FailureCategory.POLICY_VIOLATION
    assert policy.reasons == ("q_min: quality.score = 0.2, expected >= 0.5",)
    assert policy.factors == {"model": "small", "temperature": 0.2}
    assert policy.assets == {}
    assert [(s.name, s.value, s.semantic_type) for s in policy.scores] == [
        ("quality", 0.2, "quality.score")
    ]
    assert policy.input == {"mode": "ok", "score": 0.2} and policy.output == {"score": 0.2}
    assert policy.spans == ()  # nothing errored

    check = records["check"]
    assert check.failure_categories == (FailureCategory.ASSERTION_FAILURE,)
    assert check.reasons == ("has_citation: no citation in answer",)

    raised = records["raise"]
    assert raised.status == RunStatus.ERRORED
    assert raised.failure_category is FailureCategory.TASK_ERROR
    assert FailureCategory.SPAN_ERROR in raised.failure_categories
    assert raised.reasons[0] == "RuntimeError: search backend down"
    assert [(s.name, s.kind, s.status, s.error_message) for s in raised.spans] == [
        ("benchmark.run", "task", "error", "search backend down"),  # the run's root span
        ("tool.search", "tool", "error", "search backend down"),
    ]
    assert raised.errors[0].stage == "task" and raised.errors[0].type == "RuntimeError"

    error = records["error"]
    assert error.failure_categories == (FailureCategory.TASK_ERROR,)
    assert error.errors[0].stage == "context" and error.errors[0].source == "llm"


def test_passed_runs_have_no_failure_category(record_dir: Path) -> None:
    records = _by_case(build_feedback_records(record_dir, include_passed=True))
    assert len(records) == len(CASES)
    for case_id in ("good", "low", "recovered"):
        assert records[case_id].status == RunStatus.PASSED
        assert records[case_id].passed
        assert records[case_id].failure_categories == ()
        assert records[case_id].failure_category is None
        assert records[case_id].reasons == ()
    # a span error the task recovered from is context, not a failure
    assert [(s.name, s.error_type) for s in records["recovered"].spans] == [
        ("retry", "TimeoutError")
    ]


def test_low_score_threshold(record_dir: Path) -> None:
    result = replay_experiment(record_dir)
    records = _by_case(build_feedback_records(result, low_score_threshold=0.8))
    assert records["low"].failure_categories == (FailureCategory.LOW_SCORE,)
    assert records["low"].reasons == ("quality = 0.6 < 0.8",)
    assert records["low"].status == RunStatus.PASSED and not records["low"].passed
    assert "good" not in records
    by_semantic = _by_case(
        build_feedback_records(result, low_score_threshold={"quality.score": 0.95})
    )
    assert {"good", "low"} <= set(by_semantic)
    assert "recovered" not in by_semantic
    assert FailureCategory.LOW_SCORE in by_semantic["policy"].failure_categories


def test_optimization_feedback_input(record_dir: Path) -> None:
    result = replay_experiment(record_dir)
    feedback = build_optimization_feedback_input(record_dir)
    assert feedback.benchmark_id == "runtime-test"
    assert feedback.experiment_id == result.experiment_id
    assert feedback.dataset_hash == result.experiment.benchmark.dataset.hash
    assert feedback.runs == len(CASES)
    assert feedback.failures == {
        "policy_violation": 1,
        "assertion_failure": 1,
        "task_error": 2,
        "scorer_error": 1,
        "span_error": 1,
    }
    assert "quality.score" in feedback.semantics
    assert [r.case_id for r in feedback.records] == ["policy", "check", "raise", "error"]
    # a plain YAML/JSON-able payload for an optimizer
    dumped = feedback.model_dump(mode="json")
    assert dumped["records"][0]["failure_categories"] == ["policy_violation"]


def test_single_run_record_file(record_dir: Path) -> None:
    result = replay_experiment(record_dir)
    good = next(run for run in result.runs if run.case_id == "good")
    path = next(record_dir.glob("cases/good/*/run.yaml"))
    record = load_run_record(path)
    feedback = build_optimization_feedback_input(record, include_passed=True)
    assert feedback.experiment_id == good.experiment_id and feedback.runs == 1
    (only,) = feedback.records
    assert only.passed and only.failure_category is None and feedback.failures == {}


def test_asset_versions_when_the_record_has_them(record_dir: Path) -> None:
    # RunRecord has no ``assets`` section yet; a record that carries one is read in both forms
    run = next(r for r in replay_experiment(record_dir).runs if r.case_id == "policy")
    as_mapping = run.model_copy(update={"assets": {"prompt.router": "abc123"}})
    as_list = run.model_copy(update={"assets": [{"id": "prompt.router", "version": "abc123"}]})
    for record in (as_mapping, as_list):
        (feedback,) = build_feedback_records(record)
        assert feedback.assets == {"prompt.router": "abc123"}


def test_feedback_carries_the_asset_versions_a_run_attached(tmp_path: Path) -> None:
    module = write_task_module(
        tmp_path,
        """
        from autobench import track

        PROMPT = track.prompt("router.prompt", text="Route the ticket: {subject}")

        def run(ctx, case):
            ctx.attach_tracked_asset(PROMPT)
            ctx.check("routed", False, reason="no queue matched")
            return {}
        """,
    )
    root = tmp_path / "rec"
    asyncio.run(
        run_benchmark_spec(make_spec(tmp_path, f"{module}:run"), sink=RecordDirectoryWriter(root))
    )
    (record,) = autobench.build_feedback_records(root)
    (run,) = replay_experiment(root).runs
    assert run.asset_versions and all("router.prompt" in key for key in run.asset_versions)
    assert record.assets == {key: bound.version for key, bound in run.asset_versions.items()}


def test_the_documented_fields_of_a_feedback_record(record_dir: Path) -> None:
    """The fields the Feedback Records section lists: case_id, variant_id, score_name,
    semantic_type, score, passed, failure_category, reason, span."""
    records = _by_case(build_feedback_records(record_dir, include_passed=True))
    policy = records["policy"]
    assert (policy.case_id, policy.variant_id) == ("policy", policy.variant_id)
    assert (policy.score_name, policy.semantic_type, policy.score) == (
        "quality",
        "quality.score",
        0.2,
    )
    assert policy.passed is False and policy.failure_category is FailureCategory.POLICY_VIOLATION
    assert policy.reason == "q_min: quality.score = 0.2, expected >= 0.5"
    assert policy.span is None  # nothing errored, and the score names no span
    raised = records["raise"]
    assert raised.span == raised.spans[0].id and raised.reason == raised.reasons[0]
    good = records["good"]
    assert good.passed and good.failure_category is None and good.reason is None
