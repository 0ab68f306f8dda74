"""The ``judge`` scorer: real YAML specs run end to end, judges driven by Pydantic AI's
``TestModel`` and ``FunctionModel`` and by the real OpenAI client against a local
OpenAI-compatible HTTP server; records read back from disk."""

from __future__ import annotations

import json
import sys
import textwrap
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from judge_support import send_json, tool_call_reply
from ruamel.yaml import YAML

from autobench.core.runtime import run_benchmark_path
from autobench.core.spec import SpecError, dump_benchmark_spec, load_benchmark_spec
from autobench.core.tracking import track
from autobench.records import (
    ObservationQuery,
    RecordDirectoryWriter,
    RunRecord,
    load_run_record,
    run_observations,
    run_record_path,
)

TASK = """
def run(ctx, case):
    return {"answer": case.input["answer"]}
"""

JUDGES = """
import json
from pydantic_ai.messages import ModelResponse, ToolCallPart
from pydantic_ai.models.function import FunctionModel

CALLS = []


def _prompt(messages):
    return "\\n".join(
        part.content for part in messages[-1].parts if isinstance(part.content, str)
    )


def _reply(info, **args):
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, json.dumps(args))])


def policy(messages, info):
    # The judge sees the rubric in its instructions and the answer in its prompt.
    prompt = _prompt(messages)
    CALLS.append((messages[-1].instructions or "", prompt))
    ok = "refund within 30 days" in prompt
    return _reply(info, reason="cites the policy" if ok else "no policy", verdict="pass" if ok else "fail")


def graded(messages, info):
    return _reply(info, reason="too short", score=9)  # off a 1..5 scale


def tone(messages, info):
    prompt = _prompt(messages)
    return _reply(info, reason="tone", label="rude" if "no." in prompt else "polite")


FLAKY = []


def flaky(messages, info):
    FLAKY.append(1)
    if len(FLAKY) == 1:
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, "{not json")])
    return _reply(info, reason="second try", score=4)


async def stuck(messages, info):
    import asyncio

    await asyncio.Event().wait()  # never answers


IN_FLIGHT = []
MOST = []


async def counted(messages, info):
    import asyncio

    IN_FLIGHT.append(1)
    MOST.append(len(IN_FLIGHT))
    for _ in range(20):
        await asyncio.sleep(0)
    IN_FLIGHT.pop()
    return _reply(info, reason="ok", verdict="pass")


stuck_model = FunctionModel(stuck)
counted_model = FunctionModel(counted)
policy_model = FunctionModel(policy)
graded_model = FunctionModel(graded)
tone_model = FunctionModel(tone)
flaky_model = FunctionModel(flaky)
"""

RUBRIC = "Pass when the answer states the refund policy (refund within 30 days).\n"


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "judge_task.py").write_text(TASK)
    (tmp_path / "judge_models.py").write_text(JUDGES)
    (tmp_path / "rubric.md").write_text(RUBRIC)
    yield tmp_path
    for name in ("judge_task", "judge_models"):
        sys.modules.pop(name, None)


def _spec(directory: Path, score: str) -> Path:
    spec = directory / "autobench.yaml"
    spec.write_text(
        textwrap.dedent(
            """
            benchmark:
              support:
                dataset:
                  cases:
                    - id: good
                      input: {question: "Can I get my money back?", answer: "Yes: refund within 30 days."}
                      expected: {answer: "Yes: refund within 30 days."}
                    - id: bad
                      input: {question: "Can I get my money back?", answer: "no."}
                      expected: {answer: "Yes: refund within 30 days."}
                run: {python: judge_task:run}
                variants:
                  v1: {}
                score:
            """
        )
        + textwrap.indent(textwrap.dedent(score), " " * 6)
    )
    return spec


def _runs(spec: Path, root: Path) -> dict[str, RunRecord]:
    result = run_benchmark_path(spec, sink=RecordDirectoryWriter(root))
    return {
        run.case.id: load_run_record(root / run_record_path(run.case.id, "v1"))
        for run in result.runs
    }


