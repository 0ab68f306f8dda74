"""OpenAI Agents SDK applications under every combination of the instrumentors that apply:
the report equals the provider's ledger, the same in every combination that measures usage;
``task`` and ``turn`` spans are ``custom`` spans, as docs/native-instrumentation.md gives them.

The SDK emits no OpenTelemetry spans and HTTP spans never carry tokens, so a combination of
``httpx`` and ``opentelemetry`` alone measures nothing: tokens, requests and cost are reported
missing, never 0. A streamed run whose provider sent no usage (another OpenAI-compatible
server, to which the SDK sends no ``include_usage``) is unmeasured in every combination:
requests counted, no tokens, no cost, ``instrumentation.usage_unmeasured`` on every ``llm``
span of every layer that saw the call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from corpus_checks import assert_exact, assert_one_identity, assert_unmeasured, http_posts
from corpus_support import combinations, reported, run_app

pytest.importorskip("agents")

LAYERS = ("openai_agents", "openai", "httpx", "opentelemetry")
COMBINATIONS = combinations(LAYERS)
MEASURING = {"openai_agents", "openai"}


def _measures(name: str) -> bool:
    return bool(MEASURING & set(name.split("+")))


def _task_and_turn_kinds(report: dict[str, Any]) -> None:
    for span in report["spans"]:
        if span["operation"] in ("openai_agents.task", "openai_agents.turn"):
            assert span["kind"] == "custom", span


def _same_everywhere(totals: dict[str, dict[str, Any]]) -> None:
    assert len({repr(sorted(found.items())) for found in totals.values()}) == 1, totals


def test_guardrail_handoff_and_tool(tmp_path: Path) -> None:
    """An input guardrail running its own agent beside the triage agent, a handoff, a function
    tool: four requests, no false aggregate alarm for the nested guardrail run."""
    cases = [{"id": "one", "input": {}}]
    results = run_app(tmp_path, "corpus_agents_apps:triage", cases, COMBINATIONS)
    totals = {}
    for name, reports in results.items():
        report = reports["one"]
        assert report["output"]["output"] == "Hace sol en Madrid."
        if not _measures(name):
            assert_unmeasured(report)
            assert http_posts(report) == (4 if "httpx" in name else 0)
            continue
        totals[name] = assert_exact(report, name)
        _task_and_turn_kinds(report)
    _same_everywhere(totals)
    assert next(iter(totals.values()))["requests"] == 4
    spans = results["openai_agents"]["one"]["spans"]
    tasks = [span for span in spans if span["operation"] == "openai_agents.task"]
    # the guardrail's run is a task of its own, marked nested
    nested = [span["attributes"].get("accounting.nested_run") for span in tasks]
    assert nested == [None, True]
    operations = {span["operation"] for span in spans}
    assert {"math_guardrail", "openai_agents.handoff", "get_weather"} <= operations


ENDPOINTS = [
    {"id": "openai", "input": {"endpoint": "openai"}},
    {"id": "compatible", "input": {"endpoint": "compatible"}},
    {"id": "compatible_usage", "input": {"endpoint": "compatible_usage"}},
]


def test_streamed_with_and_without_include_usage(tmp_path: Path) -> None:
    """``Runner.run_streamed`` with a function tool, two streamed requests: measured against
    OpenAI's URL (the SDK asks for usage) and on another server given
    ``ModelSettings(include_usage=True)``; unmeasured on that server without it."""
    results = run_app(tmp_path, "corpus_agents_apps:streamed", ENDPOINTS, COMBINATIONS)
    totals: dict[str, dict[str, Any]] = {}
    for name, reports in results.items():
        for case, report in reports.items():
            assert report["output"]["output"] == "It is sunny in Paris."
            if not _measures(name):
                assert_unmeasured(report)
                continue
            _task_and_turn_kinds(report)
            if case == "compatible":
                _unmeasured_in_every_layer(report, name)
                continue
            host = "api.openai.com" if case == "openai" else "llm.internal"
            totals[f"{name}/{case}"] = assert_exact(report, name, host)
    _same_everywhere(totals)
    assert next(iter(totals.values()))["requests"] == 2


def _unmeasured_in_every_layer(report: dict[str, Any], name: str) -> None:
    assert report["output"]["ledger"] == [None, None]
    found = reported(report)
    assert found == {**dict.fromkeys(found), "requests": 2}, name
    assert "token_cost_missing_inputs" in report["diagnostics"]
    llm = sorted(span["operation"] for span in report["spans"] if span["kind"] == "llm")
    warned = sorted(
        operation
        for operation, code in report["span_diagnostics"]
        if code == "instrumentation.usage_unmeasured"
    )
    assert llm and warned == llm, name
    assert_one_identity(report, "llm.internal")


def test_responses_api_plain_and_streamed(tmp_path: Path) -> None:
    """The SDK's default model (Responses API) with a function tool, two requests, run and
    streamed: the streamed calls reach the client layer as ``with_streaming_response``
    responses parsed into streams, and are measured there as exactly as the plain ones."""
    cases = [
        {"id": "plain", "input": {"streamed": False}},
        {"id": "streamed", "input": {"streamed": True}},
    ]
    results = run_app(tmp_path, "corpus_agents_apps:responses", cases, COMBINATIONS)
    totals: dict[str, dict[str, Any]] = {}
    for name, reports in results.items():
        for case, report in reports.items():
            assert report["output"]["output"] == "It is sunny in Paris."
            if not _measures(name):
                assert_unmeasured(report)
                continue
            _task_and_turn_kinds(report)
            totals[f"{name}/{case}"] = assert_exact(report, name)
            for span in report["spans"]:
                if span["operation"] == "openai.responses":  # the client layer measured it
                    assert "input_tokens" in span["usage"], (name, case, span)
    _same_everywhere(totals)
    assert next(iter(totals.values()))["requests"] == 2
