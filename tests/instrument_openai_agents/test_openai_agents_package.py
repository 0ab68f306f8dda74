"""The distribution: lazy SDK import, identity, version checks, exact restoration of the
SDK's processors, reference counts, a foreign trace provider, closing with spans open."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import agents
import pytest
from agents import Runner, add_trace_processor, custom_span, set_trace_provider, trace
from agents.tracing import Span, Trace, TracingProcessor, get_trace_provider
from agents.tracing.provider import DefaultTraceProvider
from agents_support import by_operation, recording, registered, scoped
from test_openai_agents_spans import calculator

from autobench.abp import (
    InstrumentationError,
    InstrumentationManager,
    InstrumentationRuntime,
    active_span,
    suppress_instrumentation,
)
from autobench.core.native import OpenAIAgentsInstrumentation
from autobench.instrument.openai_agents import INFO, SUPPORTED, OpenAIAgentsInstrumentor, create


class Recording(TracingProcessor):
    """An application's own processor: what it received, in order."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def on_trace_start(self, trace: Trace) -> None:
        self.events.append(f"trace:{trace.name}")

    def on_trace_end(self, trace: Trace) -> None:
        self.events.append("/trace")

    def on_span_start(self, span: Span[Any]) -> None:
        self.events.append(f"span:{span.span_data.type}")

    def on_span_end(self, span: Span[Any]) -> None:
        self.events.append(f"/span:{span.span_data.type}")

    def shutdown(self) -> None:
        pass

    def force_flush(self) -> None:
        pass


