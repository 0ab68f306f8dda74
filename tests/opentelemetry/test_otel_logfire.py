"""An application that configures Logfire (offline: ``send_to_logfire=False``) has a global
tracer provider that wraps an SDK ``TracerProvider``: the OpenTelemetry import adds its span
processor to the wrapped provider, so with every integration discovered (``instrument_all``,
the builder form of ``instrumentation: {all: {}}``) the spans of a call Logfire instrumented
reach the run's record. A provider that neither is nor wraps an SDK one is still refused, and
the reason is on every run. Each case runs in a fresh interpreter (the global provider is set
once per process)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("logfire")

SUPPORT = Path(__file__).parents[1] / "instrument_openai"

TASK = """
import logfire
from openai_support import ACCOUNTING_CHAT_USAGE, MODEL, FakeAPI, sync_client


def run(ctx, case):
    client = sync_client(FakeAPI(chat_usage=ACCOUNTING_CHAT_USAGE))
    logfire.instrument_openai(client)
    with logfire.span("answer the user"):
        reply = client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "hi"}]
        )
    return reply.choices[0].message.content
"""

PRICING = (Path(__file__).parents[1] / "fixtures" / "accounting" / "pricing.yaml").read_text()
"""The accounting example's price table (USD per million tokens of ``gpt-test``)."""

RUNNER = """
import json, sys
sys.path[:0] = [{tmp!r}, {support!r}]
{setup}
from autobench import Benchmark, OpenTelemetryInstrumentation
from autobench.records import ObservationQuery, run_observations

builder = (
    Benchmark("logfire-app")
    .dataset([{{"id": "one", "input": {{}}}}])
    .variants([{{"id": "v1"}}])
    .task("lf_task:run")
    .derive([{{"kind": "token_cost", "pricing": "pricing.yaml"}}])
    .base_dir({tmp!r})
)
builder = {instrument}
(run,) = builder.run().runs
query = ObservationQuery(observations=run_observations(run), trace=run.trace)
print(json.dumps({{
    "status": run.status.value,
    "spans": [[s.scope, s.kind, dict(s.usage)] for s in run.spans],
    "input": query.values("llm.tokens.input"),
    "cache_read": query.values("llm.tokens.cache_read"),
    "requests": query.values("llm.request.count"),
    "cost": query.values("money.cost"),
    "skipped": {{
        o.value["integration"]: o.reason
        for o in run.observations if o.name == "instrumentation.skipped"
    }},
    "problems": [o.name for o in run.observations if o.name.startswith(("aggregate_", "ambig"))],
}}))
"""

LOGFIRE = """
import logfire
logfire.configure(send_to_logfire=False, console=False)
"""

FOREIGN = """
from opentelemetry import trace


class VendorTracerProvider(trace.NoOpTracerProvider):
    '''A vendor's provider: takes span processors but runs no opentelemetry-sdk.'''

    def add_span_processor(self, processor):
        raise AssertionError("not an SDK provider: never handed a processor")


trace.set_tracer_provider(VendorTracerProvider())
"""

COST = (200 * 2.0 + 800 * 0.5 + 200 * 8.0) / 1e6


def _run(tmp_path: Path, setup: str, instrument: str) -> dict[str, object]:
    (tmp_path / "lf_task.py").write_text(TASK)
    (tmp_path / "pricing.yaml").write_text(PRICING)
    source = RUNNER.format(
        tmp=str(tmp_path), support=str(SUPPORT), setup=textwrap.dedent(setup), instrument=instrument
    )
    done = subprocess.run(
        [sys.executable, "-c", source],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def test_logfire_spans_reach_the_record_with_every_integration(tmp_path: Path) -> None:
    found = _run(tmp_path, LOGFIRE, "builder.instrument_all()")
    assert found["status"] == "passed"
    assert "opentelemetry" not in found["skipped"]  # type: ignore[operator]
    scopes = {scope: (kind, usage) for scope, kind, usage in found["spans"]}  # type: ignore[attr-defined]
    assert scopes["opentelemetry:logfire"][0] == "custom"  # the application's logfire.span
    kind, usage = scopes["opentelemetry:logfire.openai"]
    assert kind == "llm"
    assert usage["input_tokens"] == 1000
    assert "openai" in scopes  # the native OpenAI layer too: one call, counted once
    assert found["input"] == [1000]
    assert found["cache_read"] == [800]
    assert found["requests"] == [1]
    assert found["cost"] == [pytest.approx(COST)]
    assert found["problems"] == []


def test_logfire_spans_alone_give_the_call(tmp_path: Path) -> None:
    found = _run(tmp_path, LOGFIRE, "builder.instrument(OpenTelemetryInstrumentation())")
    assert [scope for scope, _, _ in found["spans"]] == [  # type: ignore[attr-defined]
        "autobench.manual",
        "opentelemetry:logfire",
        "opentelemetry:logfire.openai",
    ]
    assert found["input"] == [1000]
    assert found["cache_read"] == [800]
    assert found["requests"] == [1]
    assert found["cost"] == [pytest.approx(COST)]


def test_a_foreign_provider_is_refused_with_the_reason(tmp_path: Path) -> None:
    found = _run(tmp_path, FOREIGN, "builder.instrument_all()")
    assert found["status"] == "passed"
    reason = found["skipped"]["opentelemetry"]  # type: ignore[index]
    assert "VendorTracerProvider" in reason
    assert "neither is nor wraps an opentelemetry-sdk TracerProvider" in reason
    assert not any(scope.startswith("opentelemetry:") for scope, _, _ in found["spans"])  # type: ignore[attr-defined]
