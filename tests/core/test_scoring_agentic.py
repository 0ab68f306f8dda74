"""Expected-action scoring and span selectors, with real agent-like tasks and YAML specs."""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path
from typing import Any

import pytest
from runtime_support import run

from autobench import (
    BenchmarkSpec,
    ExpectedActionScorer,
    Semantic,
    SpanSelector,
    load_benchmark_spec,
)
from autobench.core.scoring import ExpectedAction
from autobench.core.spec import SpecError
from autobench.records import EvaluationStatus, RunRecord, RunStatus, TaskStatus

_ids = itertools.count(1)

AGENT = """
def agent(ctx, case):
    # A data-driven agent: case.input.calls lists the tool calls it makes, in order.
    with ctx.span("support_agent", kind="agent"):
        for call in case.input.get("calls", []):
            with ctx.span(
                call["tool"],
                kind=call.get("kind", "tool"),
                input=call.get("args", {}),
                tags={"tool": call["tool"], **call.get("tags", {})},
            ) as span:
                span.set_output(call.get("output"))
                if "semantic" in call:
                    span.metric(f"{call['tool']}_seen", 1, semantic_type=call["semantic"])
    return {"answer": "done"}
"""

SELECTED = """
def names(call):
    return [span.operation for span in call.selected_spans]
"""

THREE_METRICS = """\
    score:
      tool_selection:
        expected_action: {metric: selection, observed_kind: tool}
        span: {kind: tool}
      tool_arguments:
        expected_action: {metric: arguments, observed_kind: tool, span: {kind: tool}}
        goal: maximize
      tool_sequence:
        expected_action: sequence
"""


def _modules(tmp_path: Path) -> tuple[str, str]:
    n = next(_ids)
    agent, selected = f"agent_task_{n}", f"selected_scorers_{n}"
    (tmp_path / f"{agent}.py").write_text(textwrap.dedent(AGENT))
    (tmp_path / f"{selected}.py").write_text(textwrap.dedent(SELECTED))
    return agent, selected


def _spec(tmp_path: Path, cases: str, score: str = THREE_METRICS) -> BenchmarkSpec:
    agent, _ = _modules(tmp_path)
    path = tmp_path / "autobench.yaml"
    path.write_text(
        "benchmark:\n  agentic:\n"
        f"    run: {{python: '{agent}:agent'}}\n"
        "    variants: {v1: {}}\n"
        + textwrap.indent(textwrap.dedent(cases), "    ")
        + textwrap.indent(textwrap.dedent(score), "    ")
    )
    return load_benchmark_spec(path)


def _scores(record: RunRecord) -> dict[str, Any]:
    return {score.name: score.value for score in record.scores}


def _by_case(spec: BenchmarkSpec, **kwargs: Any) -> dict[str, RunRecord]:
    return {record.case_id: record for record in run(spec, **kwargs).runs}


CASES = """\
cases:
  - id: perfect
    input:
      calls:
        - {tool: lookup_user, args: {user_id: u1, verbose: true}}
        - {tool: issue_refund, args: {order_id: 42, amount: 10, note: {by: bot, lang: en}}}
    expected:
      actions:
        - {id: lookup, kind: tool, target: lookup_user, input: {user_id: u1}, order: 1}
        - {id: refund, target: issue_refund, input: {order_id: 42, note: {by: bot}}, order: 2}
  - id: partial
    input:
      calls:
        - {tool: issue_refund, args: {order_id: 42, amount: 5}}
        - {tool: lookup_user, args: {user_id: u1, region: us, verbose: true}}
        - {tool: search_kb, args: {q: refunds}}
    expected:
      actions:
        - {id: lookup, target: lookup_user, input: {user_id: u1, region: eu}, order: 1}
        - {id: policy, target: check_policy, order: 2}
        - {id: refund, target: issue_refund, input: {order_id: 42, amount: 10}, order: 3}
  - id: nothing_called
    input: {calls: []}
    expected:
      actions:
        - {target: lookup_user, input: {user_id: u1}}
  - id: nothing_expected
    input:
      calls: [{tool: search_kb}]
    expected: {actions: []}
"""


