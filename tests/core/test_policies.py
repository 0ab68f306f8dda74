"""Policies: YAML forms, located errors, per-run evaluation and the run status."""

from __future__ import annotations

import asyncio
import re
import textwrap
from pathlib import Path

import pytest
from runtime_support import write_task_module

from autobench import PolicySpec, evaluate_run_policies
from autobench.core.runtime import run_benchmark_spec
from autobench.core.spec import SpecError, load_benchmark_spec
from autobench.records import (
    EvaluationStatus,
    ExperimentResult,
    ObservationRole,
    ObservationSource,
    RecordDirectoryWriter,
    RunRecord,
    RunStatus,
    TaskStatus,
    replay_experiment,
)

TASKS = """
def run_case(ctx, case):
    ctx.metric("latency", case.input["ms"], semantic_type="time.latency", unit="ms")
    ctx.metric("queue", case.input["queue"], semantic_type="support.queue")
    if "cost" in case.input:
        ctx.metric("cost", case.input["cost"], semantic_type="money.cost", unit="usd")
    return {"score": case.input["score"]}
"""


def _indent(text: str, spaces: int) -> str:
    return textwrap.indent(textwrap.dedent(text).strip("\n"), " " * spaces) + "\n"


CASES = """
- id: good
  input: {ms: 120, queue: billing, score: 0.95, cost: 0.001}
- id: bad
  input: {ms: 900, queue: spam, score: 0.7}
"""


def _spec_file(tmp_path: Path, policies: str, *, structured: bool = False) -> Path:
    module = write_task_module(tmp_path, TASKS)
    if structured:
        text = (
            "benchmark: {id: gate}\n"
            "dataset:\n  cases:\n"
            + _indent(CASES, 4)
            + f'task: {{kind: python, target: "{module}:run_case"}}\n'
            "variants: [{id: v1}]\n"
            "scoring:\n"
            "  - {kind: output, name: quality, path: output.score, semantic: quality.correctness}\n"
            "policies:\n" + _indent(policies, 2)
        )
    else:
        text = (
            "benchmark:\n  gate:\n    cases:\n"
            + _indent(CASES, 6)
            + f'    run: {{python: "{module}:run_case"}}\n'
            "    variants: {v1: {}}\n"
            "    score:\n"
            "      quality: {value: output.score, semantic: quality.correctness}\n"
            "    policies:\n" + _indent(policies, 6)
        )
    path = tmp_path / "autobench.yaml"
    path.write_text(text)
    return path


ALL_KINDS = """
- {name: q_ge, metric: quality.correctness, must_greater_equal: 0.9}
- {name: q_gt, metric: quality.score, must_greater: 0.9}
- {name: lat_le, metric: time.latency, unit: ms, must_less_equal: 500}
- {name: lat_lt, metric: time.latency, unit: s, must_less: 0.5}
- {name: raw, metric: time.latency, must_less: 200}
- {name: queue_in, metric: support.queue, must_in: [billing, account]}
- {name: queue_not_in, metric: support.queue, must_not_in: [spam]}
- {name: queue_eq, metric: support.queue, must_equal: billing}
- {name: queue_ne, metric: support.queue, must_not_equal: spam}
- {name: band_map, metric: time.latency, unit: ms, must_between: {min: 100, max: 500, inclusive: true}}
- {name: band_list, metric: time.latency, unit: s, must_between: [0.1, 0.5]}
- {name: cost_cap, metric: money.cost, must_less_equal: 0.002}
"""


def _run(path: Path, root: Path | None = None) -> ExperimentResult:
    spec = load_benchmark_spec(path)
    sink = None if root is None else RecordDirectoryWriter(root)
    return asyncio.run(run_benchmark_spec(spec, sink=sink))


def _policies(run: RunRecord) -> dict[str, tuple[bool, str | None]]:
    return {
        obs.name: (obs.value, obs.reason)
        for obs in run.observations
        if obs.semantic_type == "policy.result"
    }


@pytest.mark.parametrize("structured", [False, True], ids=["dsl", "structured"])
def test_every_requirement_kind_passes_and_fails(tmp_path: Path, structured: bool) -> None:
    path = _spec_file(tmp_path, ALL_KINDS, structured=structured)
    spec = load_benchmark_spec(path)
    assert [policy.name for policy in spec.policies][:2] == ["q_ge", "q_gt"]
    assert spec.policies[10].must_between is not None and spec.policies[10].must_between.max == 0.5
    good, bad = _run(path).runs
    assert {name: passed for name, (passed, _) in _policies(good).items()} == dict.fromkeys(
        ["q_ge", "q_gt", "lat_le", "lat_lt", "raw", "queue_in", "queue_not_in", "queue_eq", "queue_ne",
         "band_map", "band_list", "cost_cap"], True
    )  # fmt: skip
    assert not any(passed for passed, _ in _policies(bad).values())
    assert _policies(bad)["q_ge"][1] == "quality.correctness = 0.7, expected >= 0.9"
    assert _policies(good)["lat_le"][1] == "time.latency = 120.0 ms, expected <= 500 ms"
    assert _policies(bad)["lat_lt"][1] == "time.latency = 0.9 s, expected < 0.5 s"
    assert _policies(bad)["raw"][1] == "time.latency = 900, expected < 200"  # as recorded
    assert (
        _policies(bad)["queue_in"][1]
        == "support.queue = 'spam', expected one of ['billing', 'account']"
    )
    assert _policies(bad)["band_list"][1] == (
        "time.latency = 0.9 s, expected between 0.1 and 0.5 (inclusive) s"
    )
    # item 10: no money.cost on the run -> the cost policy does not pass
    assert _policies(bad)["cost_cap"] == (False, "missing_metric")


