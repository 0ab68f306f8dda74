"""Context safety: concurrent runs never cross parents, and ending spans out of order or
from another task never leaves a wrong active span."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agents import Agent, Runner, custom_span, function_tool, trace
from agents_support import ScriptedModel, by_operation, message, one, recording, tool_call

from autobench.abp import Trace, active_span


@function_tool
async def lookup(key: str) -> str:
    """Look a key up (slowly, so that concurrent runs interleave)."""
    await asyncio.sleep(0.01)
    return key.upper()


def looker(name: str) -> Agent[Any]:
    model = ScriptedModel([[tool_call("lookup", {"key": name})], [message(name)]], delay=0.01)
    return Agent(name=name, instructions="Look up.", tools=[lookup], model=model)


def _check_one_run(trace: Trace, name: str) -> None:
    root = trace.spans[0]
    assert root.operation == f"run-{name}"
    agents = by_operation(trace, "openai_agents.agent")
    assert [span.attributes["agent.name"] for span in agents] == [name]
    for span in trace.spans[1:]:
        assert trace.path(span.id)[0] == f"run-{name}", span.operation
    tool = one(trace, "lookup")
    assert trace.path(tool.id)[-3:] == ("openai_agents.agent", "openai_agents.turn", "lookup")
    assert len(by_operation(trace, "openai_agents.generation")) == 2


@pytest.mark.usefixtures("installed")
async def test_concurrent_runs_never_cross_parents() -> None:
    async def one_run(name: str) -> Trace:
        with recording(f"run-{name}") as collector:
            result = await Runner.run(looker(name), "go")
            assert result.final_output == name
        return collector.materialize()

    traces = await asyncio.gather(*(one_run(name) for name in ("alpha", "beta", "gamma")))
    for name, recorded in zip(("alpha", "beta", "gamma"), traces, strict=True):
        _check_one_run(recorded, name)
    assert active_span() is None


@pytest.mark.usefixtures("installed")
def test_spans_ended_out_of_order_leave_the_right_active_span() -> None:
    with recording() as collector:
        root = active_span()
        with trace("flow"):
            outer = custom_span("outer")
            outer.start(mark_as_current=False)
            inner = custom_span("inner")
            inner.start(mark_as_current=False)
            assert active_span() is not None and active_span().operation == "inner"  # type: ignore[union-attr]
            outer.finish()  # before its child
            assert active_span().operation == "inner"  # type: ignore[union-attr]
            inner.finish()  # steps down past the ended outer span, to the workflow
            assert active_span().operation == "openai_agents.workflow"  # type: ignore[union-attr]
        assert active_span() is root
    recorded = collector.materialize()
    # parentage is the SDK's: neither span was made current, so both are the trace's
    assert recorded.path(one(recorded, "inner").id)[-2:] == ("openai_agents.workflow", "inner")


@pytest.mark.usefixtures("installed")
async def test_a_span_ended_by_another_task_leaves_both_contexts_safe() -> None:
    with recording() as collector:
        root = active_span()
        with trace("flow"):
            span = custom_span("handed over")
            span.start(mark_as_current=False)

            async def finisher() -> str | None:
                span.finish()  # this task inherited the binding: its copy steps back
                current = active_span()
                return None if current is None else current.operation

            assert await asyncio.create_task(finisher()) == "openai_agents.workflow"
            # the starting context still had it bound: it is ended, so the next span the
            # SDK opens here parents by the SDK's parentage, and the trace end steps past it
            with custom_span("next"):
                pass
        assert active_span() is root
    recorded = collector.materialize()
    assert recorded.path(one(recorded, "next").id)[-2:] == ("openai_agents.workflow", "next")
    assert all(not s.partial for s in recorded.spans)
