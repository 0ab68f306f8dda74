"""Judge rate limits: ``judge: {limits: {...}}`` on real YAML specs, judges driven by
Pydantic AI's ``FunctionModel``, the waits on a fake clock (``JudgeBudgets(clock=...,
sleep=...)``): the call starts are the limiter's own schedule, never wall-clock time."""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from autobench.core.rescore import rescore_experiment
from autobench.core.runtime import run_benchmark_path
from autobench.core.spec import SpecError, dump_benchmark_spec, load_benchmark_spec
from autobench.judge._limits import JudgeBudgets, judge_budgets
from autobench.judge._pairwise import judge_pairwise
from autobench.records import RecordDirectoryWriter, RunRecord, load_pairwise_record

JUDGES = """
import asyncio
import json
from pydantic_ai.messages import ModelResponse, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.usage import RequestUsage

CLOCK = None      # set by the test: the fake clock the judges' budgets wait on
STARTS = []       # (judge, fake time) of every call
IN_FLIGHT = []
MOST = []


def _reply(info, tokens, **args):
    usage = RequestUsage(input_tokens=tokens - 100, output_tokens=100)
    return ModelResponse(
        parts=[ToolCallPart(info.output_tools[0].name, json.dumps(args))], usage=usage
    )


async def _call(name, info, tokens, **args):
    STARTS.append((name, CLOCK.now))
    IN_FLIGHT.append(1)
    MOST.append(len(IN_FLIGHT))
    for _ in range(50):
        await asyncio.sleep(0)  # lets other runs' judges in, were the budget to allow it
    IN_FLIGHT.pop()
    return _reply(info, tokens, **args)


async def passes(messages, info):
    if "winner" in info.output_tools[0].parameters_json_schema["properties"]:
        return await _call("pairwise", info, 200, reason="same", winner="tie")
    return await _call("passes", info, 200, reason="fine", verdict="pass")


FLAKY = []


async def flaky(messages, info):
    # The first reply is malformed and used 900 tokens; the retry answers.
    FLAKY.append(1)
    if len(FLAKY) == 1:
        STARTS.append(("flaky", CLOCK.now))
        return ModelResponse(
            parts=[ToolCallPart(info.output_tools[0].name, "{not json")],
            usage=RequestUsage(input_tokens=800, output_tokens=100),
        )
    return await _call("flaky", info, 200, reason="second try", verdict="pass")


passes_model = FunctionModel(passes)
flaky_model = FunctionModel(flaky)
"""

TASK = """
def run(ctx, case):
    return {"answer": case.input + " " + str(ctx.variant.id)}
"""


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += max(seconds, 0.0)
        await asyncio.sleep(0)


@pytest.fixture
def judges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, FakeClock]]:
    (tmp_path / "limit_task.py").write_text(TASK)
    (tmp_path / "limit_judges.py").write_text(JUDGES)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("limit_judges")
    clock = FakeClock()
    module.CLOCK = clock
    with judge_budgets(JudgeBudgets(clock=clock, sleep=clock.sleep)):
        yield module, clock
    for name in ("limit_task", "limit_judges"):
        sys.modules.pop(name, None)


def _spec(directory: Path, cases: int, score: str, variants: str = "v1: {}") -> Path:
    listed = "".join(f"        - {{id: c{n}, input: a{n}}}\n" for n in range(cases))
    spec = directory / "autobench.yaml"
    spec.write_text(
        "benchmark:\n  limited:\n    dataset:\n      cases:\n"
        + listed
        + "    run: {python: limit_task:run}\n"
        + f"    variants: {{{variants}}}\n"
        + "    score:\n"
        + textwrap.indent(textwrap.dedent(score), " " * 6)
    )
    return spec


def _queues(run: RunRecord) -> dict[str, float]:
    return {
        o.name: float(o.value)
        for o in run.observations
        if o.semantic_type == "judge.time.queue" and o.value is not None
    }


def test_judges_of_one_model_share_a_budget_spaced_and_one_at_a_time(
    judges: tuple[Any, FakeClock], tmp_path: Path
) -> None:
    module, _ = judges
    limited = "{model: {python: limit_judges:passes_model}, rubric: r, " + (
        "limits: {requests_per_minute: 120, max_concurrency: 1}}"
    )
    spec = _spec(tmp_path, 3, f"first: {{judge: {limited}}}\nsecond: {{judge: {limited}}}\n")
    result = run_benchmark_path(
        spec, concurrency_limit=3, sink=RecordDirectoryWriter(tmp_path / "r")
    )
    assert [score.value for run in result.runs for score in run.scores] == [True] * 6
    # 120 a minute: starts 0.5 s apart on the budget's timeline, both judges (the same
    # model, the same limits) taking from one budget; never two calls at once.
    assert sorted(at for _, at in module.STARTS) == [0.0, 0.5, 1.0, 1.5, 2.0, 2.5]
    assert len(module.MOST) == 6 and max(module.MOST) == 1
    queues = [_queues(run) for run in result.runs]
    assert all(set(q) == {"first.judge.time.queue", "second.judge.time.queue"} for q in queues)
    waits = sorted(wait for q in queues for wait in q.values())
    assert waits[0] == 0.0 and waits[-1] >= 0.5  # the last start waited at least a slot
    # The application has no limits: its own queue is not recorded, the judge's is apart.
    assert not [
        o for run in result.runs for o in run.observations if o.semantic_type == "time.queue"
    ]


