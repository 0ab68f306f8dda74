"""An application traced by the community ``opentelemetry-instrumentation-openai-v2`` package
(2.x emits its spans under the generic scope ``opentelemetry.util.genai.handler``), run with
Autobench's OpenAI layer and the OpenTelemetry import both on: each imported request span is
paired with the native span of the same call, so the totals are the native layer's (cache and
reasoning tokens included) and the cost is exact, nothing counted twice.

The real OpenAI SDK runs over ``httpx.MockTransport`` (``openai_support.FakeAPI``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from autobench import Benchmark, OpenAIInstrumentation, OpenTelemetryInstrumentation
from autobench.records import ObservationQuery, run_observations

openai_v2 = pytest.importorskip("opentelemetry.instrumentation.openai_v2")

SUPPORT = Path(__file__).parents[1] / "instrument_openai"

TASK = """
from openai_support import ACCOUNTING_CHAT_USAGE, MODEL, FakeAPI, sync_client
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor


def ask(client):
    answers = []
    for question in ("first", "second"):
        reply = client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": question}]
        )
        answers.append(reply.choices[0].message.content)
    return answers


def run(ctx, case):
    client = sync_client(FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE))
    if not case.input.get("instrument"):
        return ask(client)
    # the application instruments the SDK itself, over Autobench's wrapper
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument()
    try:
        return ask(client)
    finally:
        instrumentor.uninstrument()
"""

PRICING = (Path(__file__).parents[1] / "fixtures" / "accounting" / "pricing.yaml").read_text()
"""The accounting example's price table (USD per million tokens of ``gpt-test``)."""

# two requests of 1,000 input (800 cached) and 200 output (50 reasoning) tokens each
TOTALS = {
    "llm.tokens.input": 2000,
    "llm.tokens.output": 400,
    "llm.tokens.cache_read": 1600,
    "llm.tokens.reasoning": 100,
    "llm.request.count": 2,
}
COST = 2 * (200 * 2.0 + 800 * 0.5 + 200 * 8.0) / 1e6
HANDLER_SCOPE = "opentelemetry:opentelemetry.util.genai.handler"


@pytest.fixture
def task_module(tmp_path: Path) -> Iterator[str]:
    name = "otel_openai_v2_task"
    (tmp_path / f"{name}.py").write_text(TASK)
    (tmp_path / "pricing.yaml").write_text(PRICING)
    sys.path[:0] = [str(tmp_path), str(SUPPORT)]
    try:
        yield name
    finally:
        sys.path.remove(str(tmp_path))
        sys.path.remove(str(SUPPORT))
        sys.modules.pop(name, None)


@pytest.fixture
def app_instrumented() -> Iterator[None]:
    """The application's own ``OpenAIInstrumentor().instrument()``, before the run starts."""
    instrumentor = openai_v2.OpenAIInstrumentor()
    instrumentor.instrument()
    try:
        yield
    finally:
        instrumentor.uninstrument()


def _benchmark(tmp_path: Path, task: str, **case: object) -> Benchmark:
    return (
        Benchmark("openai-v2-app")
        .dataset([{"id": "one", "input": case}])
        .variants([{"id": "v1"}])
        .task(f"{task}:run")
        .derive([{"kind": "token_cost", "pricing": "pricing.yaml"}])
        .base_dir(tmp_path)
    )


def _pairs_with_the_native_calls(builder: Benchmark, *, native_outer: bool) -> None:
    (run,) = builder.run().runs
    assert run.status.value == "passed"
    query = ObservationQuery(observations=run_observations(run), trace=run.trace)
    totals = {semantic: query.values(semantic) for semantic in TOTALS}
    assert totals == {semantic: [value] for semantic, value in TOTALS.items()}
    [cost] = query.values("money.cost")
    assert cost == pytest.approx(COST)
    problems = [o.name for o in run.observations if o.name.startswith(("aggregate_", "ambig"))]
    assert problems == []
    native = {span.id: span for span in run.spans if span.scope == "openai"}
    imported = [span for span in run.spans if span.scope == HANDLER_SCOPE]
    assert len(native) == 2
    assert len(imported) == 2
    for span in imported:
        assert span.kind == "llm"
        assert span.usage["input_tokens"] == 1000  # the imported facts stay as evidence
        assert span.usage.get("aggregate") is True
        assert span.attributes["accounting.covered_by"] == "openai"
        assert span.attributes["accounting.paired_span"] in native
    # each native span is paired once, with the span around it or inside it
    assert {span.attributes["accounting.paired_span"] for span in imported} == set(native)
    if native_outer:
        assert {span.parent for span in imported} == set(native)
    else:
        assert {span.parent for span in native.values()} == {span.id for span in imported}


@pytest.mark.usefixtures("app_instrumented")
def test_openai_v2_under_the_native_layer_pairs(tmp_path: Path, task_module: str) -> None:
    """openai-v2 instrumented before the run: Autobench's wrapper is the outer one."""
    _pairs_with_the_native_calls(
        _benchmark(tmp_path, task_module).instrument(
            OpenAIInstrumentation(), OpenTelemetryInstrumentation()
        ),
        native_outer=True,
    )


def test_openai_v2_over_the_native_layer_pairs(tmp_path: Path, task_module: str) -> None:
    """openai-v2 instrumented inside the task: its wrapper is the outer one."""
    _pairs_with_the_native_calls(
        _benchmark(tmp_path, task_module, instrument=True).instrument(
            OpenAIInstrumentation(), OpenTelemetryInstrumentation()
        ),
        native_outer=False,
    )


@pytest.mark.usefixtures("app_instrumented")
def test_openai_v2_alone_is_counted_from_the_import(tmp_path: Path, task_module: str) -> None:
    """Without the native layer the imported spans are the calls: input and output tokens,
    requests and cost from what openai-v2 reports (it records no cache or reasoning tokens
    for chat completions), so the cost has no cache discount."""
    builder = _benchmark(tmp_path, task_module).instrument(OpenTelemetryInstrumentation())
    (run,) = builder.run().runs
    query = ObservationQuery(observations=run_observations(run), trace=run.trace)
    assert query.values("llm.tokens.input") == [2000]
    assert query.values("llm.tokens.output") == [400]
    assert query.values("llm.request.count") == [2]
    [cost] = query.values("money.cost")
    assert cost == pytest.approx(2 * (1000 * 2.0 + 200 * 8.0) / 1e6)
    imported = [span for span in run.spans if span.scope == HANDLER_SCOPE]
    assert len(imported) == 2
    assert all("accounting.covered_by" not in span.attributes for span in imported)