def _score(run: RunRecord, name: str) -> Any:
    return next(score for score in run.scores if score.name == name)


POLICY = """
policy_ok:
  judge:
    model: {python: judge_models:policy_model}
    rubric: file://rubric.md
    inputs: {question: case.input.question, answer: output.answer}
  semantic: quality.answer.policy
exact:
  exact: {actual: output.answer, expected: case.expected.answer}
"""


def test_a_yaml_judge_reads_its_paths_and_rubric_and_keeps_its_reason(project: Path) -> None:
    runs = _runs(_spec(project, POLICY), project / "records")
    good, bad = _score(runs["good"], "policy_ok"), _score(runs["bad"], "policy_ok")
    assert (good.value, good.reason) == (True, "cites the policy")
    assert (bad.value, bad.reason) == (False, "no policy")
    assert good.semantic_type == "quality.answer.policy"
    calls = sys.modules["judge_models"].CALLS
    instructions, prompt = calls[0]
    assert RUBRIC.strip() in instructions and "pass or fail" in instructions
    assert "<question>\nCan I get my money back?\n</question>" in prompt
    # the rubric is a tracked asset: each run records the version it was judged with
    binding = runs["good"].asset_versions["rubric.policy_ok"]
    assert binding.kind == "rubric"
    assert binding.version == track.get("rubric.policy_ok").version


def test_the_judge_spend_is_its_own_and_its_trace_is_an_artifact(project: Path) -> None:
    root = project / "records"
    runs = _runs(_spec(project, POLICY), root)
    run = runs["good"]
    query = ObservationQuery(observations=run_observations(run))
    assert query.values("judge.request.count") == [1]
    assert query.values("judge.tokens.input")[0] > 0
    assert query.values("llm.tokens.input") == []  # the application made no model call
    assert query.values("money.cost") == []
    [artifact] = [a for a in run.artifacts if a.name == "judge.policy_ok.trace"]
    assert artifact.path is not None
    stored = YAML(typ="safe").load((root / artifact.path).read_text())
    [span] = stored["payload"]["spans"]
    assert (span["operation"], span["kind"], span["tags"]["scope"]) == (
        "judge.policy_ok",
        "judge",
        "judge",
    )
    assert span["usage"]["requests"] == 1
    assert all(s.kind != "judge" for s in run.spans)  # not in the application's trace


def test_a_file_rubric_changed_is_a_new_version(project: Path) -> None:
    spec = _spec(project, POLICY)
    first = _runs(spec, project / "r1")["good"].asset_versions["rubric.policy_ok"]
    (project / "rubric.md").write_text(RUBRIC + "Be strict.\n")
    second = _runs(spec, project / "r2")["good"].asset_versions["rubric.policy_ok"]
    assert first.version != second.version
    assert track.get("rubric.policy_ok").current.parent == first.version


def test_an_off_scale_reply_is_a_located_scorer_error_not_a_task_failure(project: Path) -> None:
    spec = _spec(
        project,
        """
        grade:
          judge:
            model: {python: judge_models:graded_model}
            rubric: Grade the answer from 1 to 5.
            inputs: [output.answer]
            scale: {min: 1, max: 5}
        exact:
          exact: {actual: output.answer, expected: case.expected.answer}
        """,
    )
    run = _runs(spec, project / "records")["good"]
    grade = _score(run, "grade")
    assert grade.value is None and grade.error is not None
    assert "JudgeReplyError" in grade.error
    assert "autobench.yaml:" in grade.error  # the scorer's place in the spec
    assert "a whole number from 1 to 5" in grade.error
    assert '"score":9' in grade.error.replace(" ", "")  # the reply itself
    [error] = [e for e in run.errors if e.stage == "scorer"]
    assert error.source == "grade"
    assert not [e for e in run.errors if e.stage == "task"]
    assert run.output == {"answer": "Yes: refund within 30 days."}
    assert _score(run, "exact").value == 1.0  # the other scores stand
    # the failed judge call still spent tokens, and they are recorded
    query = ObservationQuery(observations=run_observations(run))
    assert query.values("judge.request.count") == [1]


