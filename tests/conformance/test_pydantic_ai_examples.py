"""Pydantic AI's published example agents under every combination of the instrumentors that
see them: the report equals the provider's ledger (input, output, cache-read and reasoning
tokens, requests, cost), the same in every combination that measures usage.

A combination without a usage-carrying layer cannot measure: the transport layer (``httpx``,
whose spans never carry tokens) and the OpenTelemetry import for an example that emits no
OpenTelemetry spans, alone or together (``bank_support`` does not instrument Pydantic AI;
``weather_agent`` and ``stream_whales`` do, through Logfire, at import) report the tokens and the cost as
missing, never as 0, as docs/native-instrumentation.md says."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_checks import assert_exact, assert_unmeasured, http_posts, ledger_of
from corpus_support import combinations, run_app

pytest.importorskip("pydantic_ai_examples")

LAYERS = ("pydantic_ai", "openai", "httpx", "opentelemetry")
COMBINATIONS = combinations(LAYERS)
CASES = [{"id": "one", "input": {}}]


def _check(results: dict[str, dict[str, dict]], *, emits_otel: bool) -> dict:
    assert set(results) == {"+".join(combo) for combo in COMBINATIONS}
    totals = {}
    for name, reports in results.items():
        report = reports["one"]
        measuring = {"pydantic_ai", "openai"} | ({"opentelemetry"} if emits_otel else set())
        if not measuring & set(name.split("+")):
            assert_unmeasured(report)
            if "httpx" in name:
                assert http_posts(report) == len(ledger_of(report))
            continue
        totals[name] = assert_exact(report, name)
    assert len({repr(sorted(found.items())) for found in totals.values()}) == 1, totals
    return next(iter(totals.values()))


def test_bank_support(tmp_path: Path) -> None:
    """A tool reading SQLite, then a structured output: two requests."""
    results = run_app(tmp_path, "corpus_pydantic_ai_apps:bank_support", CASES, COMBINATIONS)
    totals = _check(results, emits_otel=False)
    assert totals["requests"] == 2 and totals["cache_read"] == 128
    output = results["pydantic_ai"]["one"]["output"]["output"]
    assert output["support_advice"].startswith("Hello John")


def test_weather_agent(tmp_path: Path) -> None:
    """Parallel tool calls over three requests, tools calling HTTP APIs; the example itself
    calls ``logfire.configure()`` and ``logfire.instrument_pydantic_ai()``, so the
    OpenTelemetry import alone measures it too, and beside the native layers its spans are
    paired with the native ones (nothing counted twice)."""
    results = run_app(tmp_path, "corpus_pydantic_ai_apps:weather_agent", CASES, COMBINATIONS)
    totals = _check(results, emits_otel=True)
    assert totals["requests"] == 3
    # the transport layer sees the model requests and the tools' six demo-API calls
    report = results["httpx"]["one"]
    gets = sum(1 for span in report["spans"] if span["operation"] == "HTTP GET")
    assert (http_posts(report), gets) == (3, 6)
    every = results["+".join(LAYERS)]["one"]
    imported = [s for s in every["spans"] if s["scope"] == "opentelemetry:pydantic-ai"]
    assert [s["usage"].get("aggregate") for s in imported if s["kind"] == "llm"] == [True] * 3


def test_stream_whales(tmp_path: Path) -> None:
    """A structured output streamed with ``run_stream`` / ``stream_output``: one request,
    its usage from the stream's usage chunk (Pydantic AI asks for it). Instrumented by
    Logfire at import, like ``weather_agent``."""
    results = run_app(tmp_path, "corpus_pydantic_ai_apps:stream_whales", CASES, COMBINATIONS)
    totals = _check(results, emits_otel=True)
    assert totals["requests"] == 1
    assert results["openai"]["one"]["output"]["output"] == 2  # both whales streamed
    (client,) = [s for s in results["openai"]["one"]["spans"] if s["scope"] == "openai"]
    assert client["end_reason"] == "completed"
