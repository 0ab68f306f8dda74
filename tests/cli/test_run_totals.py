"""What a run spent is the sum of its calls, counted once: real runs through the CLI, their
records, and every view that reads them (report, case matrix, policies, CSV, YAML)."""

from __future__ import annotations

import csv
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.abp import Trace
from autobench.cli import cli
from autobench.records import (
    ObservationKind,
    ObservationQuery,
    RunRecord,
    is_summary,
    load_run_record,
    replay_experiment,
    run_observations,
    run_record_path,
)

TASKS = '''
from autobench import PydanticAIUsage, Semantic, attach_trace, record_pydantic_ai_usage

CALLS = [(50, 10), (80, 20)]


def manual(ctx, case):
    """Each LLM call's usage on its own span."""
    for index, (tokens_in, tokens_out) in enumerate(CALLS):
        with ctx.span(f"llm_{index}", kind="llm") as span:
            span.metric("input_tokens", tokens_in, semantic_type=Semantic.LLM_TOKENS_INPUT)
            span.metric("output_tokens", tokens_out, semantic_type=Semantic.LLM_TOKENS_OUTPUT)
    return {}


def bridge(ctx, case):
    """The Pydantic AI usage bridge per request, then the agent run's usage at the run level."""
    for index, (tokens_in, tokens_out) in enumerate(CALLS):
        with ctx.span(f"request_{index}", kind="llm") as span:
            record_pydantic_ai_usage(
                span, PydanticAIUsage(requests=1, input_tokens=tokens_in, output_tokens=tokens_out)
            )
    requests = (case.input or {}).get("run_requests", 2)
    record_pydantic_ai_usage(
        ctx, PydanticAIUsage(requests=requests, input_tokens=130, output_tokens=30)
    )
    return {}


def bridge_sibling(ctx, case):
    """The run usage on a span of its own beside the requests: only the tag says it is a roll-up."""
    for index, (tokens_in, tokens_out) in enumerate(CALLS):
        with ctx.span(f"request_{index}", kind="llm") as span:
            record_pydantic_ai_usage(
                span, PydanticAIUsage(input_tokens=tokens_in, output_tokens=tokens_out)
            )
    with ctx.span("agent_summary", kind="agent") as span:
        record_pydantic_ai_usage(
            span,
            PydanticAIUsage(input_tokens=130, output_tokens=30),
            accounting="aggregate" if case.input["tagged"] else None,
        )
    return {}


def envelope(ctx, case):
    """A completed agent trace: the agent's roll-up above two model calls."""
    attach_trace(
        ctx,
        {
            "trace_id": "agent-trace",
            "spans": [
                {"span_id": "agent", "name": "agent_run", "kind": "agent",
                 "usage": {"input_tokens": 130, "output_tokens": 30}},
                {"span_id": "c1", "name": "chat", "kind": "llm", "parent_id": "agent",
                 "usage": {"input_tokens": 50, "output_tokens": 10}},
                {"span_id": "c2", "name": "chat", "kind": "llm", "parent_id": "agent",
                 "usage": {"input_tokens": 80, "output_tokens": 20}},
            ],
        },
    )
    return {}


def layered(ctx, case):
    """The same two calls seen by a framework and by its client (one logical operation each)."""
    for index, (tokens_in, tokens_out) in enumerate(CALLS):
        with ctx.span(f"model_request_{index}", kind="llm") as framework:
            framework.metric("input_tokens", tokens_in, semantic_type=Semantic.LLM_TOKENS_INPUT,
                             tags={"layer": "framework", "operation_id": f"req{index}"})
            framework.metric("output_tokens", tokens_out, semantic_type=Semantic.LLM_TOKENS_OUTPUT,
                             tags={"layer": "framework", "operation_id": f"req{index}"})
            with ctx.span("chat.completions", kind="llm") as client:
                for _ in range(2):  # the client reports each call twice, equal values
                    client.metric("input_tokens", tokens_in, semantic_type=Semantic.LLM_TOKENS_INPUT,
                                  tags={"layer": "client", "operation_id": f"req{index}"})
                client.metric("output_tokens", tokens_out, semantic_type=Semantic.LLM_TOKENS_OUTPUT,
                              tags={"layer": "client", "operation_id": f"req{index}"})
    return {}


def conflicting(ctx, case):
    """One call with two different input counts and no way to tell which is right."""
    with ctx.span("llm_0", kind="llm") as span:
        span.metric("input_tokens", 50, semantic_type=Semantic.LLM_TOKENS_INPUT)
        span.metric("input_tokens", 55, semantic_type=Semantic.LLM_TOKENS_INPUT)
        span.metric("output_tokens", 10, semantic_type=Semantic.LLM_TOKENS_OUTPUT)
    with ctx.span("llm_1", kind="llm") as span:
        span.metric("input_tokens", 80, semantic_type=Semantic.LLM_TOKENS_INPUT)
        span.metric("output_tokens", 20, semantic_type=Semantic.LLM_TOKENS_OUTPUT)
    return {}


def models(ctx, case):
    """Two calls that asked for one model and were answered by another."""
    for index, (tokens_in, tokens_out) in enumerate(CALLS):
        with ctx.span(f"llm_{index}", kind="llm") as span:
            span.factor_observation("requested", "demo/mini", semantic_type=Semantic.LLM_MODEL_REQUESTED)
            span.factor_observation("response", "demo/mini-2026", semantic_type=Semantic.LLM_MODEL_RESPONSE)
            span.metric("input_tokens", tokens_in, semantic_type=Semantic.LLM_TOKENS_INPUT)
            span.metric("output_tokens", tokens_out, semantic_type=Semantic.LLM_TOKENS_OUTPUT)
    return {}


def mixed_sources(ctx, case):
    """One call through a manual span, another inside an attached agent trace."""
    with ctx.span("own_call", kind="llm") as span:
        span.metric("input_tokens", 100, semantic_type=Semantic.LLM_TOKENS_INPUT)
        span.metric("output_tokens", 10, semantic_type=Semantic.LLM_TOKENS_OUTPUT)
    attach_trace(ctx, {"trace_id": "sub-agent", "spans": [
        {"span_id": "sub", "name": "chat", "kind": "llm",
         "usage": {"input_tokens": 1000, "output_tokens": 100}}]})
    if case.input and case.input.get("tool_cost"):
        with ctx.span("search", kind="tool") as span:
            span.metric("search_cost", 0.5, semantic_type=Semantic.MONEY_COST, unit="usd")
    return {}


def threads(ctx, case):
    """Calls made from a thread pool, which does not carry the task's context."""
    from concurrent.futures import ThreadPoolExecutor

    def call(index):
        with ctx.span(f"llm_{index}", kind="llm") as span:
            span.metric("input_tokens", 100, semantic_type=Semantic.LLM_TOKENS_INPUT)
            span.metric("output_tokens", 10, semantic_type=Semantic.LLM_TOKENS_OUTPUT)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(call, range(8)))
    return {}


def split_operation(ctx, case):
    """A framework span reports input and output; the client span beneath it only input."""
    for index, (tokens_in, tokens_out) in enumerate(CALLS):
        with ctx.span(f"model_request_{index}", kind="llm") as framework:
            tags = {"layer": "framework", "operation_id": f"req{index}"}
            framework.metric("input_tokens", tokens_in, semantic_type=Semantic.LLM_TOKENS_INPUT, tags=tags)
            framework.metric("output_tokens", tokens_out, semantic_type=Semantic.LLM_TOKENS_OUTPUT, tags=tags)
            with ctx.span("chat", kind="llm") as client:
                client.metric("input_tokens", tokens_in, semantic_type=Semantic.LLM_TOKENS_INPUT,
                              tags={"layer": "client", "operation_id": f"req{index}"})
    return {}


def tagged_at_run_level(ctx, case):
    """Two calls recorded at the run level, told apart by their operation ids only."""
    for index, (tokens_in, tokens_out) in enumerate(CALLS):
        tags = {"operation_id": f"late{index}"}
        ctx.metric("input_tokens", tokens_in, semantic_type=Semantic.LLM_TOKENS_INPUT, tags=tags)
        ctx.metric("output_tokens", tokens_out, semantic_type=Semantic.LLM_TOKENS_OUTPUT, tags=tags)
    return {}


def run_usage_only(ctx, case):
    """Only the agent run's usage: two requests, recorded as one."""
    record_pydantic_ai_usage(ctx, PydanticAIUsage(requests=2, input_tokens=130, output_tokens=30))
    return {}


def odd_values(ctx, case):
    """Values no total can use, and sums too large for a number."""
    for index, value in enumerate(case.input["values"]):
        with ctx.span(f"llm_{index}", kind="llm") as span:
            span.metric("input_tokens", value, semantic_type=Semantic.LLM_TOKENS_INPUT)
    return {}



def many_calls(ctx, case):
    for index in range(200):
        with ctx.span(f"llm_{index}", kind="llm") as span:
            span.metric("input_tokens", 5, semantic_type=Semantic.LLM_TOKENS_INPUT)
            span.metric("output_tokens", 1, semantic_type=Semantic.LLM_TOKENS_OUTPUT)
    return {}
'''

