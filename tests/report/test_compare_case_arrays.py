"""A comparison's per-case values are float64 arrays: the values each case's runs give by
the rule (the mean of its runs' numbers, their sum for a ``sum`` row; a case without any
has none), paired where both sides have one, on a real benchmark with and without repeats,
missing values, negative zeros and infinities."""

from __future__ import annotations

import math
from typing import Any

import pytest
from report_support import RunBench

from autobench.report._compare import Side, _paired_values
from autobench.report._metrics import MetricTable
from autobench.report._model import MetricColumn

TASK = """
VALUES = {
    "c1": {"a": 1.5, "b": 2.0},
    "c2": {"a": -0.0, "b": 0.0},
    "c3": {"a": None, "b": 4},
    "c4": {"a": 3, "b": None},
    "c5": {"a": float("inf"), "b": 7.25},
    "c6": {"a": True, "b": False},
}

def run(ctx, case):
    value = VALUES[case.id][ctx.factor("mode")]
    if value is not None:
        ctx.metric("m", value, semantic_type="workload.size")
    return None
"""

VARIANTS = [{"id": "a", "factors": {"mode": "a"}}, {"id": "b", "factors": {"mode": "b"}}]


def _by_hand(table: MetricTable, side: Side, cases: list[str], fn: str) -> list[Any]:
    by_run = table.values("workload.size").by_run
    out: list[Any] = []
    for case in cases:
        numbers = [float(by_run[i]) for i in side.cases[case] if by_run[i] is not None]
        if not numbers:
            out.append(None)
        elif fn == "sum":
            out.append(math.fsum(numbers))
        else:
            out.append(sum(numbers) / len(numbers))
    return out


def _same(left: list[float], right: list[float]) -> bool:
    return [(x, math.copysign(1.0, x)) for x in left] == [(x, math.copysign(1.0, x)) for x in right]


@pytest.mark.parametrize("fn", ["mean", "sum"])
def test_paired_case_values_follow_the_rule(run_bench: RunBench, fn: str) -> None:
    cases = [{"id": f"c{i}"} for i in range(1, 7)]
    result = run_bench(TASK, cases=cases, variants=VARIANTS)
    table = MetricTable(result)
    base, cand = Side.of(table, "a"), Side.of(table, "b")
    case_ids = list(table.cases)
    item = MetricColumn(name="m", semantic_type="workload.size", fn=fn)
    paired = _paired_values(base, cand, item, case_ids)
    assert paired is not None
    before, after, _ = paired
    expected = [
        (b, a)
        for b, a in zip(
            _by_hand(table, base, case_ids, fn), _by_hand(table, cand, case_ids, fn), strict=True
        )
        if b is not None and a is not None
    ]
    assert len(expected) == 4  # c3 and c4 have a value on one side only
    assert _same(before.tolist(), [b for b, _ in expected])
    assert _same(after.tolist(), [a for _, a in expected])
    assert before.tolist()[0:3] == [1.5, 0.0, math.inf]
