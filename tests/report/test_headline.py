"""The headline: per comparison one line per objective, cost and latency with the delta, its
interval and the verdict, then the Pareto front; built from a real run whose values are
known exactly, and the same model for a comparison of two experiments."""

from __future__ import annotations

import pytest
from report_support import RunBench

from autobench.records import ExperimentResult
from autobench.report import build_report, compare_experiments
from autobench.report._headline_text import headline_lines, quantity

# 8 cases. "sage" answers every case correctly, "swift" only the even ones; sage costs ten
# times as much per case, and takes 100 ms longer; "slow" is as correct as swift but costs
# and takes more than sage: both other variants beat it.
TASK = """
def run(ctx, case):
    model = ctx.factor("model")
    index = case.input["index"]
    correct = model == "sage" or index % 2 == 0
    ctx.metric("correctness", 1.0 if correct else 0.0, semantic_type="quality.correctness",
               direction="maximize", role="objective")
    cost = {"swift": 0.0002, "sage": 0.002, "slow": 0.003}[model] * (1 + index / 100)
    ctx.metric("cost", cost, semantic_type="money.cost", unit="usd")
    latency = {"swift": 200, "sage": 300, "slow": 900}[model] + index
    ctx.metric("latency", latency, semantic_type="time.latency", unit="ms")
    return {}
"""
CASES = [{"id": f"c{index}", "input": {"index": index}} for index in range(8)]
VARIANTS = [
    {"id": "swift", "factors": {"model": "swift"}},
    {"id": "sage", "factors": {"model": "sage"}},
    {"id": "slow", "factors": {"model": "slow"}},
]
COMPARE = {"comparisons": [{"baseline": "swift", "candidate": "sage"}]}


@pytest.fixture
def result(run_bench: RunBench) -> ExperimentResult:
    return run_bench(TASK, cases=CASES, variants=VARIANTS, reports=COMPARE)


def test_each_objective_cost_and_latency_get_one_line(result: ExperimentResult) -> None:
    headline = build_report(result).headline
    (comparison,) = headline.comparisons
    assert (comparison.baseline, comparison.candidate, comparison.paired_cases) == (
        "swift",
        "sage",
        8,
    )
    kinds = [(item.kind, item.semantic_type, item.fn) for item in comparison.items]
    assert kinds == [
        ("quality", "quality.correctness", "mean"),
        ("cost", "money.cost", "mean"),
        ("latency", "time.latency", "median"),
    ]
    quality, cost, latency = comparison.items
    assert quality.delta == pytest.approx(0.5)
    assert quality.verdict is not None and quality.ci_low is not None
    assert cost.ratio == pytest.approx(10.0)
    assert latency.delta == pytest.approx(0.1)  # seconds, the canonical unit
    lines = headline_lines(headline)
    assert lines[0] == "swift -> sage (8 paired cases, 95% intervals)"
    assert lines[1].startswith("  quality.correctness +0.50 [")
    assert lines[2].startswith("  cost x10.0 (+$0.0019 a case) [")
    assert lines[3].startswith("  latency +100 ms")


def test_the_pareto_front_names_who_beats_whom(result: ExperimentResult) -> None:
    front = build_report(result).headline.pareto
    assert front is not None
    assert [axis.kind for axis in front.axes] == ["quality", "cost", "latency"]
    assert front.front == ("swift", "sage")  # cheaper and faster / more correct
    # swift: as correct as slow, cheaper and faster; sage: better on every axis
    assert front.dominated == {"slow": ("swift", "sage")}
    assert headline_lines(build_report(result).headline)[-1] == (
        "Pareto front (quality.correctness, cost, latency): swift, sage; "
        "slow is beaten by swift, sage"
    )


def test_a_comparison_of_two_experiments_has_the_same_headline(
    result: ExperimentResult, run_bench: RunBench
) -> None:
    again = run_bench(TASK, cases=CASES, variants=VARIANTS, reports=COMPARE)
    compared = compare_experiments(result, again)
    assert [item.baseline for item in compared.headline.comparisons] == [
        "baseline/swift",
        "baseline/sage",
        "baseline/slow",
    ]
    assert compared.headline.pareto is None
    for comparison in compared.headline.comparisons:
        assert [item.delta for item in comparison.items] == [0, 0, 0]


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (0.0018, "usd", "+$0.0018"),
        (-0.25, "s", "-250 ms"),
        (1.5, "s", "+1.5 s"),
        (12345.0, "tokens", "+12,345 tokens"),
        (0.0, None, "0"),
        (0.4, None, "+0.40"),
    ],
)
def test_quantities_read_as_people_write_them(value: float, unit: str | None, text: str) -> None:
    assert quantity(value, unit, signed=True) == text


def test_a_comparison_without_a_median_latency_uses_the_one_it_has(run_bench: RunBench) -> None:
    """Configured metrics decide: a p95 latency and a total cost are headline items, named by
    their columns (not as if they were the median latency and the cost of a case)."""
    metrics = [
        {"name": "correctness", "semantic_type": "quality.correctness", "fn": "mean"},
        {"name": "latency p95", "semantic_type": "time.latency", "fn": "p95"},
        {"name": "cost total", "semantic_type": "money.cost", "fn": "sum"},
    ]
    reports = {"comparisons": [{"baseline": "swift", "candidate": "sage", "metrics": metrics}]}
    result = run_bench(TASK, cases=CASES, variants=VARIANTS, reports=reports)
    (comparison,) = build_report(result).headline.comparisons
    assert [(item.kind, item.fn) for item in comparison.items] == [
        ("quality", "mean"),
        ("cost", "sum"),
        ("latency", "p95"),
    ]
    lines = headline_lines(build_report(result).headline)
    assert lines[2].startswith("  cost total x10.0 (+$0.015 in total)")
    assert lines[3].startswith("  latency p95 +100 ms")