PRICING = """\
pricing:
  provider: demo
  source: manual
  models:
    demo/mini:
      input: {unit: mtok, price: 1.0}
      output: {unit: mtok, price: 5.0}
"""

# 50 + 80 input tokens at 1 usd/Mtok and 10 + 20 output tokens at 5 usd/Mtok
TWO_CALLS_COST = (130 * 1.0 + 30 * 5.0) / 1e6


def spec_text(task: str, cases: str = "[{id: c1}]") -> str:
    return textwrap.dedent(
        f"""\
        benchmark:
          totals:
            dataset:
              cases: {cases}
            run:
              python: totals_task:{task}
            variants:
              mini: {{factors: {{model: {{value: demo/mini, semantic: llm.model.name}}}}}}
            derive:
              - kind: token_cost
                pricing: file://pricing.yaml
            policies:
              - name: input-budget
                metric: llm.tokens.input
                must_less_equal: 100
            report:
              leaderboard:
                show:
                  input_tokens: {{metric: llm.tokens.input, aggregate: sum}}
                  output_tokens: {{metric: llm.tokens.output, aggregate: sum}}
                  cost: {{metric: money.cost, aggregate: sum}}
              matrix: {{metric: llm.tokens.input}}
        """
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "totals_task.py").write_text(TASKS)
    (tmp_path / "pricing.yaml").write_text(PRICING)
    return tmp_path