def test_importing_creating_and_checking_do_not_import_the_sdk() -> None:
    code = (
        "import sys\n"
        "from autobench.abp import InstrumentationManager\n"
        "import autobench.instrument.openai_agents.package as package\n"
        "import autobench.instrument.openai_agents as instrument\n"
        "state = InstrumentationManager().check(instrument.create(None)).state\n"
        "assert state == 'compatible', state\n"
        "assert 'agents' not in sys.modules, 'agents was imported'\n"
        "print(package.INFO.id)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "openai_agents"


def test_identity() -> None:
    assert INFO.id == "openai_agents" and INFO.target_distribution == "openai-agents"
    assert INFO.supported_versions == SUPPORTED
    assert INFO.mechanism == "hook" and INFO.layer == "framework"
    assert INFO.span_kinds == (
        "workflow",
        "agent",
        "llm",
        "tool",
        "handoff",
        "guardrail",
        "custom",
    )
    assert INFO.package == "autobench-instrument-openai-agents" and INFO.package_version == "0.1.0"
    scope = INFO.scope(agents.__version__)
    assert scope.source_convention == "openai_agents" and scope.target_version == agents.__version__


def test_create_reads_the_core_settings() -> None:
    default = create(None)
    assert isinstance(default, OpenAIAgentsInstrumentor) and default.info is INFO
    assert (default.capture_input, default.capture_output) == (False, False)
    made = create(OpenAIAgentsInstrumentation())
    assert (made.capture_input, made.capture_output) == (False, False)


def test_check_is_compatible_with_the_installed_sdk() -> None:
    result = InstrumentationManager().check(create(None))
    assert result.state == "compatible", result.reason
    assert result.target_version == agents.__version__


def test_a_version_outside_the_range_is_refused_before_registering() -> None:
    before = registered()
    elsewhere = dataclasses.replace(INFO, supported_versions=">=99,<100")
    instrumentor = OpenAIAgentsInstrumentor(info=elsewhere)
    manager = InstrumentationManager()
    assert manager.check(instrumentor).state == "unsupported"
    with pytest.raises(InstrumentationError) as raised:
        manager.install(instrumentor)
    assert raised.value.compatibility.state == "unsupported"
    assert agents.__version__ in raised.value.compatibility.reason
    with pytest.raises(InstrumentationError):  # also when installed without a manager
        instrumentor.install(InstrumentationRuntime(elsewhere))
    assert registered() == before and manager.installed == ()


async def test_close_restores_the_processors_and_the_application_keeps_its_own(
    manager: InstrumentationManager,
) -> None:
    mine, later = Recording(), Recording()
    add_trace_processor(mine)
    before = registered()
    handle = manager.install(create(None))
    assert registered()[: len(before)] == before and len(registered()) == len(before) + 1
    add_trace_processor(later)  # registered by the application while installed
    with recording() as collector:
        await Runner.run(calculator(), "What is 2 + 3?")
    assert len(scoped(collector.materialize())) > 5
    handle.close()
    assert registered() == (*before, later)  # ours removed, every other one in its place
    assert mine.events == later.events and mine.events[0] == "trace:Agent workflow"
    mine.events.clear()
    with recording() as collector:
        await Runner.run(calculator(), "What is 2 + 3?")
    assert scoped(collector.materialize()) == []
    assert mine.events[0] == "trace:Agent workflow" and mine.events[-1] == "/trace"


def test_installs_are_reference_counted(manager: InstrumentationManager) -> None:
    before = registered()
    first = manager.install(create(None))
    installed = registered()
    second = manager.install(create(None))
    assert manager.owners("openai_agents") == 2 and registered() == installed
    with recording() as collector, trace("one"):
        pass
    assert len(by_operation(collector.materialize(), "openai_agents.workflow")) == 1
    first.close()
    assert registered() == installed
    second.close()
    assert registered() == before and manager.owners("openai_agents") == 0


def test_two_managers_record_each_trace_once() -> None:
    before = registered()
    with InstrumentationManager() as outer, InstrumentationManager() as inner:
        outer.install(create(None))
        inner.install(create(None))
        with recording() as collector, trace("one"):
            pass
        assert len(by_operation(collector.materialize(), "openai_agents.workflow")) == 1
    assert registered() == before


@pytest.mark.usefixtures("installed")
def test_suppressed_spans_are_not_recorded() -> None:
    with recording() as collector:
        with suppress_instrumentation("openai_agents.custom"), trace("flow"):
            with custom_span("hidden"):
                pass
        with suppress_instrumentation("openai_agents"), trace("hidden flow"):
            pass
    recorded = collector.materialize()
    assert [span.operation for span in scoped(recorded)] == ["openai_agents.workflow"]
    assert recorded.spans[1].attributes["workflow.name"] == "flow"


def test_closing_with_spans_open_ends_them_as_partial(manager: InstrumentationManager) -> None:
    handle = manager.install(create(None))
    with recording() as collector:
        flow = trace("interrupted")
        flow.start(mark_as_current=True)
        span = custom_span("open")
        span.start(mark_as_current=True)
        handle.close()  # the benchmark ends while the workflow is still running
        span.finish(reset_current=True)
        flow.finish(reset_current=True)
    recorded = collector.materialize()
    assert {s.operation: s.partial for s in scoped(recorded)} == {
        "openai_agents.workflow": True,
        "open": True,
    }
    assert active_span() is None


class ForeignProvider(DefaultTraceProvider):
    """An application's own provider, without the default provider's processor list."""

    def __init__(self) -> None:
        super().__init__()
        self.extra: list[TracingProcessor] = []
        del self._multi_processor._processors  # type: ignore[attr-defined]

    def register_processor(self, processor: TracingProcessor) -> None:
        self.extra.append(processor)


@pytest.fixture
def foreign() -> Iterator[ForeignProvider]:
    original = get_trace_provider()
    provider = ForeignProvider()
    set_trace_provider(provider)
    try:
        yield provider
    finally:
        set_trace_provider(original)


def test_a_provider_without_a_processor_list_degrades(
    manager: InstrumentationManager, foreign: ForeignProvider
) -> None:
    handle = manager.install(create(None))
    (processor,) = foreign.extra
    handle.close()
    (diagnostic,) = manager.diagnostics
    assert diagnostic.state == "degraded" and "deactivated on close" in diagnostic.reason
    with recording() as collector:  # still registered, but inert
        processor.on_trace_start(trace("after close"))
    assert scoped(collector.materialize()) == []


@pytest.mark.usefixtures("installed")
def test_the_processor_never_raises_into_the_sdk(caplog: pytest.LogCaptureFixture) -> None:
    (processor,) = [p for p in registered() if type(p).__name__ == "AutobenchTracingProcessor"]

    class Broken:
        @property
        def trace_id(self) -> str:
            raise RuntimeError("broken trace object")

    with recording():
        processor.on_trace_start(Broken())
        processor.on_span_end(Broken())
    assert "on_trace_start failed" in caplog.text
    assert {record.name for record in caplog.records} == {"autobench.instrument.openai_agents"}


def test_the_entry_point_announces_the_integration() -> None:
    from autobench.core.plugins import integration_entries

    entry = {item.id: item for item in integration_entries()}["openai_agents"]
    assert entry.module == "autobench.instrument.openai_agents"
    assert entry.settings is OpenAIAgentsInstrumentation
