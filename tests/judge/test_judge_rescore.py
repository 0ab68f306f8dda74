"""Re-scoring with a judge keeps the judge's spend: a real YAML spec, a judge driven by
Pydantic AI's ``FunctionModel`` with a pricing table, a real record directory, then
``autobench rescore`` with a changed rubric; the derived records keep the judge's
``judge.*`` observations, trace and rubric version, and ``report --rescored`` shows
that spend apart from the application's cost."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator
from ruamel.yaml import YAML

from autobench.cli import cli
from autobench.records import (
    SCORER_TAG,
    RescoreRecord,
    replay_experiment,
    rescorings,
    with_rescored,
)

TASK = """
def run(ctx, case):
    return {"answer": case.input["answer"]}
"""

JUDGE = """
import json
from pydantic_ai.messages import ModelResponse, ToolCallPart
from pydantic_ai.models.function import FunctionModel


def grade(messages, info):
    # A strict rubric asks for the 30-day window; a lenient one passes any answer with "refund".
    rubric = messages[-1].instructions or ""
    prompt = "\\n".join(p.content for p in messages[-1].parts if isinstance(p.content, str))
    needed = "30 days" if "STRICT" in rubric else "refund"
    ok = needed in prompt
    reason = f"mentions {needed!r}" if ok else f"no {needed!r}"
    if "STRICT" in rubric:
        reason = "under the strict rubric, which asks for the window: " + reason
    args = {"reason": reason, "verdict": "pass" if ok else "fail"}
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, json.dumps(args))])


model = FunctionModel(grade, model_name="offline-judge")
"""

SPEC = """
benchmark:
  support:
    dataset:
      cases:
        - id: exact
          input: {answer: "A refund within 30 days."}
        - id: vague
          input: {answer: "You can ask for a refund."}
        - id: off
          input: {answer: "Please restart the router."}
    run: {python: rescore_task:run}
    variants:
      v1: {}
    score:
      policy:
        judge:
          model: {python: rescore_judge:model}
          rubric: file://RUBRIC
          inputs: {answer: output.answer}
          pricing: file://pricing.yaml
        semantic: quality.answer.policy