def record(runner: CliRunner, project: Path, task: str, **spec: str) -> Path:
    spec_path = project / f"{task}.yaml"
    spec_path.write_text(spec_text(task, **spec))
    directory = project / f"rec_{task}_{len(list(project.glob('rec_*')))}"
    result = runner.invoke(
        cli, ["run", str(spec_path), "--record", str(directory), "--no-progress"]
    )
    assert result.exit_code in (0, 3), result.output
    for run in replay_experiment(directory).runs:  # a task that raised proves nothing here
        assert run.task_status.value == "passed", run.errors
    return directory


def run_yaml(directory: Path, case: str = "c1") -> RunRecord:
    return load_run_record(directory / run_record_path(case, "mini"))


def totals(directory: Path, case: str = "c1") -> dict[str, object]:
    query = ObservationQuery(observations=run_observations(run_yaml(directory, case)))
    return {
        semantic: query.values(semantic)[0] if query.values(semantic) else None
        for semantic in ("llm.tokens.input", "llm.tokens.output", "llm.request.count", "money.cost")
    }


def diagnostics(directory: Path, case: str = "c1") -> list[str]:
    return [
        o.name
        for o in run_yaml(directory, case).observations
        if o.kind is ObservationKind.DIAGNOSTIC
    ]


def test_several_calls_add_up_in_the_record_and_every_view(
    runner: CliRunner, project: Path
) -> None:
    directory = record(runner, project, "manual")
    run = run_yaml(directory)
    # the record keeps the calls as measured; their total needs no trace, so it is not
    # stored but computed when read, the same in every view
    assert run.run.accounting == 1
    raw = [o.value for o in run.observations if o.semantic_type == "llm.tokens.input"]
    assert raw == [50, 80]
    assert (
        "accounting"
        not in (directory / run_record_path("c1", "mini"))
        .read_text()
        .split("observations:")[1]
        .split("trace:")[0]
    )
    summary = ObservationQuery(observations=run.observations).first_exact("llm.tokens.input")
    assert summary is not None and is_summary(summary)
    assert summary.tags["operations"] == "2" and summary.tags["layer"] == "application"
    assert ObservationQuery(observations=run.observations).values(
        "llm.tokens.input", projected=False
    ) == [50, 80]
    assert totals(directory)["money.cost"] == pytest.approx(TWO_CALLS_COST)
    # the policy reads the total: 130 > 100
    policy = next(o for o in run.observations if o.name == "input-budget")
    assert policy.value is False and policy.reason == "llm.tokens.input = 130, expected <= 100"
    assert run.status.value == "failed"

    report = runner.invoke(cli, ["report", str(directory)])
    assert report.exit_code == 0, report.output
    leaderboard = report.output.split("Leaderboard")[1].split("Policies")[0]
    assert " 130 " in leaderboard and " 30 " in leaderboard and " 50 " not in leaderboard
    matrix = report.output.split("Case matrix")[1]
    assert "130" in matrix
    assert "several values from one source" not in report.output

    csv_path = project / "runs.csv"
    assert (
        runner.invoke(
            cli, ["export", str(directory), "--format", "csv", "--path", str(csv_path)]
        ).exit_code
        == 0
    )
    with csv_path.open(encoding="utf-8") as handle:
        [row] = list(csv.DictReader(handle))
    assert (row["llm.tokens.input [tokens]"], row["llm.tokens.output [tokens]"]) == ("130", "30")
    assert row["policy:input-budget"] == "False"

    yaml_path = project / "report.yaml"
    assert (
        runner.invoke(
            cli, ["export", str(directory), "--format", "yaml", "--path", str(yaml_path)]
        ).exit_code
        == 0
    )
    exported = yaml_path.read_text()
    assert "llm.tokens.input: 130\n" in exported and "llm.tokens.output: 30\n" in exported
    leader = exported.split("leaderboard:")[1].split("cases:")[0]
    assert "value: 130" in leader


