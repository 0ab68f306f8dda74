"""Run-against-run diff over real records: two variants whose tasks call different tools,
spend different tokens and answer differently; a run diffed with itself; swapped sides."""

from __future__ import annotations

import gc
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from report_support import RunBench

from autobench.abp import SpanRecord, Trace
from autobench.records import ExperimentResult, RunRecord
from autobench.report import DiffStatus, RunDiff, StepOp, ToolCall, diff_runs, run_diff_lines
from autobench.report._run_diff import align_tools

AGENT_TASK = """
from autobench import SpanKind

def run(ctx, case):
    tools = ctx.factor("tools")
    with ctx.span("agent", kind=SpanKind.AGENT, attributes={"model": ctx.factor("model")}):
        with ctx.span("plan", kind=SpanKind.LLM,
                      usage={"input_tokens": ctx.factor("tokens"), "output_tokens": 7}):
            pass
        for name in tools:
            with ctx.span(name, kind=SpanKind.TOOL, input={"q": case.input["q"], "tool": name}):
                pass
    tokens = ctx.factor("tokens")
    ctx.metric("prompt", tokens, semantic_type="llm.tokens.input", unit="tokens")
    ctx.metric("cost", tokens / 10_000, semantic_type="money.cost", unit="usd")
    return {"answer": case.input["q"] * len(tools), "steps": list(tools)}
"""
VARIANTS = [
    {"id": "base", "factors": {"model": "a", "tokens": 100, "tools": ["search", "read", "read"]}},
    {
        "id": "cand",
        "factors": {"model": "b", "tokens": 140, "tools": ["search", "fetch", "read", "write"]},
    },
]
SCORERS = [
    {"kind": "output", "name": "answer", "path": "output.answer", "semantic": "quality.score"},
    {"kind": "output", "name": "steps", "path": "output.steps"},
]


@pytest.fixture
def result(run_bench: RunBench) -> ExperimentResult:
    return run_bench(
        AGENT_TASK, cases=[{"id": "c1", "input": {"q": 2}}], variants=VARIANTS, scoring=SCORERS
    )


def _runs(result: ExperimentResult) -> tuple[RunRecord, RunRecord]:
    by_variant = {run.variant_id: run for run in result.runs}
    return by_variant["base"], by_variant["cand"]


def _paths(diff: RunDiff) -> dict[tuple[str, ...], DiffStatus]:
    return {diff.span_path(span.index): span.status for span in diff.spans}


def test_span_trees_are_aligned_by_path(result: ExperimentResult) -> None:
    base, cand = _runs(result)
    diff = diff_runs(base, cand)
    root, agent = ("benchmark.run[task]",), ("benchmark.run[task]", "agent[agent]")
    assert _paths(diff) == {
        root: DiffStatus.CHANGED,
        agent: DiffStatus.CHANGED,
        (*agent, "plan[llm]"): DiffStatus.CHANGED,
        (*agent, "search[tool]"): DiffStatus.SAME,
        (*agent, "fetch[tool]"): DiffStatus.ADDED,
        (*agent, "read[tool]"): DiffStatus.SAME,
        (*agent, "read[tool]#1"): DiffStatus.REMOVED,
        (*agent, "write[tool]"): DiffStatus.ADDED,
    }
    # pre-order, matched siblings in the left's order, right-only ones where the right has them
    assert [span.operation for span in diff.spans] == [
        "benchmark.run", "agent", "plan", "search", "fetch", "read", "read", "write"
    ]  # fmt: skip
    assert diff.span_counts == {"added": 2, "removed": 1, "changed": 3, "same": 2}
    # the task's metrics are linked to the root span: it carries the run's tokens and cost
    assert diff.spans[0].changes == ("tokens", "cost")
    assert diff.spans[0].metric_deltas["input_tokens"] == 40
    (agent_node,) = [span for span in diff.spans if span.operation == "agent"]
    assert agent_node.changes == ("attributes",)
    (attribute,) = agent_node.attributes
    assert (attribute.key, attribute.left, attribute.right) == ("model", "a", "b")
    plan = next(span for span in diff.spans if span.operation == "plan")
    assert plan.changes == ("tokens",)
    assert plan.metric_deltas == {"input_tokens": 40, "output_tokens": 0}
    assert plan.left is not None and plan.left.metrics == {"input_tokens": 100, "output_tokens": 7}
    assert plan.duration_delta is not None
    assert all(span.parent is None or span.parent < span.index for span in diff.spans)
    added = next(span for span in diff.spans if span.status is DiffStatus.ADDED)
    assert added.left is None and added.right is not None and added.duration_delta is None


