"""``autobench run --cassette`` on real agent frameworks and across ``--resume``: record a
benchmark's HTTPX exchanges, take its network away, replay it and get the same runs.

* ``examples/pydantic_ai``: a Pydantic AI agent (tool call, structured output, a
  validation retry, streamed and not) over an OpenAI-compatible offline API;
* an OpenAI Agents SDK agent (``Runner`` with a function tool) on the SDK's own Responses
  and Chat Completions models over a real OpenAI client and an offline API;
* a replay interrupted part way through, then finished with ``--resume``.
"""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from cassette_support import (
    assert_same_runs,
    by_run,
    copy_example,
    forget,
    kill_network,
    replayed_counts,
    run_cli,
)

from autobench.records import replay_experiment

AGENTS_SUPPORT = Path(__file__).resolve().parents[1] / "instrument_openai_agents"


# --- Pydantic AI -------------------------------------------------------------------------

SHOP_MODULES = ("shop_benchmark", "shop_app")


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of ``examples/pydantic_ai``, the working directory."""
    yield copy_example("pydantic_ai", tmp_path, monkeypatch, SHOP_MODULES)
    forget(*SHOP_MODULES)


def test_a_pydantic_ai_agent_replays_offline(shop: Path) -> None:
    run_cli("--record", "rec", "--cassette", "record")
    kill_network(shop / "shop_app" / "offline_api.py", SHOP_MODULES)
    run_cli("--record", "rep", "--cassette", "replay", "rec")
    assert_same_runs(shop / "rec", shop / "rep", count=6)
    runs = by_run(shop / "rep")
    # the validation retry asked the model again: three requests, all from the cassette
    assert replayed_counts(runs[("kettle-retry", "mini")]) == [3]
    assert replayed_counts(runs[("lamp", "large-streamed")]) == [2]
    assert all(run.status.value == "passed" for run in runs.values())


# --- OpenAI Agents -----------------------------------------------------------------------

AGENTS_TASK = '''
"""An OpenAI Agents SDK calculator on the SDK's own model over a real OpenAI client."""

import httpx2
import openai
from agents import Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, Runner, function_tool
from agents_support import API_MODEL, FakeOpenAI

OFFLINE = False
"""True: every request fails (the network is gone)."""


@function_tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _dead(request):
    raise RuntimeError("the network was used during a cassette replay")


def _client():
    if not OFFLINE:
        return FakeOpenAI(arguments={"a": 2, "b": 3}).client()
    transport = httpx2.MockTransport(_dead)
    return openai.AsyncOpenAI(
        api_key="k", max_retries=0, http_client=httpx2.AsyncClient(transport=transport)
    )


async def run(ctx, case):
    api = ctx.factor("api")
    kind = OpenAIResponsesModel if api == "responses" else OpenAIChatCompletionsModel
    model = kind(model=API_MODEL, openai_client=_client())
    agent = Agent(name="calc", instructions="Add.", tools=[add], model=model)
    result = await Runner.run(agent, case.input["question"])
    answer = result.final_output
    return {"answer": answer, "correct": answer == case.expected["answer"]}
'''

AGENTS_SPEC = """
benchmark:
  calculator:
    dataset:
      cases:
        - {id: plus, input: {question: What is 2 + 3?}, expected: {answer: "5"}}
        - {id: sum, input: {question: Add 2 and 3.}, expected: {answer: "5"}}
    run: {python: "agents_task:run"}
    variants:
      responses: {factors: {api: responses}}
      chat: {factors: {api: chat}}
    instrumentation:
      openai_agents: {}
      openai: {}
      httpx: {}
    score:
      right:
        pass: output.correct
        semantic: result.success
"""


@pytest.fixture
def calculator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A benchmark of an OpenAI Agents workflow in ``tmp_path`` (the working directory),
    with the SDK's trace exporter off (as in ``tests/instrument_openai_agents``)."""
    from agents import set_trace_processors
    from agents.tracing import get_trace_provider

    before = tuple(get_trace_provider()._multi_processor._processors)  # type: ignore[attr-defined]
    set_trace_processors([])
    (tmp_path / "agents_task.py").write_text(AGENTS_TASK)
    (tmp_path / "autobench.yaml").write_text(textwrap.dedent(AGENTS_SPEC))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(AGENTS_SUPPORT))
    monkeypatch.syspath_prepend(str(tmp_path))
    forget("agents_task")
    try:
        yield tmp_path
    finally:
        forget("agents_task")
        set_trace_processors(list(before))


def test_an_openai_agents_workflow_replays_offline(calculator: Path) -> None:
    # Every Runner.run sends a fresh random prompt_cache_key in each request body: the
    # cassette leaves it out of the match, or no request would ever be replayed.
    run_cli("--record", "rec", "--cassette", "record")
    task = calculator / "agents_task.py"
    task.write_text(task.read_text().replace("OFFLINE = False", "OFFLINE = True"))
    forget("agents_task")
    run_cli("--record", "rep", "--cassette", "replay", "rec")
    assert_same_runs(calculator / "rec", calculator / "rep", count=4)
    for run in by_run(calculator / "rep").values():
        assert run.status.value == "passed" and run.output == {"answer": "5", "correct": True}
        assert replayed_counts(run) == [2]  # the tool call, then the answer
        assert run.trace is not None
        assert {span.kind for span in run.trace.spans} >= {"llm", "http", "tool"}


# --- --resume ----------------------------------------------------------------------------

ASSISTANT_MODULES = ("assistant_benchmark", "assistant_app")


@pytest.fixture
def assistant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of ``examples/llm_native``, the working directory."""
    yield copy_example("llm_native", tmp_path, monkeypatch, ASSISTANT_MODULES)
    forget(*ASSISTANT_MODULES)


def test_a_resumed_replay_replays_the_runs_it_lacked(assistant: Path) -> None:
    run_cli("--record", "rec", "--cassette", "record")
    kill_network(assistant / "assistant_app" / "offline_api.py", ASSISTANT_MODULES)
    run_cli("--record", "rep", "--cassette", "replay", "rec")
    rep = assistant / "rep"
    lost = [("refund", "large"), ("warranty", "mini")]
    for case, variant in lost:  # as if the replay had been interrupted before these runs
        run_dir = rep / "cases" / case / variant
        assert (run_dir / "run.yaml").is_file()
        shutil.rmtree(run_dir)
    (rep / "summary.yaml").unlink()
    assert len(replay_experiment(rep).runs) == 4
    run_cli("--resume", "rep", "--cassette", "replay", "rec")
    result = replay_experiment(rep)
    assert not result.missing_runs
    assert result.summary.resumed is not None and result.summary.resumed.runs == len(lost)
    assert_same_runs(assistant / "rec", rep, count=6)
    runs = by_run(rep)
    for key in lost:
        assert replayed_counts(runs[key]) == [1]
        assert [a.tags for a in runs[key].artifacts if a.name == "cassette"] == []
    source = result.experiment.cassette
    assert source is not None and source.mode == "replay" and source.record_dir == "rec"