def test_a_run_level_aggregate_is_never_added_to_the_calls_or_priced_again(
    runner: CliRunner, project: Path
) -> None:
    directory = record(runner, project, "bridge")
    assert totals(directory) == {
        "llm.tokens.input": 130,
        "llm.tokens.output": 30,
        "llm.request.count": 2,
        "money.cost": pytest.approx(TWO_CALLS_COST),
    }
    observations = run_yaml(directory).observations
    cost = next(o for o in observations if o.name == "token_cost")
    assert cost.tags["calls"] == "2"
    assert diagnostics(directory) == []
    # the roll-up is found by span parentage: this total needs the trace, so it is stored
    stored = [o for o in observations if is_summary(o)]
    assert [(o.semantic_type, o.value, o.tags["operations"]) for o in stored] == [
        ("llm.request.count", 2, "2"),
        ("llm.tokens.input", 130, "2"),
        ("llm.tokens.output", 30, "2"),
    ]
    # a roll-up that disagrees with its calls is kept as evidence and reported
    mismatch = record(runner, project, "bridge", cases="[{id: c1, input: {run_requests: 3}}]")
    assert totals(mismatch)["llm.request.count"] == 2
    assert diagnostics(mismatch) == ["aggregate_measurement_mismatch"]
    report = runner.invoke(cli, ["report", str(mismatch)])
    assert "aggregate_measurement_mismatch" in report.output
    assert "aggregate llm.request.count 3 (application layer) differs from the total 2" in (
        report.output
    )


