"""The ``schema`` and ``python`` scorers, through real YAML specs and real modules on disk."""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import pytest
from runtime_support import CollectingSink, run

from autobench import (
    BenchmarkSpec,
    PythonScorer,
    SchemaScorer,
    ScoreRecord,
    Semantic,
    load_benchmark_spec,
)
from autobench.core.scoring import ScorerResolutionError
from autobench.core.spec import SpecError
from autobench.records import EvaluationStatus, RunRecord, RunStatus, TaskStatus

_ids = itertools.count(1)


def _write(directory: Path, name: str, source: str) -> None:
    (directory / f"{name}.py").write_text(textwrap.dedent(source))


def _spec(tmp_path: Path, body: str) -> BenchmarkSpec:
    path = tmp_path / "autobench.yaml"
    path.write_text(textwrap.dedent(body))
    return load_benchmark_spec(path)


def _by_case(runs: tuple[RunRecord, ...] | list[RunRecord]) -> dict[str, RunRecord]:
    return {record.case_id: record for record in runs}


TASK = """
def run(ctx, case):
    ctx.metric("seen", 1)
    if case.input.get("boom"):
        raise RuntimeError("task broke")
    return case.input["output"]
"""


def _module(tmp_path: Path, prefix: str, source: str) -> str:
    name = f"{prefix}_{next(_ids)}"
    _write(tmp_path, name, source)
    return name


# --- schema --------------------------------------------------------------------------------


def test_json_schema_scorer_scores_validity_and_names_failing_paths(tmp_path: Path) -> None:
    task = _module(tmp_path, "schema_task", TASK)
    spec = _spec(
        tmp_path,
        f"""\
        benchmark:
          shapes:
            cases:
              - {{id: good, input: {{output: {{answer: yes, citations: [a, b]}}}}}}
              - {{id: missing, input: {{output: {{answer: yes}}}}}}
              - {{id: wrong_type, input: {{output: {{answer: yes, citations: [a, 5]}}}}}}
              - {{id: dependent, input: {{output: {{answer: yes, citations: [], refund: 5}}}}}}
            run: {{python: "{task}:run"}}
            variants: {{v1: {{}}}}
            score:
              output_shape:
                schema:
                  path: output
                  schema:
                    $defs:
                      cite: {{type: string}}
                    type: object
                    required: [answer, citations]
                    properties:
                      answer: {{type: string}}
                      citations: {{type: array, items: {{$ref: "#/$defs/cite"}}}}
                    dependentRequired:
                      refund: [refund_reason]
                semantic: agent.output.structure.validity
        """,
    )
    (scorer,) = spec.scoring
    assert isinstance(scorer, SchemaScorer) and scorer.path == "output"
    runs = _by_case(run(spec).runs)
    good = runs["good"].scores[0]
    assert (good.value, good.reason, good.semantic_type) == (
        1.0,
        None,
        "agent.output.structure.validity",
    )
    assert runs["missing"].scores[0].value == 0.0
    assert runs["missing"].scores[0].reason == "$.citations: 'citations' is a required property"
    assert runs["wrong_type"].scores[0].reason == "$.citations[1]: 5 is not of type 'string'"
    assert runs["dependent"].scores[0].reason == "$: 'refund_reason' is a dependency of 'refund'"
    # an invalid value is a 0.0 objective score, not an error
    assert {r.status for r in runs.values()} == {RunStatus.PASSED}


