"""The import direction end to end: a task that only uses the OpenTelemetry SDK tracer,
run with ``instrumentation: {opentelemetry: {}}`` and a ``token_cost`` derivation through
the CLI, recorded and reported: its GenAI spans become ABP spans with tokens, model and
cost; two concurrent runs keep their spans apart."""

from __future__ import annotations

import textwrap
from pathlib import Path

from click.testing import CliRunner
from opentelemetry import trace

from autobench.abp import InstrumentationManager, TraceCollector, bind_collector
from autobench.cli import cli
from autobench.opentelemetry._import import create
from autobench.records import ObservationQuery, replay_experiment

TASK = """
import time

from opentelemetry import trace

tracer = trace.get_tracer("acme.llm-client", "2.0")


def run(ctx, case):
    model = ctx.factor("model")
    with tracer.start_as_current_span(
        f"chat {model}",
        attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": model,
            "gen_ai.provider.name": "openai",
            "gen_ai.input.messages": "a private prompt",
        },
    ) as chat:
        time.sleep(0.05)  # the two concurrent runs overlap
        chat.set_attribute("gen_ai.response.model", model + "-2026-01-15")
        chat.set_attribute("gen_ai.usage.input_tokens", case.input["tokens"])
        chat.set_attribute("gen_ai.usage.output_tokens", 100)
        chat.set_attribute("gen_ai.usage.cache_read.input_tokens", 400)
        chat.set_attribute("gen_ai.usage.reasoning.output_tokens", 30)
        chat.set_attribute("gen_ai.response.finish_reasons", ["tool_calls"])
        chat.set_attribute("acme.request.region", "eu")
        with tracer.start_as_current_span(
            "execute_tool lookup",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "lookup",
                "gen_ai.tool.call.id": "call-" + case.id,
            },
        ):
            pass
    return {"done": True}
"""

PRICING = """\
pricing:
  provider: openai
  source: manual
  models:
    acme-mini:
      aliases: [acme-mini-2026-01-15]
      input: {unit: mtok, price: 1.0}
      cache_read: {unit: mtok, price: 0.1}
      output: {unit: mtok, price: 4.0}
"""


def _spec(tmp_path: Path) -> Path:
    (tmp_path / "otel_task.py").write_text(TASK)
    (tmp_path / "pricing.yaml").write_text(PRICING)
    spec = tmp_path / "autobench.yaml"
    spec.write_text(
        textwrap.dedent(
            """\
            benchmark:
              otel:
                dataset:
                  cases:
                    - {id: small, input: {tokens: 1000}}
                    - {id: large, input: {tokens: 3000}}
                run: {python: "otel_task:run"}
                variants:
                  mini: {factors: {model: acme-mini}}
                instrumentation:
                  opentelemetry: {}
                derive:
                  - kind: token_cost
                    pricing: file://pricing.yaml
                report:
                  leaderboard:
                    show:
                      input_tokens: {metric: llm.tokens.input, aggregate: sum}
                      cost: {metric: money.cost, aggregate: sum}
            """
        )
    )
    return spec


def test_otel_genai_spans_are_recorded_priced_and_reported(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    record = tmp_path / "rec"
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        cli,
        ["run", str(spec), "--record", str(record), "--no-progress", "--concurrency", "2"],
    )
    assert result.exit_code == 0, result.output
    assert "4000" in result.output  # the leaderboard's input tokens (1000 + 3000)

    runs = {run.case_id: run for run in replay_experiment(record).runs}
    assert set(runs) == {"small", "large"}
    for case_id, tokens in (("small", 1000), ("large", 3000)):
        run = runs[case_id]
        trace = run.trace
        assert trace is not None
        chat = next(span for span in trace.spans if span.operation == "chat acme-mini")
        tool = next(span for span in trace.spans if span.operation == "execute_tool lookup")
        # concurrent runs never mixed: each trace holds exactly its own two spans
        assert [s.operation for s in trace.spans if s.scope.startswith("opentelemetry:")] == [
            "chat acme-mini",
            "execute_tool lookup",
        ]
        assert tool.parent == chat.id and tool.kind == "tool"
        assert tool.attributes["tool.call_id"] == f"call-{case_id}"
        assert tool.attributes["tool.name"] == "lookup"
        assert chat.parent is not None and trace.span(chat.parent).scope == "autobench.manual"
        assert chat.kind == "llm"
        assert chat.usage == {
            "input_tokens": tokens,
            "output_tokens": 100,
            "cache_read_tokens": 400,
            "reasoning_tokens": 30,
            "requests": 1,
        }
        assert chat.attributes["llm.model.requested"] == "acme-mini"
        assert chat.attributes["llm.model.response"] == "acme-mini-2026-01-15"
        assert chat.attributes["llm.provider"] == "openai"
        assert chat.attributes["llm.finish_reason"] == "tool_calls"
        assert chat.attributes["acme.request.region"] == "eu"  # a source fact
        assert "gen_ai.input.messages" not in chat.attributes  # content is off by default
        scope = trace.scopes[chat.scope]
        assert scope.source_convention == "acme.llm-client"
        assert scope.target_version == "2.0"
        assert scope.layer == "client"

        query = ObservationQuery(observations=run.observations, trace=trace)
        assert query.values("llm.tokens.input") == [tokens]
        assert query.values("llm.tokens.output") == [100]
        assert query.values("llm.tokens.cache_read") == [400]
        assert query.values("llm.tokens.reasoning") == [30]
        assert query.values("llm.model.response", projected=False) == ["acme-mini-2026-01-15"]
        # (tokens - 400 cached) at 1 $/Mtok, 400 cached at 0.1 $/Mtok, 100 output at 4 $/Mtok
        expected = ((tokens - 400) * 1.0 + 400 * 0.1 + 100 * 4.0) / 1_000_000
        [cost] = query.values("money.cost")
        assert abs(cost - expected) < 1e-12

    report = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["report", str(record)])
    assert report.exit_code == 0, report.output
    assert "4000" in report.output


def test_spans_outside_a_run_are_ignored() -> None:
    tracer = trace.get_tracer("outside")
    with InstrumentationManager() as manager:
        manager.install(create(None))
        with tracer.start_as_current_span("before any run"):
            collector = TraceCollector()
            with bind_collector(collector), tracer.start_as_current_span("inside"):
                pass
    assert [span.operation for span in collector.materialize().spans] == ["inside"]
    with bind_collector(TraceCollector()) as after, tracer.start_as_current_span("uninstalled"):
        pass
    assert after.materialize().spans == ()
