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
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.cli import cli
from autobench.records import RunRecord, replay_experiment

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
AGENTS_SUPPORT = Path(__file__).resolve().parents[1] / "instrument_openai_agents"

DEAD_TRANSPORT = """

def _dead(request):
    raise RuntimeError("the network was used during a cassette replay")


def transport() -> httpx2.MockTransport:
    return httpx2.MockTransport(_dead)
"""
"""Appended to an example's offline API: from then on, any request that reaches the
transport fails its run."""


def _run(*args: str) -> None:
    result = CliRunner().invoke(
        cli,
        ["run", "autobench.yaml", "--no-progress", *args],
        catch_exceptions=False,
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output


def _by_run(record: Path) -> dict[tuple[str, str], RunRecord]:
    return {(run.case_id, run.variant_id): run for run in replay_experiment(record).runs}


def _evidence(run: RunRecord) -> dict[str, object]:
    """The run's token, request and money observations by semantic type."""
    return {
        o.semantic_type: o.value
        for o in run.observations
        if o.semantic_type and o.semantic_type.startswith(("llm.", "money."))
    }


def _replayed(run: RunRecord) -> list[object]:
    return [o.value for o in run.observations if o.name == "cassette.replayed"]


def _assert_same_runs(recorded: Path, replayed: Path, count: int) -> None:
    """Every run of ``replayed`` is the run of ``recorded`` again, answered from its
    cassette: same status, output, scores and LLM evidence."""
    live_runs, again_runs = _by_run(recorded), _by_run(replayed)
    assert live_runs.keys() == again_runs.keys() and len(live_runs) == count
    for key, live in live_runs.items():
        again = again_runs[key]
        assert not again.errors, (key, again.errors)
        assert again.status == live.status
        assert again.output == live.output
        assert [(s.name, s.value) for s in again.scores] == [(s.name, s.value) for s in live.scores]
        assert _evidence(again) == _evidence(live) and _evidence(live), key
        assert _replayed(again) and _replayed(again)[0] >= 1  # type: ignore[operator]
        assert not _replayed(live)


def _forget(*prefixes: str) -> None:
    """Drop the benchmark's modules: the next run imports them from the current files."""
    for module in list(sys.modules):
        if module.startswith(prefixes):
            del sys.modules[module]


def _copy_example(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, modules: tuple[str, ...]
) -> Path:
    target = tmp_path / name
    shutil.copytree(
        EXAMPLES / name, target, ignore=shutil.ignore_patterns(".autobench", "__pycache__")
    )
    monkeypatch.chdir(target)
    monkeypatch.syspath_prepend(str(target))
    _forget(*modules)
    return target


def _kill_network(api: Path, modules: tuple[str, ...]) -> None:
    api.write_text(api.read_text() + DEAD_TRANSPORT)
    _forget(*modules)


# --- Pydantic AI -------------------------------------------------------------------------

SHOP_MODULES = ("shop_benchmark", "shop_app")


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of ``examples/pydantic_ai``, the working directory."""
    yield _copy_example("pydantic_ai", tmp_path, monkeypatch, SHOP_MODULES)
    _forget(*SHOP_MODULES)


def test_a_pydantic_ai_agent_replays_offline(shop: Path) -> None:
    _run("--record", "rec", "--cassette", "record")
    _kill_network(shop / "shop_app" / "offline_api.py", SHOP_MODULES)
    _run("--record", "rep", "--cassette", "replay", "rec")
    _assert_same_runs(shop / "rec", shop / "rep", count=6)
    runs = _by_run(shop / "rep")
    # the validation retry asked the model again: three requests, all from the cassette
    assert _replayed(runs[("kettle-retry", "mini")]) == [3]
    assert _replayed(runs[("lamp", "large-streamed")]) == [2]
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
    _forget("agents_task")
    try:
        yield tmp_path
    finally:
        _forget("agents_task")
        set_trace_processors(list(before))


def test_an_openai_agents_workflow_replays_offline(calculator: Path) -> None:
    # Every Runner.run sends a fresh random prompt_cache_key in each request body: the
    # cassette leaves it out of the match, or no request would ever be replayed.
    _run("--record", "rec", "--cassette", "record")
    task = calculator / "agents_task.py"
    task.write_text(task.read_text().replace("OFFLINE = False", "OFFLINE = True"))
    _forget("agents_task")
    _run("--record", "rep", "--cassette", "replay", "rec")
    _assert_same_runs(calculator / "rec", calculator / "rep", count=4)
    for run in _by_run(calculator / "rep").values():
        assert run.status.value == "passed" and run.output == {"answer": "5", "correct": True}
        assert _replayed(run) == [2]  # the tool call, then the answer
        assert run.trace is not None
        assert {span.kind for span in run.trace.spans} >= {"llm", "http", "tool"}


# --- --resume ----------------------------------------------------------------------------

ASSISTANT_MODULES = ("assistant_benchmark", "assistant_app")


@pytest.fixture
def assistant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of ``examples/llm_native``, the working directory."""
    yield _copy_example("llm_native", tmp_path, monkeypatch, ASSISTANT_MODULES)
    _forget(*ASSISTANT_MODULES)


def test_a_resumed_replay_replays_the_runs_it_lacked(assistant: Path) -> None:
    _run("--record", "rec", "--cassette", "record")
    _kill_network(assistant / "assistant_app" / "offline_api.py", ASSISTANT_MODULES)
    _run("--record", "rep", "--cassette", "replay", "rec")
    rep = assistant / "rep"
    lost = [("refund", "large"), ("warranty", "mini")]
    for case, variant in lost:  # as if the replay had been interrupted before these runs
        run_dir = rep / "cases" / case / variant
        assert (run_dir / "run.yaml").is_file()
        shutil.rmtree(run_dir)
    (rep / "summary.yaml").unlink()
    assert len(replay_experiment(rep).runs) == 4
    _run("--resume", "rep", "--cassette", "replay", "rec")
    result = replay_experiment(rep)
    assert not result.missing_runs
    assert result.summary.resumed is not None and result.summary.resumed.runs == len(lost)
    _assert_same_runs(assistant / "rec", rep, count=6)
    runs = _by_run(rep)
    for key in lost:
        assert _replayed(runs[key]) == [1]
        assert [a.tags for a in runs[key].artifacts if a.name == "cassette"] == []
    source = result.experiment.cassette
    assert source is not None and source.mode == "replay" and source.record_dir == "rec"