def test_tool_calls_side_by_side(result: ExperimentResult) -> None:
    base, cand = _runs(result)
    diff = diff_runs(base, cand)
    assert [call.name for call in diff.left_tools] == ["search", "read", "read"]
    assert diff.right_tools[1].arguments == {"q": 2, "tool": "fetch"}
    rows = [
        (step.op, step.left and step.left.name, step.right and step.right.name)
        for step in diff.tool_steps
    ]
    assert rows == [
        (StepOp.EQUAL, "search", "search"),
        (StepOp.INSERT, None, "fetch"),
        (StepOp.EQUAL, "read", "read"),
        (StepOp.REPLACE, "read", "write"),
    ]


def test_outputs_totals_and_scores(result: ExperimentResult) -> None:
    base, cand = _runs(result)
    diff = diff_runs(base, cand, registry=result.registry)
    assert not diff.output_equal
    assert '-  "answer": 6,' in diff.output_diff
    assert '+  "answer": 8,' in diff.output_diff
    assert '+    "fetch",' in diff.output_diff
    totals = {total.name: total for total in diff.totals}
    assert totals["duration"].unit == "s" and totals["duration"].delta is not None
    tokens = totals["llm.tokens.input"]
    assert (tokens.left, tokens.right, tokens.delta, tokens.unit) == (100, 140, 40, "tokens")
    cost = totals["money.cost"]
    assert (cost.left, cost.right, cost.unit) == (0.01, 0.014, "usd")
    assert cost.delta == pytest.approx(0.004)
    assert "llm.tokens.reasoning" not in totals  # neither run has any
    assert {score.name: score.status for score in diff.scores} == {
        "answer": DiffStatus.CHANGED,
        "steps": DiffStatus.CHANGED,
    }
    assert [score.name for score in diff.changed_scores] == ["answer", "steps"]


def test_a_run_diffed_with_itself_is_all_same(result: ExperimentResult) -> None:
    for run in result.runs:
        diff = diff_runs(run, run)
        assert {span.status for span in diff.spans} == {DiffStatus.SAME}
        assert len(diff.spans) == diff.left.spans == 3 + len(run.output["steps"])
        assert all(step.op is StepOp.EQUAL for step in diff.tool_steps)
        assert diff.output_equal and diff.output_diff == ()
        assert diff.changed_scores == ()
        assert all(total.delta in (0, None) for total in diff.totals)


def test_the_collector_is_left_as_it_was(result: ExperimentResult) -> None:
    base, cand = _runs(result)
    try:
        for enabled in (True, False):
            gc.enable() if enabled else gc.disable()
            diff_runs(base, cand)
            assert gc.isenabled() is enabled
    finally:
        gc.enable()


def test_plain_text_lines(result: ExperimentResult) -> None:
    base, cand = _runs(result)
    lines = run_diff_lines(diff_runs(base, cand))
    assert lines[0].startswith(f"left:  {base.run_id} (c1 x base, ")
    assert "  llm.tokens.input: 100 -> 140 tokens (+40)" in lines
    assert "spans: 2 added, 1 removed, 3 changed, 2 same" in lines
    assert any(line.startswith("+     fetch [tool]  (") for line in lines)
    assert any(line.startswith("-     read [tool] #1  (") for line in lines)
    assert any(line.startswith("~     plan [llm]") and "input_tokens +40" in line for line in lines)
    assert any(line.startswith("      search [tool]") for line in lines)
    assert any(
        line.startswith("  insert  ") and line.endswith(" | fetch({'q': 2, 'tool': 'fetch'})")
        for line in lines
    )
    assert '  -  "answer": 6,' in lines and "output:" in lines
    assert run_diff_lines(diff_runs(base, base))[-1] == "output: same"