def test_schema_scorer_python_api_and_structured_round_trip(tmp_path: Path) -> None:
    task = _module(tmp_path, "schema_task", TASK)
    scorer = SchemaScorer(
        name="output_shape",
        path="output",
        schema={"type": "object", "required": ["answer", "citations"]},
        semantic_type=Semantic.AGENT_OUTPUT_STRUCTURE_VALIDITY,
    )
    spec = BenchmarkSpec(
        benchmark={"id": "api"},
        dataset={"cases": [{"id": "c", "input": {"output": {"answer": 1}}}]},
        variants=[{"id": "v1"}],
        task={"target": f"{task}:run"},
        scoring=[scorer],
        base_dir=tmp_path,
    )
    again = BenchmarkSpec.model_validate(spec.model_dump(mode="json"))
    assert again.scoring == spec.scoring
    (record,) = run(spec).runs
    assert (record.scores[0].value, record.scores[0].reason) == (
        0.0,
        "$.citations: 'citations' is a required property",
    )


def test_pydantic_model_target_resolves_next_to_the_spec(tmp_path: Path) -> None:
    task = _module(tmp_path, "schema_task", TASK)
    models = _module(
        tmp_path,
        "answer_models",
        """
        from pydantic import BaseModel

        class Line(BaseModel):
            price: float

        class Answer(BaseModel):
            answer: str
            citations: list[str]
            lines: list[Line] = []

        NOT_A_MODEL = 3
        """,
    )
    spec = _spec(
        tmp_path,
        f"""\
        benchmark:
          models:
            cases:
              - {{id: good, input: {{output: {{answer: yes, citations: [a]}}}}}}
              - {{id: bad, input: {{output: {{answer: yes, lines: [{{price: 1}}, {{price: x}}]}}}}}}
            run: {{python: "{task}:run"}}
            variants: {{v1: {{}}}}
            score:
              typed:
                schema: {{path: output, model: "{models}:Answer"}}
        """,
    )
    runs = _by_case(run(spec).runs)
    assert runs["good"].scores[0].value == 1.0
    bad = runs["bad"].scores[0]
    assert bad.value == 0.0
    assert bad.reason is not None
    assert bad.reason.split("; ") == [
        "$.citations: Field required",
        "$.lines[1].price: Input should be a valid number, unable to parse string as a number",
    ]

    not_a_model = _spec(
        tmp_path,
        f"""\
        benchmark:
          models:
            cases: [{{id: c, input: {{output: {{}}}}}}]
            run: {{python: "{task}:run"}}
            variants: {{v1: {{}}}}
            score:
              typed: {{schema: {{model: "{models}:NOT_A_MODEL"}}}}
        """,
    )
    with pytest.raises(ScorerResolutionError, match="is not a pydantic model class"):
        run(not_a_model)


def test_missing_model_module_fails_the_experiment_start(tmp_path: Path) -> None:
    task = _module(tmp_path, "schema_task", TASK)
    spec = _spec(
        tmp_path,
        f"""\
        benchmark:
          models:
            cases: [{{id: c, input: {{output: {{}}}}}}]
            run: {{python: "{task}:run"}}
            variants: {{v1: {{}}}}
            score:
              typed: {{schema: {{model: "no_such_models_module:Answer"}}}}
        """,
    )
    sink = CollectingSink()
    with pytest.raises(ScorerResolutionError, match="cannot import module 'no_such_models_module'"):
        run(spec, sink=sink)
    assert sink.calls == []


@pytest.mark.parametrize(
    ("score", "message"),
    [
        (
            "schema: {path: output, schema: {type: objekt}}",
            "autobench.yaml:6:17: invalid 'schema' of scorer 'shape': not a valid JSON Schema"
            " (draft 2020-12) at $.type:",
        ),
        (
            "schema: {path: output, schema: {type: object}, model: 'm:M'}",
            "autobench.yaml:6:17: invalid scorer 'shape': a schema scorer needs exactly one of"
            " 'schema' and 'model'",
        ),
        (
            "schema: {model: not-a-target}",
            "autobench.yaml:6:25: invalid 'model' of scorer 'shape': schema model 'not-a-target'"
            " must have the form 'module:attribute'",
        ),
    ],
)
def test_invalid_schema_scorers_are_located_spec_errors(
    tmp_path: Path, score: str, message: str
) -> None:
    path = tmp_path / "autobench.yaml"
    path.write_text(
        "benchmark:\n  b:\n    cases: [{id: c}]\n    score:\n      shape:\n        " + score + "\n"
    )
    with pytest.raises(SpecError) as info:
        load_benchmark_spec(path)
    assert str(info.value).removeprefix(f"{tmp_path}/").startswith(message)


