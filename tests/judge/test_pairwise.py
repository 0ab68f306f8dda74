"""Pairwise judging over a real recorded two-variant experiment: judges driven by Pydantic
AI's ``FunctionModel`` (one prefers the longer answer, one always answers ``first``), the
derived record read back from disk, the report's rates, position bias and headline item."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from autobench.cli import cli
from autobench.core.runtime import run_benchmark_path
from autobench.judge._pairwise import PairwiseJudgeError, judge_pairwise
from autobench.records import (
    RecordDirectoryWriter,
    load_pairwise_record,
    pairwise_records,
    replay_experiment,
)
from autobench.report import build_report
from autobench.report._headline_text import item_text
from autobench.report._model import Headline, HeadlineComparison
from autobench.report._pairwise import pairwise_summary, with_pairwise

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"

TASK = """
def run(ctx, case):
    answer = case.input["answer"]
    if ctx.factor("style") == "long":
        answer = answer + " You can ask for it in the app, and the money is back within a week."
    return {"answer": answer}
"""

JUDGES = """
import json
import re
from pydantic_ai.messages import ModelResponse, ToolCallPart
from pydantic_ai.models.function import FunctionModel

PROMPTS = []


def _reply(info, **args):
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, json.dumps(args))])


def _side(prompt, side):
    return re.search(f"<{side}_answer>\\\\n(.*?)\\\\n</{side}_answer>", prompt, re.S).group(1)


def _pointwise(info):
    # the same judges grade each run as it is recorded (pass/fail); not what is tested here
    schema = info.output_tools[0].parameters_json_schema
    return None if "winner" in schema["properties"] else _reply(info, reason="ok", verdict="pass")


def longer(messages, info):
    if _pointwise(info):
        return _pointwise(info)
    prompt = messages[-1].parts[-1].content
    PROMPTS.append((messages[-1].instructions, prompt))
    first, second = _side(prompt, "first"), _side(prompt, "second")
    if len(first) == len(second):
        return _reply(info, reason="as long", winner="tie")
    return _reply(info, reason="more detail", winner="first" if len(first) > len(second) else "second")


def first(messages, info):
    if _pointwise(info):
        return _pointwise(info)
    return _reply(info, reason="the first reads well", winner="first")


def broken(messages, info):
    if _pointwise(info):
        return _pointwise(info)
    return _reply(info, reason="both are fine", winner="both")


longer_model = FunctionModel(longer)
broken_model = FunctionModel(broken)
first_model = FunctionModel(first)
"""

CASES = "\n".join(
    f'          - {{id: c{n}, input: {{question: "Refund?", answer: "{answer}"}}}}'
    for n, answer in enumerate(
        [
            "Yes.",
            "Yes, within 30 days.",
            "No.",
            "Yes, keep the receipt.",
            "Yes.",
            "Maybe.",
            "Yes, by card.",
            "Yes.",
        ]
    )
)

SPEC = """
benchmark:
  support:
    dataset:
      cases:
{cases}
    run: {{python: pair_task:run}}
    variants:
      short: {{factors: {{style: short}}}}
      long: {{factors: {{style: long}}}}
      same: {{factors: {{style: same}}}}
    score:
      helpful:
        judge:
          model: {{python: pair_judges:longer_model}}
          rubric: Prefer the answer that tells the customer more about the refund.
          inputs: {{question: case.input.question, answer: output.answer}}
      first_please:
        judge:
          model: {{python: pair_judges:first_model}}
          rubric: Prefer the more helpful answer.
          inputs: {{question: case.input.question, answer: output.answer}}
      unsure:
        judge:
          model: {{python: pair_judges:broken_model}}
          rubric: Prefer the more helpful answer.
          inputs: [output.answer]
      exact:
        exact: {{actual: output.answer, expected: case.input.answer}}
