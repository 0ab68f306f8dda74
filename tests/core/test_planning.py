from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from autobench import BenchmarkSpec, Case, Variant, build_benchmark_plan, expand_matrix
from autobench.core.planning import dataset_hash, new_experiment_id, spec_hash


def _spec(
    case_ids: list[str], variant_ids: list[str], task: str | None = "tasks:run"
) -> BenchmarkSpec:
    return BenchmarkSpec(
        benchmark={"id": "plan-demo"},
        dataset={"cases": [Case(id=case_id) for case_id in case_ids]},
        variants=[Variant(id=variant_id) for variant_id in variant_ids],
        task=None if task is None else {"target": task},
    )


def test_matrix_is_case_major_in_declaration_order() -> None:
    plan = build_benchmark_plan(_spec(["b", "a"], ["v2", "v1"]))
    assert [(run.case_id, run.variant_id) for run in plan.runs] == [
        ("b", "v2"),
        ("b", "v1"),
        ("a", "v2"),
        ("a", "v1"),
    ]
    assert [run.run_id for run in plan.runs] == [
        "run_0000_b_v2",
        "run_0001_b_v1",
        "run_0002_a_v2",
        "run_0003_a_v1",
    ]
    assert (plan.case_count, plan.variant_count, plan.run_count) == (2, 2, 4)
    assert plan.warnings == ()


def test_run_ids_are_stable_across_plans_and_unique_for_odd_ids() -> None:
    ids = ["Refund/1", "refund_1", "refund 1", "ü", "..", "x" * 300]
    first = build_benchmark_plan(_spec(ids, ["a", "A"]))
    second = build_benchmark_plan(_spec(ids, ["a", "A"]))
    assert [run.run_id for run in first.runs] == [run.run_id for run in second.runs]
    assert len({run.run_id for run in first.runs}) == first.run_count
    assert len({run.path for run in first.runs}) == first.run_count
    assert all(re.fullmatch(r"run_\d{4}_[a-z0-9_]+_[a-z0-9_]+", run.run_id) for run in first.runs)


@given(
    st.lists(st.text(min_size=1, max_size=20), unique=True, max_size=8),
    st.lists(st.text(min_size=1, max_size=8), unique=True, min_size=1, max_size=4),
)
def test_expand_matrix_covers_every_pair_once(case_ids: list[str], variant_ids: list[str]) -> None:
    runs = expand_matrix([Case(id=c) for c in case_ids], [Variant(id=v) for v in variant_ids])
    assert [(run.case_id, run.variant_id) for run in runs] == [
        (c, v) for c in case_ids for v in variant_ids
    ]
    assert [run.index for run in runs] == list(range(len(runs)))
    assert len({run.path for run in runs}) == len(runs)


def test_warnings_for_plans_that_cannot_run() -> None:
    assert build_benchmark_plan(_spec(["a"], ["v"], task=None)).warnings == (
        "no task is set (run.python or task.target): the plan can be validated but not run",
    )
    assert "no cases" in build_benchmark_plan(_spec([], ["v"])).warnings[0]


def test_hashes_depend_on_content_only() -> None:
    assert spec_hash(_spec(["a"], ["v"])) == spec_hash(_spec(["a"], ["v"]))
    assert spec_hash(_spec(["a"], ["v"])) != spec_hash(_spec(["b"], ["v"]))
    assert dataset_hash([Case(id="a", input={"x": 1})]) != dataset_hash(
        [Case(id="a", input={"x": 2})]
    )


def test_experiment_ids_are_unique_and_readable() -> None:
    first, second = new_experiment_id("Support Routing"), new_experiment_id("Support Routing")
    assert first != second
    assert re.fullmatch(r"exp_support_routing_\d{8}T\d{6}Z_[0-9a-f]{4}", first)