def test_invalid_schema_is_located_in_the_structured_form(tmp_path: Path) -> None:
    path = tmp_path / "autobench.yaml"
    path.write_text(
        "benchmark: {id: b}\n"
        "scoring:\n"
        "  - kind: schema\n"
        "    name: shape\n"
        "    schema:\n"
        "      type: object\n"
        "      required: yes\n"
    )
    with pytest.raises(SpecError) as info:
        load_benchmark_spec(path)
    assert (
        str(info.value)
        .removeprefix(f"{tmp_path}/")
        .startswith(
            "autobench.yaml:6:7: invalid 'schema' of scorer 'shape': not a valid JSON Schema"
        )
    )


# --- python --------------------------------------------------------------------------------

SCORERS = """
from autobench import ScoreRecord

def rubric(call):
    output = call.output
    score = 0.7 if call.case.expected["must_mention"] in output["answer"] else 0.0
    if output.get("citations"):
        score += 0.3
    return ScoreRecord(name="rubric", value=round(score, 2), actual_value=output["answer"])

async def length(call):
    return min(len(call.output["answer"]) / 10, 1.0)

def call_view(call):
    return {
        "same_output": call.task_result is call.output,
        "case": call.case.id,
        "variant": call.variant.id,
        "run": call.ctx.run_id,
        "observations": [o.name for o in call.observations],
        "spans": [s.operation for s in call.spans],
        "selected": [s.operation for s in call.selected_spans],
    }

def picky(call):
    if call.case.id == "bad":
        raise RuntimeError("picky scorer broke")
    return True

VALUE = 1
"""


def test_python_scorers_sync_async_and_call_fields(tmp_path: Path) -> None:
    task = _module(tmp_path, "py_task", TASK)
    scorers = _module(tmp_path, "py_scorers", SCORERS)
    spec = _spec(
        tmp_path,
        f"""\
        benchmark:
          custom:
            cases:
              - id: good
                input: {{output: {{answer: refund approved, citations: [kb1]}}}}
                expected: {{must_mention: refund}}
              - id: bad
                input: {{output: {{answer: no}}}}
                expected: {{must_mention: refund}}
            run: {{python: "{task}:run"}}
            variants: {{v1: {{}}}}
            score:
              rubric: {{python: "{scorers}:rubric", semantic: quality.score}}
              length: {{python: "{scorers}:length", role: diagnostic}}
              view: {{python: "{scorers}:call_view", role: diagnostic}}
              picky: {{python: "{scorers}:picky", role: constraint}}
        """,
    )
    assert isinstance(spec.scoring[0], PythonScorer)
    assert spec.scoring[0].target == f"{scorers}:rubric"
    runs = _by_case(run(spec, concurrency_limit=2).runs)
    good = {score.name: score for score in runs["good"].scores}
    assert (good["rubric"].value, good["rubric"].semantic_type, good["rubric"].actual_value) == (
        1.0,
        "quality.score",
        "refund approved",
    )
    assert good["length"].value == 1.0
    assert good["view"].value == {
        "same_output": True,
        "case": "good",
        "variant": "v1",
        "run": runs["good"].run_id,
        "observations": ["seen"],
        "spans": ["benchmark.run"],
        "selected": ["benchmark.run"],
    }
    assert good["picky"].value is True and runs["good"].status is RunStatus.PASSED
    # the raising scorer is an error on its run only
    bad = {score.name: score for score in runs["bad"].scores}
    assert bad["rubric"].value == 0.0 and bad["length"].value == 0.2
    assert bad["picky"].error == "RuntimeError: picky scorer broke"
    assert [(e.stage, e.source) for e in runs["bad"].errors] == [("scorer", "picky")]
    assert runs["bad"].status is RunStatus.ERRORED


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (
            "missing_scorer_module:fn",
            "cannot import module 'missing_scorer_module' of python scorer",
        ),
        ("{scorers}:nope", "has no attribute 'nope'"),
        ("{scorers}:VALUE", "which is not callable"),
    ],
)
def test_unresolvable_python_scorer_fails_before_any_run(
    tmp_path: Path, target: str, message: str
) -> None:
    task = _module(tmp_path, "py_task", TASK)
    scorers = _module(tmp_path, "py_scorers", SCORERS)
    spec = _spec(
        tmp_path,
        f"""\
        benchmark:
          custom:
            cases: [{{id: c, input: {{output: {{answer: x}}}}}}]
            run: {{python: "{task}:run"}}
            variants: {{v1: {{}}}}
            score:
              s: {{python: "{target.format(scorers=scorers)}"}}
        """,
    )
    sink = CollectingSink()
    with pytest.raises(ScorerResolutionError, match=message) as info:
        run(spec, sink=sink)
    assert "python scorer 's'" in str(info.value)
    assert sink.calls == []