def test_policy_observation_shape_and_status(tmp_path: Path) -> None:
    path = _spec_file(tmp_path, "- {name: q_ge, metric: quality.score, must_greater_equal: 0.9}")
    good, bad = _run(path, tmp_path / "rec").runs
    obs = next(o for o in bad.observations if o.name == "q_ge")
    assert obs.id == "policy.q_ge"
    assert obs.value is False
    assert obs.role == ObservationRole.CONSTRAINT
    assert obs.source == ObservationSource.DERIVED
    assert obs.tags == {"metric": "quality.score", "requirement": "must_greater_equal"}
    assert (good.status, good.task_status, good.evaluation_status) == (
        RunStatus.PASSED,
        TaskStatus.PASSED,
        EvaluationStatus.PASSED,
    )
    assert (bad.status, bad.task_status, bad.evaluation_status) == (
        RunStatus.FAILED,
        TaskStatus.PASSED,
        EvaluationStatus.FAILED,
    )
    replayed = replay_experiment(tmp_path / "rec").runs[1]
    assert replayed.status == RunStatus.FAILED
    assert _policies(replayed) == _policies(bad)


def test_a_task_that_raises_gets_no_policy_results(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, "def boom(ctx, case):\n    raise RuntimeError('x')\n")
    (tmp_path / "autobench.yaml").write_text(
        f"""
benchmark:
  b:
    cases: [{{id: c}}]
    run: {{python: "{module}:boom"}}
    variants: {{v1: {{}}}}
    policies: [{{name: p, metric: money.cost, must_less: 1}}]
"""
    )
    (run,) = _run(tmp_path / "autobench.yaml").runs
    assert run.status == RunStatus.ERRORED and _policies(run) == {}


@pytest.mark.parametrize(
    ("policies", "message"),
    [
        (
            "- {name: p, metric: money.cost}",
            r"autobench.yaml:\d+:\d+: policy 'p' has no requirement",
        ),
        (
            "- {name: p, metric: money.cost, must_less: 1, must_greater: 0}",
            r"autobench.yaml:\d+:\d+: policy 'p' has more than one requirement "
            r"\(must_less, must_greater\)",
        ),
        (
            "- {name: p, metric: money.cost, must_les: 1}",
            r"unknown key 'must_les' in policy 'p'",
        ),
        (
            "- {name: p, metric: money.cost, must_between: {min: 2, max: 1}}",
            r"min 2 is greater than max 1",
        ),
        (
            "- {name: p, metric: money.cost, must_between: [1, 2, 3]}",
            r"needs \[min, max\]",
        ),
        (
            "- {name: p, metric: money.cost, must_less: 1}\n- {name: p, metric: x, must_less: 1}",
            r"duplicate policy name 'p'",
        ),
        ("- {name: p, metric: money.cost, must_less: cheap}", r"must_less"),
    ],
)
def test_policy_errors_are_located(tmp_path: Path, policies: str, message: str) -> None:
    path = _spec_file(tmp_path, policies)
    with pytest.raises(SpecError, match=message) as caught:
        load_benchmark_spec(path)
    assert re.search(r"autobench\.yaml:1[34]:\d+: ", str(caught.value))  # policies: line 13


def test_python_construction_requires_exactly_one_requirement() -> None:
    with pytest.raises(ValueError, match="exactly one requirement"):
        PolicySpec(name="p", metric="money.cost")
    with pytest.raises(ValueError, match="found must_less, must_in"):
        PolicySpec(name="p", metric="money.cost", must_less=1, must_in=[1])
    policy = PolicySpec(name="p", metric="result.success", must_equal=True)
    assert policy.holds(True) and not policy.holds(1)  # booleans are not numbers


def test_policies_checked_after_the_fact(tmp_path: Path) -> None:
    path = _spec_file(tmp_path, "- {name: q_ge, metric: quality.score, must_greater_equal: 0.9}")
    result = _run(path, tmp_path / "rec")
    replayed = replay_experiment(tmp_path / "rec")
    later = PolicySpec(name="fast", metric="time.latency", unit="ms", must_less=200)
    assert [o.value for o in evaluate_run_policies([later], replayed.runs[0])] == [True]
    assert [o.value for o in evaluate_run_policies([later], result.runs[1])] == [False]


@pytest.mark.parametrize("bound", ["true", ".nan", "abc"])
def test_a_numeric_bound_must_be_a_finite_number(tmp_path: Path, bound: str) -> None:
    path = _spec_file(
        tmp_path, f"- {{name: cap, metric: quality.correctness, must_less: {bound}}}\n"
    )
    with pytest.raises(SpecError) as caught:
        load_benchmark_spec(path)
    assert caught.value.line is not None and "must_less" in str(caught.value)
