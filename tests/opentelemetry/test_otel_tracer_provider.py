"""Which tracer provider gets the span processor: the application's SDK provider, or ours when
none is set. Each case runs in a fresh interpreter (the global provider is set once per
process)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

PRELUDE = """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from autobench.abp import InstrumentationManager, TraceCollector, bind_collector
from autobench.opentelemetry._import import create


def run_span(name):
    return [span.operation for span in run_spans(name)]


def run_spans(name):
    collector = TraceCollector()
    with bind_collector(collector), trace.get_tracer("app").start_as_current_span(name):
        pass
    return collector.materialize().spans
"""

APP_PROVIDER_FIRST = """
exported = InMemorySpanExporter()
app = TracerProvider()
app.add_span_processor(SimpleSpanProcessor(exported))
trace.set_tracer_provider(app)
with InstrumentationManager() as manager:
    manager.install(create(None))
    assert trace.get_tracer_provider() is app
    assert run_span("inside") == ["inside"]
assert [span.name for span in exported.get_finished_spans()] == ["inside"]
# The imported span names the ids the application's exporter sent: both copies link up.
with InstrumentationManager() as manager:
    manager.install(create(None))
    (imported,) = run_spans("linked")
(sent,) = [span for span in exported.get_finished_spans() if span.name == "linked"]
assert imported.attributes["otel.trace_id"] == f"{sent.context.trace_id:032x}"
assert imported.attributes["otel.span_id"] == f"{sent.context.span_id:016x}"
print("ok")
"""

NO_PROVIDER = """
with InstrumentationManager() as manager:
    manager.install(create(None))
    ours = trace.get_tracer_provider()
    assert isinstance(ours, TracerProvider)
    assert run_span("inside") == ["inside"]
    trace.set_tracer_provider(TracerProvider())  # too late: OpenTelemetry keeps the first
    assert trace.get_tracer_provider() is ours
    assert run_span("still") == ["still"]
print("ok")
"""

FOREIGN_PROVIDER = """
from autobench.abp import InstrumentationError

trace.set_tracer_provider(trace.NoOpTracerProvider())
with InstrumentationManager() as manager:
    try:
        manager.install(create(None))
    except InstrumentationError as error:
        assert error.compatibility.state == "conflicting", error
        print("ok")
"""


@pytest.mark.parametrize(
    "script",
    [APP_PROVIDER_FIRST, NO_PROVIDER, FOREIGN_PROVIDER],
    ids=["application-provider", "no-provider", "foreign-provider"],
)
def test_the_processor_goes_on_the_global_sdk_provider(script: str) -> None:
    source = textwrap.dedent(PRELUDE) + textwrap.dedent(script)
    done = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok", done.stderr