def test_python_scorer_target_syntax_is_a_spec_error(tmp_path: Path) -> None:
    path = tmp_path / "autobench.yaml"
    path.write_text("benchmark:\n  b:\n    score:\n      s:\n        python: no_colon\n")
    with pytest.raises(SpecError) as info:
        load_benchmark_spec(path)
    assert str(info.value).removeprefix(f"{tmp_path}/") == (
        "autobench.yaml:5:17: invalid 'target' of scorer 's': python scorer target 'no_colon'"
        " must have the form 'module:attribute'"
    )


def test_python_scorer_runs_on_an_errored_run(tmp_path: Path) -> None:
    task = _module(tmp_path, "py_task", TASK)
    scorers = _module(tmp_path, "py_scorers", SCORERS)
    spec = _spec(
        tmp_path,
        f"""\
        benchmark:
          custom:
            cases: [{{id: boom, input: {{boom: true}}}}]
            run: {{python: "{task}:run"}}
            variants: {{v1: {{}}}}
            score:
              view: {{python: "{scorers}:call_view"}}
        """,
    )
    (record,) = run(spec).runs
    assert (record.task_status, record.evaluation_status, record.status) == (
        TaskStatus.ERRORED,
        EvaluationStatus.PASSED,
        RunStatus.ERRORED,
    )
    view = record.scores[0].value
    assert view["same_output"] is True and view["observations"] == ["seen"]
    assert isinstance(record.scores[0], ScoreRecord)


def test_the_spec_names_the_score_and_none_is_a_scorer_error(tmp_path: Path) -> None:
    (tmp_path / "naming_scorers.py").write_text(
        "from autobench import ScoreRecord\n"
        "def renamed(call):\n    return ScoreRecord(name='other', value=1.0)\n"
        "def nothing(call):\n    return None\n"
    )
    (tmp_path / "naming_task.py").write_text("def run(ctx, case):\n    return {}\n")
    spec = BenchmarkSpec.model_validate(
        dict(
            benchmark={"id": "names"},
            dataset={"cases": [{"id": "c"}]},
            variants=[{"id": "v"}],
            task={"target": "naming_task:run"},
            scoring=[
                {"kind": "python", "name": "first", "target": "naming_scorers:renamed"},
                {"kind": "python", "name": "second", "target": "naming_scorers:nothing"},
            ],
            base_dir=tmp_path,
        )
    )
    (record,) = run(spec).runs
    assert [score.name for score in record.scores] == ["first", "second"]
    assert record.scores[0].value == 1.0
    assert record.scores[1].error is not None and "returned None" in record.scores[1].error