def test_three_metrics_with_partial_credit(tmp_path: Path) -> None:
    spec = _spec(tmp_path, CASES)
    selection, arguments, sequence = spec.scoring
    assert all(isinstance(s, ExpectedActionScorer) for s in spec.scoring)
    assert (selection.metric, selection.span, selection.semantic_type) == (
        "selection",
        SpanSelector(kind="tool"),
        Semantic.AGENT_TOOL_SELECTION_CORRECTNESS,
    )
    assert arguments.span == SpanSelector(kind="tool")
    assert arguments.semantic_type == Semantic.AGENT_TOOL_ARGUMENT_CORRECTNESS
    assert (sequence.metric, sequence.observed_kind, sequence.span) == ("sequence", "tool", None)
    assert sequence.semantic_type == Semantic.AGENT_TOOL_SEQUENCE_CORRECTNESS

    runs = _by_case(spec)
    assert _scores(runs["perfect"]) == {
        "tool_selection": 1.0,
        "tool_arguments": 1.0,
        "tool_sequence": 1.0,
    }
    # partial: 2 of 3 selected; half the keys right in each matched call; lookup and refund
    # happened in reverse order, so only one of the three ordered actions is in order.
    partial = _scores(runs["partial"])
    assert partial["tool_selection"] == pytest.approx(2 / 3)
    assert partial["tool_arguments"] == pytest.approx(0.5)
    assert partial["tool_sequence"] == pytest.approx(1 / 3)
    reasons = {score.name: score.reason for score in runs["partial"].scores}
    assert reasons["tool_selection"] == "matched 2 of 3; missing: policy; unexpected: search_kb"
    assert reasons["tool_arguments"] == "mismatched arguments: lookup: region; refund: amount"
    assert reasons["tool_sequence"] == (
        "1 of 3 in order; expected: lookup, policy, refund; observed: refund, lookup"
    )
    selection_score = runs["partial"].scores[0]
    assert selection_score.actual_value == ["issue_refund", "lookup_user", "search_kb"]
    assert selection_score.expected_value == ["lookup_user", "check_policy", "issue_refund"]
    assert _scores(runs["nothing_called"]) == {
        "tool_selection": 0.0,
        "tool_arguments": 0.0,
        "tool_sequence": 0.0,
    }
    assert _scores(runs["nothing_expected"]) == {
        "tool_selection": 1.0,
        "tool_arguments": 1.0,
        "tool_sequence": 1.0,
    }
    assert {record.status for record in runs.values()} == {RunStatus.PASSED}