def test_every_attempt_takes_a_request_and_is_charged_its_tokens(
    judges: tuple[Any, FakeClock], tmp_path: Path
) -> None:
    module, _ = judges
    spec = _spec(
        tmp_path,
        1,
        """
        grade:
          judge:
            model: {python: limit_judges:flaky_model}
            rubric: r
            retries: 1
            limits: {tokens_per_minute: 600, requests_per_minute: 6000}
        """,
    )
    (run,) = run_benchmark_path(spec).runs
    assert run.scores[0].value is True
    # The malformed first attempt used 900 of the 600 tokens: the bucket is 300 below
    # zero, refilled at 10 a second, so the retry starts 30 s later and waited that long.
    assert [name for name, _ in module.STARTS] == ["flaky", "flaky"]
    assert module.STARTS[0][1] == 0.0
    assert module.STARTS[1][1] == pytest.approx(30.0, abs=0.01)
    assert _queues(run)["grade.judge.time.queue"] == pytest.approx(30.0, abs=0.01)


def test_a_judge_without_limits_records_no_wait(
    judges: tuple[Any, FakeClock], tmp_path: Path
) -> None:
    spec = _spec(
        tmp_path, 2, "ok: {judge: {model: {python: limit_judges:passes_model}, rubric: r}}\n"
    )
    runs = run_benchmark_path(spec, concurrency_limit=2).runs
    assert [_queues(run) for run in runs] == [{}, {}]
    assert [at for _, at in judges[0].STARTS] == [0.0, 0.0]  # nothing waited


def test_pairwise_judging_honours_the_judges_limits(
    judges: tuple[Any, FakeClock], tmp_path: Path
) -> None:
    module, _ = judges
    spec = _spec(
        tmp_path,
        3,
        """
        helpful:
          judge:
            model: {python: limit_judges:passes_model}
            rubric: Prefer the more helpful answer.
            inputs: [output.answer]
            limits: {requests_per_minute: 60, max_concurrency: 1}
        """,
        variants="short: {factors: {style: short}}, long: {factors: {style: long}}",
    )
    root = tmp_path / "records"
    run_benchmark_path(spec, sink=RecordDirectoryWriter(root))
    module.STARTS.clear()
    module.MOST.clear()
    fresh = FakeClock()
    module.CLOCK = fresh
    with judge_budgets(JudgeBudgets(clock=fresh, sleep=fresh.sleep)):
        outcome = asyncio.run(judge_pairwise(root, "helpful", "short", "long", concurrency=3))
    # Three cases judged at once, both orders each: six calls one second apart.
    starts = [at for name, at in module.STARTS if name == "pairwise"]
    assert sorted(starts) == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert max(module.MOST) == 1
    stored = load_pairwise_record(root / outcome.record.path, root=root)
    waits = [
        o.value
        for case in stored.cases
        for o in case.observations
        if o.semantic_type == "judge.time.queue"
    ]
    assert len(waits) == 6 and min(waits) == 0.0 and max(waits) >= 1.0


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        ("{rpm: 5}", "rpm"),
        ("{max_concurrency: 0}", "max_concurrency"),
        ("{}", "a limit needs"),
        ("{tokens_per_minute: 1.5}", "tokens_per_minute"),
    ],
)
def test_bad_judge_limits_are_located(tmp_path: Path, limits: str, message: str) -> None:
    spec = _spec(tmp_path, 1, f"grade:\n  judge: {{model: test, rubric: r, limits: {limits}}}\n")
    with pytest.raises(SpecError) as caught:
        load_benchmark_spec(spec)
    assert message in str(caught.value)
    assert f"{spec}:" in str(caught.value)


def test_judge_limits_write_back_to_yaml_and_load_equal(tmp_path: Path) -> None:
    spec = _spec(
        tmp_path,
        1,
        "grade:\n  judge: {model: test, rubric: r, limits: {requests_per_minute: 30.5, max_concurrency: 2}}\n",
    )
    loaded = load_benchmark_spec(spec)
    text = dump_benchmark_spec(loaded)
    assert "limits" in text and "requests_per_minute: 30.5" in text
    again = tmp_path / "again.yaml"
    again.write_text(text)
    reloaded = load_benchmark_spec(again)
    assert reloaded.scoring[0].limits == loaded.scoring[0].limits
    assert json.loads(reloaded.scoring[0].limits.model_dump_json()) == {
        "max_concurrency": 2,
        "requests_per_minute": 30.5,
        "tokens_per_minute": None,
    }


def test_rescoring_honours_the_judges_limits(judges: tuple[Any, FakeClock], tmp_path: Path) -> None:
    module, _ = judges
    limited = "{model: {python: limit_judges:passes_model}, rubric: r, " + (
        "limits: {requests_per_minute: 30, max_concurrency: 1}}"
    )
    spec = _spec(tmp_path, 4, f"grade: {{judge: {limited}}}\n")
    root = tmp_path / "records"
    run_benchmark_path(spec, sink=RecordDirectoryWriter(root))
    module.STARTS.clear()
    module.MOST.clear()
    fresh = FakeClock()
    module.CLOCK = fresh
    with judge_budgets(JudgeBudgets(clock=fresh, sleep=fresh.sleep)):
        outcome = asyncio.run(rescore_experiment(root, ["grade"], concurrency=4))
    assert len(outcome.records) == 4 and outcome.errors == 0
    # 30 a minute: four re-scored runs judged 2 s apart, one at a time.
    assert sorted(at for _, at in module.STARTS) == [0.0, 2.0, 4.0, 6.0]
    assert max(module.MOST) == 1
