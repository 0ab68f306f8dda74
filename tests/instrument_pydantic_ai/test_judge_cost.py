"""A judge's spend is its own: a task and a judge both on the real OpenAI client over
``httpx2.MockTransport`` (Pydantic AI's ``OpenAIChatModel``), with every native
instrumentor installed; the run reports the task's ``money.cost`` and the judge's
``judge.cost`` apart."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from pai_support import REQUEST_USAGE
from ruamel.yaml import YAML

from autobench.cli import cli
from autobench.core.runtime import run_benchmark_path
from autobench.records import ObservationQuery, RecordDirectoryWriter, run_observations

TASK = """
from pai_support import ScriptedAPI, lookup_agent, text_turn, tool_turn


async def run(ctx, case):
    api = ScriptedAPI(tool_turn("lookup", query=case.input["query"]), text_turn("a lamp"))
    return {"answer": (await lookup_agent(api).run("find it")).output}
"""

JUDGE = """
from pai_support import ScriptedAPI, tool_turn

API = ScriptedAPI(tool_turn("final_result", reason="names a product", verdict="pass"))


def model():
    return API.model()
"""

TASK_PRICING = (Path(__file__).parents[1] / "fixtures" / "accounting" / "pricing.yaml").read_text()

JUDGE_PRICING = """
pricing:
  provider: openai
  models:
    gpt-test:
      aliases: ["gpt-test-2026-01-01"]
      input: {unit: mtok, price: 10.0}
      cache_read: {unit: mtok, price: 1.0}
      output: {unit: mtok, price: 30.0}
"""
"""The judge's prices: other than the task's, so a judge cost mixed in would show."""

SPEC = """
benchmark:
  shop:
    dataset:
      cases:
        - id: lamp
          input: {query: lamp}
    run: {python: judge_cost_task:run}
    variants:
      v1: {}
    instrumentation:
      pydantic_ai: {}
      openai: {}
      httpx: {}
    derive:
      - kind: token_cost
        pricing: file://task_pricing.yaml
    score:
      helpful:
        judge:
          model: {python: judge_cost_judge:model}
          rubric: Pass when the answer names a product.
          inputs: [output.answer]
          pricing: file://judge_pricing.yaml
"""


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "judge_cost_task.py").write_text(TASK)
    (tmp_path / "judge_cost_judge.py").write_text(JUDGE)
    (tmp_path / "task_pricing.yaml").write_text(TASK_PRICING)
    (tmp_path / "judge_pricing.yaml").write_text(JUDGE_PRICING)
    (tmp_path / "autobench.yaml").write_text(textwrap.dedent(SPEC))
    yield tmp_path
    for name in ("judge_cost_task", "judge_cost_judge"):
        sys.modules.pop(name, None)


def test_the_task_costs_x_and_the_judge_costs_y_with_every_instrumentor_on(
    project: Path,
) -> None:
    result = run_benchmark_path(
        project / "autobench.yaml", sink=RecordDirectoryWriter(project / "records")
    )
    [run] = result.runs
    assert run.status.value == "passed"
    [score] = run.scores
    assert (score.value, score.reason) == (True, "names a product")
    query = ObservationQuery(observations=run_observations(run))
    # The task: two requests of 1,000 input (800 cached) and 200 output tokens.
    task_cost = 2 * (200 * 2.0 + 800 * 0.5 + 200 * 8.0) / 1e6
    assert query.values("llm.tokens.input") == [2 * REQUEST_USAGE["input_tokens"]]
    assert query.values("llm.request.count") == [2]
    assert query.values("money.cost") == [pytest.approx(task_cost)]
    # The judge: one request with the same usage, at its own prices.
    judge_cost = (200 * 10.0 + 800 * 1.0 + 200 * 30.0) / 1e6
    assert query.values("judge.tokens.input") == [REQUEST_USAGE["input_tokens"]]
    assert query.values("judge.tokens.output") == [REQUEST_USAGE["output_tokens"]]
    assert query.values("judge.request.count") == [1]
    assert query.values("judge.cost") == [pytest.approx(judge_cost)]
    # The instrumentors saw the judge's calls, in the judge's trace, not the run's.
    scopes = {span.scope for span in run.spans}
    assert {"pydantic_ai", "openai", "httpx"} <= scopes
    assert [s for s in run.spans if s.kind == "agent" and "judge" in s.operation] == []
    assert len([s for s in run.spans if s.kind == "llm" and s.scope == "openai"]) == 2
    [artifact] = [a for a in run.artifacts if a.name == "judge.helpful.trace"]
    assert artifact.path is not None
    stored = YAML(typ="safe").load((project / "records" / artifact.path).read_text())
    spans = stored["payload"]["spans"]
    assert (spans[0]["operation"], spans[0]["tags"]) == (
        "judge.helpful",
        {"scope": "judge", "scorer": "helpful"},
    )
    assert {"pydantic_ai", "openai", "httpx"} <= {span["scope"] for span in spans}
    # The report's leaderboard shows both, apart.
    report = CliRunner().invoke(cli, ["report", str(project / "records")], terminal_width=200)
    assert report.exit_code == 0, report.output
    rows = {
        line.rsplit(None, 1)[0].strip(): line.split()[-1]
        for line in report.output.splitlines()
        if line.startswith(("cost total", "judge cost total"))
    }
    assert rows == {
        "cost total (USD)": f"{task_cost:.5f}",
        "judge cost total (USD)": f"{judge_cost:.5f}",
    }