def test_a_roll_up_beside_its_calls_is_told_apart_by_its_tag(
    runner: CliRunner, project: Path
) -> None:
    tagged = record(runner, project, "bridge_sibling", cases="[{id: c1, input: {tagged: true}}]")
    assert totals(tagged)["llm.tokens.input"] == 130
    assert totals(tagged)["money.cost"] == pytest.approx(TWO_CALLS_COST)
    # untagged, a sibling span is one more call: nothing in the trace says otherwise
    untagged = record(runner, project, "bridge_sibling", cases="[{id: c1, input: {tagged: false}}]")
    assert totals(untagged)["llm.tokens.input"] == 260


def test_an_attached_trace_counts_its_calls_not_its_agent(runner: CliRunner, project: Path) -> None:
    directory = record(runner, project, "envelope")
    assert totals(directory) == {
        "llm.tokens.input": 130,
        "llm.tokens.output": 30,
        "llm.request.count": None,
        "money.cost": pytest.approx(TWO_CALLS_COST),
    }
    summary = ObservationQuery(observations=run_yaml(directory).observations).first_exact(
        "llm.tokens.input"
    )
    assert summary is not None and summary.id == "accounting.llm.tokens.input"
    assert summary.source.value == "imported"


def test_one_layer_per_total_and_one_count_per_operation(runner: CliRunner, project: Path) -> None:
    directory = record(runner, project, "layered")
    assert totals(directory)["llm.tokens.input"] == 130  # the client's, each call once
    assert totals(directory)["llm.tokens.output"] == 30
    summary = ObservationQuery(observations=run_yaml(directory).observations).first_exact(
        "llm.tokens.input"
    )
    assert summary is not None and summary.tags["layer"] == "client"
    # pricing reads the same calls: two, not four
    assert totals(directory)["money.cost"] == pytest.approx(TWO_CALLS_COST)
    assert diagnostics(directory) == []


def test_conflicting_values_stay_out_of_the_total_with_a_diagnostic(
    runner: CliRunner, project: Path
) -> None:
    directory = record(runner, project, "conflicting")
    assert totals(directory)["llm.tokens.input"] == 80
    assert totals(directory)["money.cost"] is None  # never a partial cost
    assert diagnostics(directory) == ["ambiguous_direct_measurement", "token_cost_ambiguous_input"]
    report = runner.invoke(cli, ["report", str(directory)])
    assert "ambiguous_direct_measurement" in report.output
    assert "conflicting" in report.output or "50, 55" in report.output


def test_requested_and_response_models_stay_separate_factors(
    runner: CliRunner, project: Path
) -> None:
    directory = record(runner, project, "models")
    run = run_yaml(directory)
    factors = [
        (o.semantic_type, o.value) for o in run.observations if o.kind is ObservationKind.FACTOR
    ]
    assert (
        factors
        == [
            ("llm.model.requested", "demo/mini"),
            ("llm.model.response", "demo/mini-2026"),
        ]
        * 2
    )
    assert not any(is_summary(o) and "model" in str(o.semantic_type) for o in run.observations)
    assert totals(directory)["llm.tokens.input"] == 130


def test_replay_reads_the_same_totals_without_the_task(runner: CliRunner, project: Path) -> None:
    directory = record(runner, project, "bridge")
    (project / "totals_task.py").unlink()
    for evidence_only in (False, True):
        [run] = replay_experiment(directory, evidence_only=evidence_only).runs
        query = ObservationQuery(observations=run_observations(run))
        assert query.values("llm.tokens.input") == [130], evidence_only