def test_a_malformed_reply_is_retried_and_every_attempt_counted(project: Path) -> None:
    spec = _spec(
        project,
        """
        grade:
          judge:
            model: {python: judge_models:flaky_model}
            rubric: Grade the answer from 1 to 5.
            scale: {min: 1, max: 5}
            retries: 1
        """,
    )
    runs = _runs(spec, project / "records")
    first = runs["good"]  # the first run met the malformed reply, then a good one
    assert (_score(first, "grade").value, _score(first, "grade").reason) == (4, "second try")
    query = ObservationQuery(observations=run_observations(first))
    assert query.values("judge.request.count") == [2]


def test_a_label_scale_gives_the_label(project: Path) -> None:
    spec = _spec(
        project,
        """
        tone:
          judge:
            model: {python: judge_models:tone_model}
            rubric: Is the answer polite?
            inputs: {answer: output.answer}
            scale: {labels: [polite, neutral, rude]}
            examples:
              - {output: {answer: "Sure, happy to help."}, verdict: polite, reason: friendly}
        """,
    )
    runs = _runs(spec, project / "records")
    assert [_score(runs[c], "tone").value for c in ("good", "bad")] == ["polite", "rude"]


def test_a_pydantic_ai_model_string_judges_on_an_integer_scale(project: Path) -> None:
    spec = _spec(
        project,
        """
        grade:
          judge:
            model: test
            rubric: Grade the answer from 2 to 4.
            scale: {min: 2, max: 4}
        """,
    )
    for run in _runs(spec, project / "records").values():
        value = _score(run, "grade").value
        assert type(value) is int and 2 <= value <= 4


def test_a_missing_input_path_is_a_scorer_error(project: Path) -> None:
    spec = _spec(
        project,
        """
        grade:
          judge: {model: test, rubric: r, inputs: [output.nothing]}
        """,
    )
    run = _runs(spec, project / "records")["good"]
    error = _score(run, "grade").error
    assert error is not None and "MissingPathError" in error and "output.nothing" in error


@pytest.mark.parametrize(
    ("judge", "message"),
    [
        ("{model: test, rubric: r, scale: {min: 3, max: 1}}", "max (1) must be above min (3)"),
        (
            "{model: test, rubric: r, scale: {labels: [a, b]}, examples: [{verdict: c}]}",
            "judge example 1: verdict 'c' is not one of the labels a, b",
        ),
        ("{model: test, rubric: r, scale: 5}", "scale"),
        ("{model: {name: m, base_url: 'http://x', api_key: sk-1}, rubric: r}", "api_key"),
    ],
)
def test_spec_errors_are_located(project: Path, judge: str, message: str) -> None:
    spec = _spec(project, f"grade:\n  judge: {judge}\n")
    with pytest.raises(SpecError) as caught:
        load_benchmark_spec(spec)
    assert message in str(caught.value)
    assert "autobench.yaml:" in str(caught.value)


def test_a_missing_rubric_file_stops_the_run_before_any_run(project: Path) -> None:
    spec = _spec(project, "grade:\n  judge: {model: test, rubric: file://missing.md}\n")
    with pytest.raises(Exception, match=r"autobench\.yaml:\d+:\d+: judge scorer 'grade' rubric"):
        run_benchmark_path(spec)


def test_the_spec_writes_back_to_yaml_and_loads_equal(project: Path) -> None:
    spec = _spec(
        project,
        """
        tone:
          judge:
            model: {name: llama, base_url: "http://localhost:1/v1", api_key_env: LOCAL_KEY}
            rubric: file://rubric.md
            inputs: {answer: output.answer}
            scale: {labels: [polite, rude]}
            examples: [{output: hi, verdict: polite}]
            timeout: 5
            retries: 2
          role: constraint
        """,
    )
    loaded = load_benchmark_spec(spec)
    again = project / "again.yaml"
    again.write_text(dump_benchmark_spec(loaded))
    assert load_benchmark_spec(again).scoring == loaded.scoring


