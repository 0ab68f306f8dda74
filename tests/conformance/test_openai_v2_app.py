"""An application traced by ``opentelemetry-instrumentation-openai-v2`` under every
combination of Autobench's OpenAI layer, the transport layer and the OpenTelemetry import.

With the OpenAI layer on, the report equals the ledger, and the imported spans are paired with
the native ones (nothing counted twice). With the import alone, the calls are what openai-v2
reports: input and output tokens and requests exact, but openai-v2 2.x records neither
cache-read nor reasoning tokens for a chat completion nor the server address, so those totals
are missing and every input token is priced at the input rate (docs/opentelemetry.md: the
native layer is the one that reads the usage block in full). The transport layer alone
measures nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_checks import assert_exact, assert_unmeasured, http_posts, ledger_of
from corpus_support import PRICES, combinations, ledger_totals, reported, run_app

pytest.importorskip("opentelemetry.instrumentation.openai_v2")

LAYERS = ("openai", "httpx", "opentelemetry")
COMBINATIONS = combinations(LAYERS)
HANDLER_SCOPE = "opentelemetry:opentelemetry.util.genai.handler"


def test_openai_v2_app(tmp_path: Path) -> None:
    cases = [{"id": "one", "input": {}}]
    results = run_app(tmp_path, "corpus_openai_v2_app:run", cases, COMBINATIONS)
    exact = {}
    for name, reports in results.items():
        report = reports["one"]
        layers = set(name.split("+"))
        assert report["output"]["output"] == ["Four.", "Paris."]
        imported = [span for span in report["spans"] if span["scope"] == HANDLER_SCOPE]
        assert len(imported) == (2 if "opentelemetry" in layers else 0), name
        if "openai" in layers:
            exact[name] = assert_exact(report, name)
            streamed = [s for s in report["spans"] if s["scope"] == "openai"][1]
            assert streamed["end_reason"] == "completed"  # followed through openai-v2's wrapper
            assert all(span["usage"].get("aggregate") is True for span in imported), name
        elif "opentelemetry" in layers:
            _import_alone(report, name)
        else:
            assert_unmeasured(report)
            assert http_posts(report) == 2
    assert len({repr(sorted(found.items())) for found in exact.values()}) == 1, exact


def _import_alone(report: dict, name: str) -> None:
    expected = ledger_totals(ledger_of(report))
    found = reported(report)
    assert {key: found[key] for key in ("input", "output", "requests")} == {
        key: expected[key] for key in ("input", "output", "requests")
    }, name
    assert (found["cache_read"], found["reasoning"]) == (None, None), name
    undiscounted = (
        expected["input"] * PRICES["input"] + expected["output"] * PRICES["output"]
    ) / 1e6
    assert found["cost"] == pytest.approx(undiscounted), name
    assert report["factors"]["llm.provider"] == ["openai"]
    assert "server.address" not in report["factors"]