def test_optional_actions_order_ties_outputs_and_repeated_tools(tmp_path: Path) -> None:
    cases = """\
    cases:
      - id: optional_absent
        input: {calls: [{tool: lookup_user}]}
        expected:
          actions:
            - {target: lookup_user, order: 1}
            - {target: send_survey, required: false, input: {channel: email}, order: 2}
      - id: optional_present_required_missing
        input: {calls: [{tool: send_survey, args: {channel: sms}}]}
        expected:
          actions:
            - {target: lookup_user, order: 1}
            - {target: send_survey, required: false, input: {channel: email}, order: 2}
      - id: parallel
        input: {calls: [{tool: fetch_b}, {tool: fetch_a}, {tool: answer}]}
        expected:
          actions:
            - {target: fetch_a, order: 1}
            - {target: fetch_b, order: 1}
            - {target: answer, order: 2}
      - id: wrong_output
        input:
          calls: [{tool: lookup_user, args: {user_id: u1}, output: {tier: silver, id: u1}}]
        expected:
          actions: [{id: gold_lookup, target: lookup_user, output: {tier: gold}}]
      - id: right_output
        input:
          calls: [{tool: lookup_user, args: {user_id: u1}, output: {tier: gold, id: u1}}]
        expected:
          actions: [{id: gold_lookup, target: lookup_user, output: {tier: gold}}]
      - id: same_tool_twice
        input:
          calls: [{tool: lookup_user, args: {user_id: u2}}, {tool: lookup_user, args: {user_id: u1}}]
        expected:
          actions:
            - {target: lookup_user, input: {user_id: u1}, order: 1}
            - {target: lookup_user, input: {user_id: u2}, order: 2}
      - id: tool_calls_shape
        input:
          calls: [{tool: lookup_user, args: {user_id: u1}}, {tool: refund, args: {id: 4}}]
        expected:
          tool_calls:
            - {tool: refund, args: {id: 4}, order: 2}
            - {tool: lookup_user, args: {user_id: u1}, order: 1}
      - id: other_kinds_ignored
        input:
          calls: [{tool: lookup_user}, {tool: kb, kind: retriever}]
        expected:
          actions:
            - {target: lookup_user}
            - {target: kb, kind: retriever}
    """
    runs = _by_case(_spec(tmp_path, cases))
    assert _scores(runs["optional_absent"]) == {
        "tool_selection": 1.0,
        "tool_arguments": 1.0,
        "tool_sequence": 1.0,
    }
    # the matched optional action counts: 1 of 2 selected (not 0 of 1); its args are wrong
    assert _scores(runs["optional_present_required_missing"]) == {
        "tool_selection": 0.5,
        "tool_arguments": 0.0,
        "tool_sequence": 0.5,
    }
    assert _scores(runs["parallel"])["tool_sequence"] == 1.0
    assert _scores(runs["wrong_output"])["tool_selection"] == 0.0
    assert runs["wrong_output"].scores[0].reason == (
        "matched 0 of 1; missing: gold_lookup; unexpected: lookup_user"
    )
    assert _scores(runs["right_output"])["tool_selection"] == 1.0
    # the arguments tell the two calls apart: both selected with the right arguments,
    # but in the wrong order
    assert _scores(runs["same_tool_twice"]) == {
        "tool_selection": 1.0,
        "tool_arguments": 1.0,
        "tool_sequence": 0.5,
    }
    assert _scores(runs["tool_calls_shape"]) == {
        "tool_selection": 1.0,
        "tool_arguments": 1.0,
        "tool_sequence": 1.0,
    }
    assert _scores(runs["other_kinds_ignored"])["tool_selection"] == 1.0


def test_bad_expected_actions_are_scorer_errors(tmp_path: Path) -> None:
    cases = """\
    cases:
      - {id: none_declared, input: {calls: []}, expected: {answer: 1}}
      - {id: both, input: {calls: []}, expected: {actions: [], tool_calls: []}}
      - {id: typo, input: {calls: []}, expected: {actions: [{target: a, requird: false}]}}
    """
    score = """\
    score:
      tool_selection: {expected_action: selection}
    """
    runs = _by_case(_spec(tmp_path, cases, score))
    errors = {case: record.scores[0].error for case, record in runs.items()}
    assert errors["none_declared"] is not None
    assert (
        "case.expected has no 'actions' or 'tool_calls' (keys: answer)" in errors["none_declared"]
    )
    assert errors["both"] is not None and "both 'actions' and 'tool_calls'" in errors["both"]
    assert errors["typo"] is not None and "requird" in errors["typo"]
    assert {record.status for record in runs.values()} == {RunStatus.ERRORED}


def test_python_api_and_structured_form(tmp_path: Path) -> None:
    scorer = ExpectedActionScorer(
        name="tool_arguments",
        semantic_type=Semantic.AGENT_TOOL_ARGUMENT_CORRECTNESS,
        metric="arguments",
        observed_kind="tool",
        span=SpanSelector(kind="tool"),
    )
    assert ExpectedActionScorer(name="x", metric="sequence").semantic_type == (
        "agent.tool.sequence.correctness"
    )
    agent, _ = _modules(tmp_path)
    spec = BenchmarkSpec(
        benchmark={"id": "api"},
        dataset={
            "cases": [
                {
                    "id": "c",
                    "input": {"calls": [{"tool": "lookup_user", "args": {"user_id": "u2"}}]},
                    "expected": {"actions": [{"tool": "lookup_user", "args": {"user_id": "u1"}}]},
                }
            ]
        },
        task={"target": f"{agent}:agent"},
        variants=[{"id": "v"}],
        scoring=[scorer],
        base_dir=tmp_path,
    )
    assert BenchmarkSpec.model_validate(spec.model_dump(mode="json")).scoring == (scorer,)
    (record,) = run(spec).runs
    assert record.scores[0].value == 0.0

    path = tmp_path / "structured.yaml"
    path.write_text(
        "benchmark: {id: s}\n"
        "scoring:\n"
        "  - {kind: expected_action, name: sel, metric: selection, span: {kind: tool, tag: {a: b}}}\n"
    )
    (loaded,) = load_benchmark_spec(path).scoring
    assert loaded.span == SpanSelector(kind="tool", tags={"a": "b"})
    action = ExpectedAction.model_validate({"tool": "t", "args": {"x": 1}})
    assert (action.target, action.input, action.required, action.declares_output) == (
        "t",
        {"x": 1},
        True,
        False,
    )