# -- an OpenAI-compatible endpoint: the real OpenAI client over HTTP to a local server ------


class _Endpoint(BaseHTTPRequestHandler):
    requests: list[tuple[str, str, dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        type(self).requests.append((self.path, self.headers["authorization"], body))
        tool = body["tools"][0]["function"]["name"]
        send_json(
            self, tool_call_reply(body["model"], tool, {"reason": "fine", "verdict": "pass"}, 120)
        )

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    _Endpoint.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_an_openai_compatible_endpoint_with_its_key_from_the_environment(
    project: Path, endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_TEST_KEY", "sk-judge-key")
    (project / "pricing.yaml").write_text(
        "pricing:\n  models:\n    local-judge:\n"
        "      input: {unit: mtok, price: 1.0}\n      output: {unit: mtok, price: 4.0}\n"
    )
    spec = _spec(
        project,
        f"""
        policy_ok:
          judge:
            model: {{name: local-judge, base_url: "{endpoint}", api_key_env: JUDGE_TEST_KEY}}
            rubric: file://rubric.md
            inputs: [output.answer]
            pricing: file://pricing.yaml
        """,
    )
    assert "sk-judge-key" not in spec.read_text()
    runs = _runs(spec, project / "records")
    assert _score(runs["good"], "policy_ok").value is True
    path, authorization, body = _Endpoint.requests[0]
    assert path == "/v1/chat/completions"
    assert authorization == "Bearer sk-judge-key"
    assert body["model"] == "local-judge"
    query = ObservationQuery(observations=run_observations(runs["good"]))
    assert query.values("judge.tokens.input") == [120]
    assert query.values("judge.tokens.output") == [15]
    assert query.values("judge.cost") == [pytest.approx((120 * 1.0 + 15 * 4.0) / 1e6)]


def test_an_unset_key_variable_is_a_scorer_error_naming_it(project: Path, endpoint: str) -> None:
    spec = _spec(
        project,
        f"""
        policy_ok:
          judge:
            model: {{name: m, base_url: "{endpoint}", api_key_env: JUDGE_UNSET_KEY_VAR}}
            rubric: r
        """,
    )
    error = _score(_runs(spec, project / "records")["good"], "policy_ok").error
    assert error is not None and "JUDGE_UNSET_KEY_VAR" in error
    assert _Endpoint.requests == []


def test_the_builder_takes_a_judge_object_or_mapping(project: Path) -> None:
    from autobench import Benchmark
    from autobench.judge import IntegerScale, JudgeScorer

    sys.path.insert(0, str(project))
    try:
        result = (
            Benchmark("built")
            .dataset([{"id": "c1", "input": {"answer": "refund within 30 days"}}])
            .variants([{"id": "v1"}])
            .task("judge_task:run")
            .scoring(
                [
                    JudgeScorer(
                        name="grade",
                        model="test",
                        rubric="Grade 1 to 3.",
                        scale=IntegerScale(min=1, max=3),
                    ),
                    {
                        "kind": "judge",
                        "name": "policy_ok",
                        "model": {"python": "judge_models:policy_model"},
                        "rubric": "file://rubric.md",
                        "inputs": ["output.answer"],
                    },
                ]
            )
            .base_dir(project)
            .run()
        )
    finally:
        sys.path.remove(str(project))
    scores = {score.name: score.value for score in result.runs[0].scores}
    assert scores["policy_ok"] is True
    assert scores["grade"] in (1, 2, 3)


def test_the_editor_schema_completes_a_judge_and_refuses_an_inline_key() -> None:
    from jsonschema import Draft202012Validator

    from autobench.core.plugins import new_plugin_manager
    from autobench.core.schemas import editor_schemas

    # the installed plugins' kinds, as `autobench schema` writes them: the judge among them
    schemas = editor_schemas(new_plugin_manager())
    validator = Draft202012Validator(schemas["benchmark_schema.json"])

    def spec(judge: dict[str, Any]) -> dict[str, Any]:
        return {
            "benchmark": {
                "b": {
                    "dataset": {"cases": [{"id": "c"}]},
                    "run": {"python": "m:f"},
                    "score": {"j": {"judge": judge, "semantic": "quality.answer"}},
                }
            }
        }

    good = {
        "model": {"name": "m", "base_url": "http://x/v1", "api_key_env": "KEY"},
        "rubric": "file://rubric.md",
        "inputs": {"answer": "output.answer"},
        "scale": {"labels": ["good", "bad"]},
        "examples": [{"output": "hi", "verdict": "good", "reason": "ok"}],
    }
    assert list(validator.iter_errors(spec(good))) == []
    keyed = {**good, "model": {"name": "m", "base_url": "http://x/v1", "api_key": "sk-1"}}
    assert list(validator.iter_errors(spec(keyed))) != []


def test_a_judge_call_past_its_timeout_is_retried_then_a_scorer_error(project: Path) -> None:
    spec = _spec(
        project,
        """
        grade:
          judge: {model: {python: judge_models:stuck_model}, rubric: r, timeout: 0.01, retries: 1}
        """,
    )
    run = _runs(spec, project / "records")["good"]
    error = _score(run, "grade").error
    assert error is not None and "JudgeCallError" in error and "timed out" in error
    query = ObservationQuery(observations=run_observations(run))
    assert query.values("judge.request.count") == [0]  # no reply came back


def test_judges_stay_within_the_run_concurrency(project: Path) -> None:
    spec = project / "autobench.yaml"
    cases = "".join(f"        - {{id: c{i}, input: {{answer: a}}}}\n" for i in range(6))
    spec.write_text(
        "benchmark:\n  many:\n    dataset:\n      cases:\n"
        + cases
        + "    run: {python: judge_task:run}\n"
        "    variants: {v1: {}}\n"
        "    score:\n      ok:\n        judge: {model: {python: judge_models:counted_model}, rubric: r}\n"
    )
    root = project / "records"
    result = run_benchmark_path(spec, concurrency_limit=2, sink=RecordDirectoryWriter(root))
    assert [score.value for run in result.runs for score in run.scores] == [True] * 6
    most = sys.modules["judge_models"].MOST
    assert len(most) == 6 and max(most) <= 2


def test_a_pricing_table_without_the_judge_model_is_a_diagnostic(project: Path) -> None:
    (project / "pricing.yaml").write_text(
        "pricing:\n  models:\n    other:\n      input: {unit: mtok, price: 1.0}\n"
        "      output: {unit: mtok, price: 1.0}\n"
    )
    spec = _spec(
        project,
        """
        ok:
          judge: {model: {python: judge_models:policy_model}, rubric: r, pricing: file://pricing.yaml}
        """,
    )
    run = _runs(spec, project / "records")["good"]
    query = ObservationQuery(observations=run_observations(run))
    assert query.values("judge.cost") == []
    [diagnostic] = [o for o in run.observations if o.name == "judge_cost_unknown_pricing"]
    assert diagnostic.reason is not None and "no price for the model" in diagnostic.reason
    assert diagnostic.tags["metric"] == "judge.cost"


@pytest.mark.skipif(
    "OPENAI_API_KEY" not in __import__("os").environ, reason="live: needs OPENAI_API_KEY"
)
def test_live_an_openai_judge_grades_the_policy_answers(project: Path) -> None:
    spec = _spec(
        project,
        """
        policy_ok:
          judge:
            model: openai:gpt-4o-mini
            rubric: file://rubric.md
            inputs: {answer: output.answer}
        """,
    )
    runs = _runs(spec, project / "records")
    assert [_score(runs[c], "policy_ok").value for c in ("good", "bad")] == [True, False]
    query = ObservationQuery(observations=run_observations(runs["good"]))
    assert query.values("judge.request.count") == [1]
