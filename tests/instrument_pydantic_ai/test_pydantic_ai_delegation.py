"""Agent delegation with ``usage=ctx.usage`` (Pydantic AI's documented pattern): a tool of one
agent runs another agent on the parent's ``RunUsage``, so the delegate's run usage starts with
what the parent had spent. The totals count each request once and the roll-ups agree with
the requests beneath them: no ``aggregate_measurement_mismatch``; a roll-up that really
disagrees (usage carried in from outside the run) still raises it
(``test_pydantic_ai_layers``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pai_support import REQUEST_USAGE, ScriptedAPI, Turn, recording, spans_of, text_turn
from pydantic_ai import Agent, RunContext
from pydantic_ai.usage import RunUsage

from autobench import Benchmark, OpenAIInstrumentation, PydanticAIInstrumentation
from autobench.core.native import HTTPXInstrumentation
from autobench.instrument.pydantic_ai._capability import USAGE_SHARED
from autobench.records import ObservationQuery, run_observations

TASK = """
from pydantic_ai import Agent, RunContext
from pai_support import ScriptedAPI, Turn, text_turn

DELEGATE_CALLS = int("{calls}")
SHARE = "{share}" == "True"


async def run(ctx, case):
    selection = ScriptedAPI(
        Turn(tool_calls=[("joke_factory", {{"count": n}}) for n in range(1, DELEGATE_CALLS + 1)]),
        text_turn("the best joke"),
    )
    generation = ScriptedAPI(text_turn("a joke"))
    selector = Agent(selection.model(), name="selector")
    generator = Agent(generation.model(), name="generator")

    @selector.tool
    async def joke_factory(run_ctx: RunContext[None], count: int) -> str:
        usage = run_ctx.usage if SHARE else None
        result = await generator.run(f"Please generate {{count}} jokes.", usage=usage)
        return result.output

    result = await selector.run("Tell me a joke.")
    usage = result.usage
    return {{
        "output": result.output,
        "requests": usage.requests,
        "input_tokens": usage.input_tokens,
        "sent": len(selection.requests) + len(generation.requests),
    }}