"""

PRICING = """
pricing:
  models:
    offline-judge:
      input: {unit: mtok, price: 3.0}
      output: {unit: mtok, price: 15.0}
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "rescore_task.py").write_text(TASK)
    (tmp_path / "rescore_judge.py").write_text(JUDGE)
    (tmp_path / "lenient.md").write_text("Pass an answer that mentions a refund.\n")
    (tmp_path / "strict.md").write_text("STRICT: pass only an answer naming the 30-day window.\n")
    (tmp_path / "pricing.yaml").write_text(PRICING)
    (tmp_path / "autobench.yaml").write_text(SPEC.replace("RUBRIC", "lenient.md"))
    (tmp_path / "strict.yaml").write_text(SPEC.replace("RUBRIC", "strict.md"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("rescore_task", "rescore_judge"):
        sys.modules.pop(name, None)


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def _spend(observations: object, semantic: str) -> list[object]:
    return [o.value for o in observations if o.semantic_type == semantic]  # type: ignore[attr-defined]


def _rescored(project: Path) -> tuple[Path, dict[str, RescoreRecord], str]:
    record = project / "records"
    _invoke("run", "autobench.yaml", "--record", str(record), "--no-progress")
    runs_before = {p: p.read_bytes() for p in record.joinpath("cases").rglob("run.yaml")}
    output = _invoke(
        "rescore", str(record), "--score", "policy", "--spec", "strict.yaml", "--no-progress"
    )
    assert {p: p.read_bytes() for p in record.joinpath("cases").rglob("run.yaml")} == runs_before
    (rescoring,) = rescorings(record)
    by_case = {item.lineage.case: item for item in rescoring.records.values()}
    return record, by_case, output


def test_a_rescored_judge_keeps_its_spend_trace_and_rubric_version(project: Path) -> None:
    record, by_case, output = _rescored(project)
    assert {case: item.score.value for case, item in by_case.items()} == {
        "exact": True,
        "vague": False,  # the strict rubric fails what the lenient one passed
        "off": False,
    }
    recorded = {run.case_id: run for run in replay_experiment(record).runs}
    assert recorded["vague"].score("policy").value is True
    for case, item in by_case.items():
        assert _spend(item.observations, "judge.request.count") == [1]
        (tokens_in,) = _spend(item.observations, "judge.tokens.input")
        (tokens_out,) = _spend(item.observations, "judge.tokens.output")
        (cost,) = [o for o in item.observations if o.semantic_type == "judge.cost"]
        expected = (Decimal(tokens_in) * 3 + Decimal(tokens_out) * 15) / 1_000_000
        assert Decimal(cost.tags["exact"]) == expected
        assert all(o.tags[SCORER_TAG] == "policy" for o in item.observations)
        assert all(o.id.startswith("rescore_obs_") for o in item.observations)
        # the strict judge explains itself at more length, so it spends more output tokens
        (run_tokens,) = _spend(recorded[case].observations, "judge.tokens.output")
        assert tokens_out > run_tokens  # type: ignore[operator]
        # the judge's trace is a file beside score.yaml, with the size and digest it records
        (trace,) = item.artifacts
        assert trace.name == "judge.policy.trace" and trace.path is not None
        stored = record / trace.path
        assert stored.parent == (record / item.path).parent  # type: ignore[operator]
        assert hashlib.sha256(stored.read_bytes()).hexdigest() == trace.sha256
        spans = YAML(typ="safe").load(stored.read_text())["payload"]["spans"]
        assert spans[0]["operation"] == "judge.policy"
        # the rubric the re-score judged with, not the recorded one
        rubric = item.asset_versions["rubric.policy"]
        assert rubric.kind == "rubric"
        assert rubric.version != recorded[case].asset_versions["rubric.policy"].version
        # the file is valid by the schema its first line names, evidence included
        text = (record / item.path).read_text()  # type: ignore[operator]
        reference = text.split("\n", 1)[0].removeprefix("# yaml-language-server: $schema=")
        schema = json.loads((stored.parent / reference).read_text())
        document = json.loads(json.dumps(YAML(typ="safe").load(text), default=str))
        Draft202012Validator(schema).validate(document)
        assert len(document["observations"]) == 4 and document["artifacts"][0]["path"]
    total = sum(Decimal(_tags(item)[0]) for item in by_case.values())
    assert f"judge cost ${total:f} (3 requests" in output


def _tags(item: RescoreRecord) -> list[str]:
    return [o.tags["exact"] for o in item.observations if o.semantic_type == "judge.cost"]


def test_the_rescored_view_replaces_the_recorded_judge_spend(project: Path) -> None:
    record, by_case, _ = _rescored(project)
    result = replay_experiment(record)
    shown = {run.case_id: run for run in with_rescored(result, ("policy",)).runs}
    for case, item in by_case.items():
        run = shown[case]
        # one judge's spend per run: the re-score's, in place of the recorded judge's
        assert [o for o in run.observations if o.tags.get(SCORER_TAG) == "policy"] == list(
            item.observations
        )
        assert [a.name for a in run.artifacts if a.tags.get(SCORER_TAG) == "policy"] == [
            "judge.policy.trace"
        ]
        assert run.asset_versions["rubric.policy"] == item.asset_versions["rubric.policy"]


def test_report_rescored_shows_the_rescore_judge_cost_apart(project: Path) -> None:
    record, by_case, _ = _rescored(project)
    total = sum(Decimal(_tags(item)[0]) for item in by_case.values())
    recorded_total = sum(
        Decimal(o.tags["exact"])
        for run in replay_experiment(record).runs
        for o in run.observations
        if o.semantic_type == "judge.cost"
    )
    assert total != recorded_total
    plain = _invoke("report", str(record))
    shown = _invoke("report", str(record), "--rescored", "policy")
    flat = " ".join(shown.split())
    assert f"Re-scoring policy@{by_case['exact'].scorer.hash[:12]}: judge cost ${total:f}" in flat
    assert "3 requests" in flat and "never in the application's cost" in flat
    # the application spent nothing: no cost column but the judge's
    assert "cost mean" not in shown and "cost mean" not in plain
    assert _judge_total(shown) == pytest.approx(float(total), rel=0.01)
    assert _judge_total(plain) == pytest.approx(float(recorded_total), rel=0.01)


def _judge_total(text: str) -> float:
    """The ``judge cost total`` leaderboard cell of variant ``v1`` (the last column)."""
    board = text[text.index("Leaderboard") :]
    row = next(line for line in board.splitlines() if line.startswith("v1 "))
    return float(row.split()[-1].lstrip("*$").replace(",", ""))


def test_an_edited_rubric_file_is_a_new_definition_rescored_beside_the_first(
    project: Path,
) -> None:
    """The rubric file's text is part of the judge's identity: editing ``strict.md`` and
    rescoring with the same spec writes a second rescoring (the first is kept), not "already
    rescored"."""
    record, _, _ = _rescored(project)
    (project / "strict.md").write_text("Pass an answer that mentions a refund.\n")  # lenient now
    _invoke("rescore", str(record), "--score", "policy", "--spec", "strict.yaml", "--no-progress")
    first, second = rescorings(record)
    assert first.hash != second.hash and first.directory != second.directory
    values = [
        {item.lineage.case: item.score.value for item in rescoring.records.values()}["vague"]
        for rescoring in (first, second)
    ]
    assert sorted(values) == [False, True]  # one under the strict text, one under the edited