def test_the_task_s_calls_and_an_attached_trace_s_calls_add_up(
    runner: CliRunner, project: Path
) -> None:
    directory = record(runner, project, "mixed_sources")
    one_each = (1100 * 1.0 + 110 * 5.0) / 1e6
    assert totals(directory)["llm.tokens.input"] == 1100
    assert totals(directory)["money.cost"] == pytest.approx(one_each)
    # a derived cost outranks the task's own costs, and the report says what was not added
    with_tool = record(
        runner, project, "mixed_sources", cases="[{id: c1, input: {tool_cost: true}}]"
    )
    assert totals(with_tool)["money.cost"] == pytest.approx(one_each)
    report = runner.invoke(cli, ["report", str(with_tool)])
    assert "money.cost: the derived total" in report.output
    assert "the direct evidence totals 0.5" in report.output


def test_spans_opened_in_a_thread_pool_belong_to_the_run(runner: CliRunner, project: Path) -> None:
    directory = record(runner, project, "threads")
    run = run_yaml(directory)
    assert isinstance(run.trace, Trace)
    [root] = run.trace.root_spans
    calls = [span for span in run.trace.spans if span.operation.startswith("llm_")]
    assert len(calls) == 8 and {span.parent for span in calls} == {root.id}
    assert totals(directory)["llm.tokens.input"] == 800


def test_one_call_s_values_on_several_spans_are_priced_as_one_call(
    runner: CliRunner, project: Path
) -> None:
    for task in ("split_operation", "tagged_at_run_level"):
        directory = record(runner, project, task)
        assert totals(directory)["llm.tokens.input"] == 130, task
        assert totals(directory)["llm.tokens.output"] == 30, task
        cost = next(o for o in run_yaml(directory).observations if o.name == "token_cost")
        assert cost.tags["calls"] == "2", task
        assert cost.value == pytest.approx(TWO_CALLS_COST), task


def test_usage_recorded_per_run_is_priced_and_said_to_be(runner: CliRunner, project: Path) -> None:
    directory = record(runner, project, "run_usage_only")
    cost = next(o for o in run_yaml(directory).observations if o.name == "token_cost")
    assert cost.value == pytest.approx(TWO_CALLS_COST)
    assert cost.tags["requests"] == "2" and "usage of 2 requests" in str(cost.reason)


@pytest.mark.parametrize(
    ("values", "total", "skipped"),
    [
        ("[50, true]", 50, 1),
        ('[50, "80"]', 50, 1),
        ("[50, .nan]", 50, 1),
        ("[50, 1.5]", 50, 1),  # tokens are whole numbers
        ("[50, -80]", 50, 1),  # and never negative
        ("[true]", None, 1),
        ("[1.0e308, 1.0e308]", None, 0),
    ],
)
def test_values_a_total_cannot_use_are_diagnosed(
    runner: CliRunner, project: Path, values: str, total: object, skipped: int
) -> None:
    directory = record(
        runner, project, "odd_values", cases=f"[{{id: c1, input: {{values: {values}}}}}]"
    )
    assert totals(directory)["llm.tokens.input"] == total
    found = diagnostics(directory)
    assert found.count("accounting_value_skipped") == skipped
    if total is None and not skipped:
        assert "accounting_overflow" in found
    report = runner.invoke(cli, ["report", str(directory)])
    assert report.exit_code == 0 and "Traceback" not in report.output


def test_many_calls_keep_the_cost_reason_short(runner: CliRunner, project: Path) -> None:
    directory = record(runner, project, "many_calls")
    assert totals(directory)["llm.tokens.input"] == 1000
    cost = next(o for o in run_yaml(directory).observations if o.name == "token_cost")
    assert cost.tags["calls"] == "200"
    assert cost.reason is not None and cost.reason.endswith("; ... and 190 more")
    assert len(cost.reason) < 1000