@pytest.mark.parametrize(
    ("score", "message"),
    [
        (
            "s: {expected_action: {metric: precision}}",
            "invalid 'metric' of scorer 's': 'precision' is not allowed",
        ),
        (
            "s: {expected_action: selection, span: {knd: tool}}",
            "unknown key 'knd' in scorer 's' at 'span.knd' (did you mean 'kind'?)",
        ),
        (
            "s: {expected_action: {metric: selection, span: {kind: tool}}, span: {kind: tool}}",
            "invalid scorer 's': 'expected_action' repeats span, which belong beside it",
        ),
        ("s: {value: output.x, span: {path: a//b}}", "span path 'a//b' has an empty segment"),
    ],
)
def test_span_and_action_spec_errors(tmp_path: Path, score: str, message: str) -> None:
    path = tmp_path / "autobench.yaml"
    path.write_text("benchmark:\n  b:\n    score:\n      " + score + "\n")
    with pytest.raises(SpecError) as info:
        load_benchmark_spec(path)
    assert str(info.value).removeprefix(f"{tmp_path}/").startswith("autobench.yaml:4:")
    assert message in str(info.value)


def test_span_selectors_on_every_scorer_kind(tmp_path: Path) -> None:
    agent, selected = _modules(tmp_path)
    path = tmp_path / "autobench.yaml"
    path.write_text(
        textwrap.dedent(
            f"""\
            benchmark:
              selectors:
                run: {{python: "{agent}:agent"}}
                variants: {{v1: {{}}}}
                cases:
                  - id: c
                    input:
                      calls:
                        - {{tool: lookup_user, tags: {{phase: retrieval}}, semantic: agent.tool.name}}
                        - {{tool: search_kb, kind: retriever, tags: {{phase: retrieval}}}}
                        - {{tool: issue_refund}}
                    expected: {{answer: done}}
                score:
                  all: {{python: "{selected}:names"}}
                  by_kind: {{python: "{selected}:names", span: {{kind: tool}}}}
                  by_name: {{python: "{selected}:names", span: {{name: search_kb}}}}
                  by_tag: {{python: "{selected}:names", span: {{tag: {{phase: retrieval}}}}}}
                  by_tags: {{python: "{selected}:names", span: {{tags: {{phase: retrieval}}, kind: tool}}}}
                  by_path: {{python: "{selected}:names", span: {{path: support_agent/issue_refund}}}}
                  by_wildcard: {{python: "{selected}:names", span: {{path: "benchmark.run/*"}}}}
                  anchored: {{python: "{selected}:names", span: {{path: /support_agent/issue_refund}}}}
                  no_match_path: {{python: "{selected}:names", span: {{path: lookup_user/issue_refund}}}}
                  by_semantic: {{python: "{selected}:names", span: {{semantic_type: agent.tool.name}}}}
                  exact_kept: {{exact: {{actual: output.answer, expected: case.expected.answer}}, span: {{kind: tool}}}}
            """
        )
    )
    spec = load_benchmark_spec(path)
    assert spec.scoring[-1].span == SpanSelector(kind="tool")
    (record,) = run(spec).runs
    assert _scores(record) == {
        "all": ["benchmark.run", "support_agent", "lookup_user", "search_kb", "issue_refund"],
        "by_kind": ["lookup_user", "issue_refund"],
        "by_name": ["search_kb"],
        "by_tag": ["lookup_user", "search_kb"],
        "by_tags": ["lookup_user"],
        "by_path": ["issue_refund"],
        "by_wildcard": ["support_agent"],
        "anchored": [],
        "no_match_path": [],
        "by_semantic": ["lookup_user"],
        "exact_kept": 1.0,
    }