# Generated traces: a random forest of spans drawn from a few operations.

_OPERATIONS = st.sampled_from(["a", "b", "c"])
_KINDS = st.sampled_from(["llm", "tool", "custom"])


@st.composite
def _traces(draw: st.DrawFn) -> Trace:
    count = draw(st.integers(0, 25))
    spans = []
    for index in range(count):
        parent = draw(st.one_of(st.none(), st.integers(0, index - 1))) if index else None
        spans.append(
            SpanRecord(
                id=f"s{index}",
                operation=draw(_OPERATIONS),
                kind=draw(_KINDS),
                parent=None if parent is None else f"s{parent}",
                duration=draw(st.floats(0, 10)),
                usage=draw(st.sampled_from([{}, {"input_tokens": 3}, {"output_tokens": 5}])),
                attributes=draw(st.sampled_from([{}, {"x": 1}, {"x": 2}])),
            )
        )
    return Trace(id="t", spans=tuple(spans))


def _with_trace(run: RunRecord, trace: Trace) -> RunRecord:
    return run.model_copy(update={"trace": trace})


_SWAP = {
    DiffStatus.ADDED: DiffStatus.REMOVED,
    DiffStatus.REMOVED: DiffStatus.ADDED,
    DiffStatus.CHANGED: DiffStatus.CHANGED,
    DiffStatus.SAME: DiffStatus.SAME,
}


def _signature(diff: RunDiff) -> dict[tuple[str, ...], tuple[Any, ...]]:
    return {
        diff.span_path(span.index): (
            span.status,
            span.left and span.left.span_id,
            span.right and span.right.span_id,
            span.metric_deltas,
        )
        for span in diff.spans
    }


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(left=_traces(), right=_traces())
def test_generated_traces(result: ExperimentResult, left: Trace, right: Trace) -> None:
    run = result.runs[0]
    lrun, rrun = _with_trace(run, left), _with_trace(run, right)
    diff = diff_runs(lrun, rrun)
    # every span of each side is in exactly one node
    assert sorted(s.left.span_id for s in diff.spans if s.left) == sorted(s.id for s in left.spans)
    assert sorted(s.right.span_id for s in diff.spans if s.right) == sorted(
        s.id for s in right.spans
    )
    # a node's parent is the node of its spans' parents
    for span in diff.spans:
        if span.parent is not None:
            parent = diff.spans[span.parent]
            assert span.depth == parent.depth + 1
            if span.left is not None:
                assert parent.left is not None
    # itself: all same
    same = diff_runs(lrun, lrun)
    assert {span.status for span in same.spans} <= {DiffStatus.SAME}
    assert len(same.spans) == len(left.spans)
    # swapped sides swap added and removed, and negate the deltas
    swapped = _signature(diff_runs(rrun, lrun))
    for path, (status, lid, rid, deltas) in _signature(diff).items():
        assert swapped[path] == (_SWAP[status], rid, lid, {k: -v for k, v in deltas.items()})
    assert len(swapped) == len(diff.spans)


@settings(max_examples=40, deadline=None)
@given(
    left=st.lists(st.sampled_from("abc"), max_size=500),
    right=st.lists(st.sampled_from("abc"), max_size=500),
)
def test_long_tool_sequences_are_aligned_in_windows(left: list[str], right: list[str]) -> None:
    def calls(names: list[str]) -> list[ToolCall]:
        return [ToolCall(position=i, name=n, span_id=f"s{i}") for i, n in enumerate(names)]

    steps = align_tools(calls(left), calls(right))
    # every call of each side appears once, in order, and equal rows pair equal names
    assert [s.left.position for s in steps if s.left] == list(range(len(left)))
    assert [s.right.position for s in steps if s.right] == list(range(len(right)))
    for step in steps:
        if step.op is StepOp.EQUAL:
            assert step.left is not None and step.right is not None
            assert step.left.name == step.right.name
        if step.op is StepOp.INSERT:
            assert step.left is None
        if step.op is StepOp.DELETE:
            assert step.right is None
