"""The distribution: lazy SDK import, identity, checks, exact restoration, settings, assets."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pydantic_ai
import pytest
from pai_support import recording, spans_of
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

from autobench import track
from autobench.abp import (
    InstrumentationError,
    InstrumentationManager,
    InstrumentationRuntime,
    suppress_instrumentation,
)
from autobench.core.native import PydanticAIInstrumentation
from autobench.instrument.pydantic_ai import (
    INFO,
    SUPPORTED,
    AssetRef,
    PydanticAI,
    PydanticAIInstrumentor,
    create,
)


def _agent() -> Agent[None, str]:
    return Agent(TestModel(custom_output_text="hi"), name="probe")


def test_importing_creating_and_checking_do_not_import_pydantic_ai() -> None:
    code = (
        "import sys\n"
        "from autobench.abp import InstrumentationManager\n"
        "import autobench.instrument.pydantic_ai as instrument\n"
        "state = InstrumentationManager().check(instrument.create(None)).state\n"
        "assert state == 'compatible', state\n"
        "assert 'pydantic_ai' not in sys.modules, 'pydantic_ai was imported'\n"
        "print(instrument.INFO.id)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "pydantic_ai"


def test_identity() -> None:
    assert INFO.id == "pydantic_ai" and INFO.target_distribution == "pydantic-ai-slim"
    assert INFO.supported_versions == SUPPORTED
    assert INFO.mechanism == "hook" and INFO.layer == "framework"
    assert set(INFO.span_kinds) == {"agent", "llm", "tool", "parser"}
    assert INFO.package == "autobench-instrument-pydantic-ai"
    assert PydanticAI is PydanticAIInstrumentor


def test_create_reads_the_core_settings() -> None:
    default = create(None)
    assert isinstance(default, PydanticAIInstrumentor) and default.info is INFO
    assert (default.capture_input, default.capture_output, default.assets) == (False, False, ())
    chosen = create(PydanticAIInstrumentation(capture_input=True, capture_output=True))
    assert (chosen.capture_input, chosen.capture_output) == (True, True)


async def test_capture_switches_store_messages_and_response_parts() -> None:
    with InstrumentationManager() as manager:
        manager.install(PydanticAI(capture_input=True, capture_output=True))
        with recording() as collector:
            await _agent().run("a question")
    request = spans_of(collector.materialize(), "llm")[0]
    assert request.input[0]["parts"][0]["content"] == "a question"
    assert [(part["part_kind"], part["content"]) for part in request.output] == [("text", "hi")]


async def test_without_capture_no_message_is_recorded(installed: InstrumentationManager) -> None:
    with recording() as collector:
        await _agent().run("a private question")
    request = spans_of(collector.materialize(), "llm")[0]
    assert request.input is None and request.output is None
    assert "a private question" not in repr(collector.materialize().model_dump())


async def test_a_version_outside_the_range_is_refused_before_patching() -> None:
    before = Agent.__dict__["iter"]
    elsewhere = dataclasses.replace(INFO, supported_versions=">=99,<100")
    instrumentor = PydanticAIInstrumentor(info=elsewhere)
    manager = InstrumentationManager()
    assert manager.check(instrumentor).state == "unsupported"
    with pytest.raises(InstrumentationError) as raised:
        manager.install(instrumentor)
    assert raised.value.compatibility.state == "unsupported"
    assert pydantic_ai.__version__ in raised.value.compatibility.reason
    with pytest.raises(InstrumentationError):
        instrumentor.install(InstrumentationRuntime(elsewhere))
    assert Agent.__dict__["iter"] is before and manager.installed == ()


async def test_close_restores_agent_iter_exactly(manager: InstrumentationManager) -> None:
    before = Agent.__dict__["iter"]
    handle = manager.install(create(None))
    assert Agent.__dict__["iter"] is not before
    handle.close()
    assert Agent.__dict__["iter"] is before
    with recording() as collector:
        await _agent().run("x")
    assert [span.kind for span in collector.materialize().spans] == ["task"]


async def test_outside_a_run_and_when_suppressed_agents_run_as_before(
    installed: InstrumentationManager,
) -> None:
    assert (await _agent().run("x")).output == "hi"  # no run active: nothing to record into
    with recording() as collector, suppress_instrumentation("pydantic_ai"):
        await _agent().run("x")
    assert [span.kind for span in collector.materialize().spans] == ["task"]


async def test_two_managers_still_record_each_run_once() -> None:
    before = Agent.__dict__["iter"]
    with InstrumentationManager() as outer, InstrumentationManager() as inner:
        outer.install(create(None))
        inner.install(create(None))
        with recording() as collector:
            await _agent().run("x")
        assert len(spans_of(collector.materialize(), "agent")) == 1
    assert Agent.__dict__["iter"] is before


async def test_user_capabilities_still_run_beside_it(installed: InstrumentationManager) -> None:
    from pydantic_ai.capabilities import AbstractCapability

    seen: list[str] = []

    class Mine(AbstractCapability[None]):
        async def wrap_run(self, ctx, *, handler):  # type: ignore[no-untyped-def]
            seen.append("run")
            return await handler()

    with recording() as collector:
        await _agent().run("x", capabilities=[Mine()])
    assert seen == ["run"]
    assert len(spans_of(collector.materialize(), "agent")) == 1


async def test_tracked_assets_are_bound_to_agent_and_tool_spans() -> None:
    prompt = track.prompt(name="shop_instructions", text="You sell lamps.")

    @track.tool
    def lookup(query: str) -> str:
        """Find a product."""
        return "lamp"

    agent = Agent(TestModel(), instructions=str(prompt), name="shop")
    agent.tool_plain(lookup)
    with InstrumentationManager() as manager:
        manager.install(PydanticAI(assets=[prompt, lookup]))
        with recording() as collector:
            await agent.run("x")
    trace = collector.materialize()
    agent_refs = spans_of(trace, "agent")[0].references
    assert [(ref.kind, ref.id, ref.attributes["version"]) for ref in agent_refs] == [
        ("asset", prompt.asset_id, prompt.version),
        ("asset", AssetRef.of(lookup).asset_id, AssetRef.of(lookup).version),
    ]
    tool_refs = spans_of(trace, "tool")[0].references
    assert [ref.id for ref in tool_refs] == [AssetRef.of(lookup).asset_id]


def test_an_untracked_asset_is_refused_when_the_instrumentor_is_built() -> None:
    with pytest.raises(TypeError, match="not a tracked asset"):
        PydanticAI(assets=[object()])