RAISING = """
def agent(ctx, case):
    with ctx.span("support_agent", kind="agent"):
        with ctx.span("lookup_user", kind="tool", input={"user_id": case.input["user"]}) as tool:
            tool.set_output({"tier": "gold"})
            tool.metric(f"lookups_{case.id}", 1, semantic_type="agent.tool.name")
        if case.input.get("boom"):
            with ctx.span("issue_refund", kind="tool", input={"order": 1}):
                raise RuntimeError("refund service down")
    return {"answer": "done"}

async def async_agent(ctx, case):
    return agent(ctx, case)

def seen(call):
    return {
        "spans": [span.operation for span in call.selected_spans],
        "statuses": [span.status for span in call.selected_spans],
        "observations": [obs.name for obs in call.observations],
        "output": call.output,
    }
"""


@pytest.mark.parametrize("entry", ["agent", "async_agent"])
def test_scorers_see_the_evidence_of_a_raising_task_and_nothing_leaks(
    tmp_path: Path, entry: str
) -> None:
    module = f"raising_agent_{next(_ids)}"
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(RAISING))
    path = tmp_path / "autobench.yaml"
    path.write_text(
        textwrap.dedent(
            f"""\
            benchmark:
              raising:
                run: {{python: "{module}:{entry}"}}
                variants: {{v1: {{}}, v2: {{}}}}
                cases:
                  - id: boom
                    input: {{user: u1, boom: true}}
                    expected:
                      actions:
                        - {{target: lookup_user, input: {{user_id: u1}}, order: 1}}
                        - {{target: issue_refund, order: 2}}
                  - id: calm
                    input: {{user: u2}}
                    expected:
                      actions: [{{target: lookup_user, input: {{user_id: u1}}}}]
                score:
                  tool_selection: {{expected_action: selection, span: {{kind: tool}}}}
                  tool_arguments: {{expected_action: arguments, span: {{kind: tool}}}}
                  seen: {{python: "{module}:seen", span: {{kind: tool}}}}
                  answered: {{pass: output.answer, optional: true}}
            """
        )
    )
    runs = run(load_benchmark_spec(path), concurrency_limit=4).runs
    assert [(r.case_id, r.variant_id) for r in runs] == [
        ("boom", "v1"),
        ("boom", "v2"),
        ("calm", "v1"),
        ("calm", "v2"),
    ]
    for record in runs:
        scores = {score.name: score for score in record.scores}
        own_spans = {span.id for span in record.trace.spans} if record.trace else set()
        assert all(obs.span_id in own_spans for obs in record.observations)
        if record.case_id == "boom":
            assert (record.task_status, record.status) == (TaskStatus.ERRORED, RunStatus.ERRORED)
            # the optional `pass` scorer fails on the None output without touching the status
            assert record.evaluation_status is EvaluationStatus.PASSED
            assert scores["answered"].error is not None
            assert scores["tool_selection"].value == 1.0
            assert scores["tool_arguments"].value == 1.0
            assert scores["seen"].value == {
                "spans": ["lookup_user", "issue_refund"],
                "statuses": ["ok", "error"],
                "observations": ["lookups_boom"],
                "output": None,
            }
            assert [e.stage for e in record.errors] == ["task", "scorer"]
        else:
            assert record.status is RunStatus.PASSED
            assert scores["tool_selection"].value == 1.0
            assert scores["tool_arguments"].value == 0.0  # u2, not u1
            assert scores["seen"].value == {
                "spans": ["lookup_user"],
                "statuses": ["ok"],
                "observations": ["lookups_calm"],
                "output": {"answer": "done"},
            }
            assert record.errors == ()