"""

SEMANTICS = ("llm.request.count", "llm.tokens.input", "llm.tokens.output", "llm.tokens.cache_read")
PROBLEMS = {"aggregate_measurement_mismatch", "ambiguous_direct_measurement"}


@pytest.fixture
def delegating(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name.startswith("pai_delegation_")]:
            sys.modules.pop(name)


def _run(
    directory: Path, calls: int, *settings: object, share: bool = True
) -> tuple[dict, dict, list[str]]:
    name = f"pai_delegation_{calls}_{share}"
    (directory / f"{name}.py").write_text(TASK.format(calls=calls, share=share))
    result = (
        Benchmark("delegation")
        .dataset([{"id": "c1"}])
        .variants([{"id": "v1"}])
        .task(f"{name}:run")
        .base_dir(directory)
        .instrument(*settings)
        .run()
    )
    (run,) = result.runs
    assert run.status.value == "passed", run.errors
    query = ObservationQuery(observations=run_observations(run))
    totals = {semantic: query.values(semantic) for semantic in SEMANTICS}
    problems = sorted(o.name for o in run.observations if o.name in PROBLEMS)
    return run.output, totals, problems


LAYERS = [
    pytest.param((PydanticAIInstrumentation(),), id="pydantic-ai"),
    pytest.param((OpenAIInstrumentation(),), id="openai"),
    pytest.param(
        (PydanticAIInstrumentation(), OpenAIInstrumentation(), HTTPXInstrumentation()), id="all"
    ),
]


@pytest.mark.parametrize("settings", LAYERS)
@pytest.mark.parametrize("calls", [1, 2], ids=["one-delegate", "parallel-delegates"])
def test_delegation_with_the_parents_usage_raises_no_mismatch(
    delegating: Path, calls: int, settings: tuple[object, ...]
) -> None:
    output, totals, problems = _run(delegating, calls, *settings)
    requests = 2 + calls  # the selector's two requests and one per delegate run
    # Pydantic AI's own roll-up of the parent run includes the delegates
    assert output == {
        "output": "the best joke",
        "requests": requests,
        "input_tokens": 1000 * requests,
        "sent": requests,
    }
    assert totals == {
        "llm.request.count": [requests],
        "llm.tokens.input": [1000 * requests],
        "llm.tokens.output": [200 * requests],
        "llm.tokens.cache_read": [800 * requests],
    }
    assert problems == []


def _delegating_agents(calls: int) -> tuple[Agent[None, str], ScriptedAPI, ScriptedAPI]:
    selection = ScriptedAPI(
        Turn(tool_calls=[("joke_factory", {"count": n}) for n in range(1, calls + 1)]),
        text_turn("the best joke"),
    )
    generation = ScriptedAPI(text_turn("a joke"))
    selector: Agent[None, str] = Agent(selection.model(), name="selector")
    generator: Agent[None, str] = Agent(generation.model(), name="generator")

    @selector.tool
    async def joke_factory(run_ctx: RunContext[None], count: int) -> str:
        result = await generator.run(f"Please generate {count} jokes.", usage=run_ctx.usage)
        return result.output

    return selector, selection, generation


@pytest.mark.parametrize("settings", LAYERS)
def test_a_delegate_run_on_its_own_usage_raises_no_mismatch(
    delegating: Path, settings: tuple[object, ...]
) -> None:
    output, totals, problems = _run(delegating, 1, *settings, share=False)
    # without usage=ctx.usage Pydantic AI leaves the delegate out of the parent's usage
    assert output == {"output": "the best joke", "requests": 2, "input_tokens": 2000, "sent": 3}
    assert totals["llm.request.count"] == [3] and totals["llm.tokens.input"] == [3000]
    assert problems == []


@pytest.mark.usefixtures("installed")
async def test_a_delegate_records_what_it_added_to_the_shared_usage() -> None:
    selector, _, _ = _delegating_agents(1)
    with recording() as collector:
        await selector.run("Tell me a joke.")
    trace = collector.materialize()
    outer, delegate = spans_of(trace, "agent")
    assert outer.attributes["agent.name"] == "selector" and USAGE_SHARED not in outer.attributes
    # the parent's roll-up is Pydantic AI's: its two requests and the delegate's one
    assert outer.usage == {
        "aggregate": True,
        **{key: 3 * value for key, value in REQUEST_USAGE.items()},
    }
    # the delegate's run usage ended at three requests too; its own part is one request
    assert delegate.attributes[USAGE_SHARED] is True
    assert delegate.usage == {"aggregate": True, **REQUEST_USAGE}


@pytest.mark.usefixtures("installed")
async def test_parallel_delegates_leave_the_roll_up_to_their_parent() -> None:
    selector, _, generation = _delegating_agents(2)
    with recording() as collector:
        await selector.run("Tell me a joke.")
    assert len(generation.requests) == 2
    outer, *delegates = spans_of(trace := collector.materialize(), "agent")
    assert outer.usage["requests"] == 4 and outer.usage["aggregate"] is True
    assert len(delegates) == 2
    for delegate in delegates:
        # each delegate's additions are mixed with the other's: no roll-up of its own
        assert delegate.attributes[USAGE_SHARED] is True and delegate.usage == {}
    assert len(spans_of(trace, "llm")) == 4


@pytest.mark.usefixtures("installed")
async def test_a_run_given_a_usage_object_not_in_use_records_all_of_it() -> None:
    selector, _, _ = _delegating_agents(1)
    usage = RunUsage()
    with recording() as collector:
        await selector.run("Tell me a joke.", usage=usage)
        await selector.run("Another one.", usage=usage)  # carried on: not a delegate
    second = spans_of(collector.materialize(), "agent")[2]
    assert second.attributes["agent.name"] == "selector"
    assert USAGE_SHARED not in second.attributes
    assert second.usage["requests"] == 6  # what the object says, carried usage included