"""


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "pair_task.py").write_text(TASK)
    (tmp_path / "pair_judges.py").write_text(JUDGES)
    spec = tmp_path / "autobench.yaml"
    spec.write_text(SPEC.format(cases=CASES))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    root = tmp_path / "records"
    run_benchmark_path(spec, sink=RecordDirectoryWriter(root))
    yield root
    for name in ("pair_task", "pair_judges"):
        sys.modules.pop(name, None)


def test_a_judge_preferring_the_longer_answer_gives_the_candidate_every_case(record: Path) -> None:
    outcome = asyncio.run(judge_pairwise(record, "helpful", "short", "long"))
    stored = load_pairwise_record(record / outcome.record.path, root=record)
    assert stored == outcome.record
    assert stored.lineage.baseline == "short" and stored.lineage.candidate == "long"
    assert stored.lineage.judge.kind == "judge"
    assert [case.outcome for case in stored.cases] == ["win"] * 8
    first = stored.cases[0]
    assert [(o.first, o.second, o.winner) for o in first.orders] == [
        ("short", "long", "second"),
        ("long", "short", "first"),
    ]
    # the judge's spend is its own: judge.* observations, two calls per case
    requests = [o for o in first.observations if o.semantic_type == "judge.request.count"]
    assert sum(o.value for o in requests) == 2
    assert not any(o.semantic_type == "money.cost" for o in first.observations)
    summary = pairwise_summary(stored)
    assert (summary.wins, summary.ties, summary.losses) == (8, 0, 0)
    assert summary.win_rate.value == 1.0
    assert 0.6 < summary.win_rate.low < 0.7 and summary.win_rate.high == pytest.approx(1.0)
    assert summary.p_value == pytest.approx(2 / 2**8)
    assert summary.flip_rate == 0.0 and summary.first_wins == 0.5


def test_the_judge_sees_the_case_once_and_each_answer_in_its_slot(record: Path) -> None:
    asyncio.run(judge_pairwise(record, "helpful", "short", "long"))
    judges = sys.modules["pair_judges"]
    instructions, prompt = judges.PROMPTS[0]
    assert "Prefer the answer that tells the customer more" in instructions
    assert prompt.count("<question>") == 1
    assert "<first_answer>\nYes.\n</first_answer>" in prompt
    assert "<second_answer>\nYes. You can ask" in prompt


def test_a_judge_that_always_says_first_shows_position_bias_and_no_winner(record: Path) -> None:
    outcome = asyncio.run(judge_pairwise(record, "first_please", "short", "long"))
    summary = pairwise_summary(outcome.record)
    assert (summary.wins, summary.ties, summary.losses) == (0, 8, 0)
    assert summary.flip_rate == 1.0
    assert summary.first_wins == 1.0
    assert summary.verdict.value == "no detectable difference"
    assert summary.p_value is None


def test_identical_variants_tie(record: Path) -> None:
    summary = pairwise_summary(
        asyncio.run(judge_pairwise(record, "helpful", "short", "same")).record
    )
    assert (summary.wins, summary.ties, summary.losses) == (0, 8, 0)
    assert summary.flip_rate == 0.0


def test_judging_again_keeps_the_record_and_calls_no_model(record: Path) -> None:
    first = asyncio.run(judge_pairwise(record, "helpful", "short", "long"))
    calls = len(sys.modules["pair_judges"].PROMPTS)
    again = asyncio.run(judge_pairwise(record, "helpful", "short", "long"))
    assert again.kept and again.record == first.record
    assert len(sys.modules["pair_judges"].PROMPTS) == calls
    assert len(pairwise_records(record)) == 1


def test_an_unknown_variant_is_named_with_the_known_ones(record: Path) -> None:
    with pytest.raises(PairwiseJudgeError, match=r"no variant .lon.*long"):
        asyncio.run(judge_pairwise(record, "helpful", "short", "lon"))


def test_the_headline_of_the_pair_gets_a_pairwise_item(record: Path) -> None:
    asyncio.run(judge_pairwise(record, "helpful", "short", "long"))
    report = build_report(replay_experiment(record))
    items = [
        (comparison.baseline, comparison.candidate, item)
        for comparison in report.headline.comparisons
        for item in comparison.items
        if item.kind == "pairwise"
    ]
    assert len(items) == 1
    baseline, candidate, item = items[0]
    assert (baseline, candidate) == ("short", "long")
    assert item.verdict is not None and item.verdict.value == "improved"
    assert item_text(item).startswith("helpful (pairwise) wins 100%")


def test_the_command_judges_and_prints_rates_and_bias(record: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "judge",
            "pairwise",
            str(record),
            "--judge",
            "first_please",
            "--baseline",
            "short",
            "--candidate",
            "long",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "ties 8 (100%" in result.output
    assert "the verdict flips with the order on 8 of 8 cases" in result.output
    assert "first shown wins 100%" in result.output


def test_the_record_file_is_valid_against_its_checked_in_schema(record: Path) -> None:
    outcome = asyncio.run(judge_pairwise(record, "helpful", "short", "long"))
    text = (record / outcome.record.path).read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=")
    document = YAML(typ="safe").load(text)
    document["lineage"]["judged_at"] = str(document["lineage"]["judged_at"])
    schema = json.loads((SCHEMAS / "pairwise.schema.json").read_text())
    jsonschema.validate(document, schema)
    assert document["record"] == {"type": "pairwise", "version": 1}


def test_a_reply_off_the_answers_is_an_error_of_that_order_and_the_case_has_no_outcome(
    record: Path,
) -> None:
    outcome = asyncio.run(judge_pairwise(record, "unsure", "short", "long"))
    case = outcome.record.cases[0]
    assert case.outcome is None
    assert all(order.winner is None for order in case.orders)
    assert "not first, second or tie" in (case.orders[0].error or "")
    assert "both" in (case.orders[0].error or "")
    summary = pairwise_summary(outcome.record)
    assert summary.errored == 8 and summary.win_rate.total == 0
    assert summary.win_rate.value is None and summary.flip_rate is None


def test_a_scorer_that_is_not_a_judge_is_refused(record: Path) -> None:
    with pytest.raises(
        PairwiseJudgeError, match="'exact' is of kind 'exact'; pairwise judging needs a judge"
    ):
        asyncio.run(judge_pairwise(record, "exact", "short", "long"))


def test_the_item_joins_the_comparison_of_the_same_pair_after_its_items(record: Path) -> None:
    summary = pairwise_summary(
        asyncio.run(judge_pairwise(record, "helpful", "short", "long")).record
    )
    headline = Headline(
        comparisons=(
            HeadlineComparison(baseline="long", candidate="short", paired_cases=8),
            HeadlineComparison(baseline="short", candidate="long", paired_cases=8),
        )
    )
    joined = with_pairwise(headline, (summary,))
    assert [len(c.items) for c in joined.comparisons] == [0, 1]
    item = joined.comparisons[1].items[0]
    assert item.kind == "pairwise" and item.delta == 1.0
    assert item.ci_low == summary.win_rate.low
