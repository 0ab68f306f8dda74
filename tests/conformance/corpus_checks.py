"""What every corpus report must satisfy, against the ledger of the run it reports."""

from __future__ import annotations

from typing import Any

import pytest
from corpus_provider import MODEL_SUFFIX
from corpus_support import ledger_totals, reported

ZERO_IS_ABSENT = ("cache_read", "reasoning")
"""Details no layer records as 0 (the SDKs of the framework layers fill absent details with
zeros, so every layer leaves a zero detail out): a run whose calls read no cache reports no
cache-read total, in every combination alike."""

MISMATCH = ("aggregate_measurement_mismatch", "ambiguous_direct_measurement")


def ledger_of(report: dict[str, Any]) -> list[dict[str, int] | None]:
    """The ledger the task returned with its output."""
    ledger: list[dict[str, int] | None] = report["output"]["ledger"]
    return ledger


def assert_exact(
    report: dict[str, Any], combination: str, host: str = "api.openai.com"
) -> dict[str, Any]:
    """Tokens, requests and cost of the run equal the ledger's; no accounting diagnostic;
    every model call has one provider identity. Returns the totals."""
    assert report["status"] == "passed", report["output"]
    ledger = ledger_of(report)
    assert ledger and None not in ledger
    expected = ledger_totals(ledger)
    found = reported(report)
    for detail in ZERO_IS_ABSENT:
        if expected[detail] == 0:
            expected[detail] = None
    assert found == {**expected, "cost": pytest.approx(expected["cost"])}, combination
    assert not [name for name in report["diagnostics"] if name in MISMATCH], combination
    assert not [name for name in report["diagnostics"] if name.startswith("token_cost_")]
    assert_one_identity(report, host)
    return found


def assert_one_identity(report: dict[str, Any], host: str = "api.openai.com") -> None:
    """The run has one provider (``openai``), one host (``host``), one requested model and at
    most one answering model (the provider's dated version of the requested one), whichever
    layers saw the calls; every ``llm`` span names the provider and, when it knows the
    endpoint, ``host``."""
    factors = report["factors"]
    assert factors["llm.provider"] == ["openai"], factors
    assert factors["server.address"] == [host], factors
    (requested,) = factors["llm.model.requested"]
    assert factors.get("llm.model.response", [requested + MODEL_SUFFIX]) == [
        requested + MODEL_SUFFIX
    ], factors
    for span in report["spans"]:
        if span["kind"] != "llm":
            continue
        attributes = span["attributes"]
        assert attributes.get("llm.provider") == "openai", span
        assert attributes.get("server.address", host) == host, span


def assert_unmeasured(report: dict[str, Any]) -> None:
    """Nothing that carries usage saw the calls: no tokens, no requests, no cost (never 0),
    and ``token_cost`` says its inputs are missing. What a transport-only run reports."""
    assert report["status"] == "passed", report["output"]
    found = reported(report)
    assert found == dict.fromkeys(found)
    assert "token_cost_missing_inputs" in report["diagnostics"]
    assert not [span for span in report["spans"] if span["kind"] == "llm"]


def http_posts(report: dict[str, Any]) -> int:
    """The model requests the transport layer saw."""
    return sum(1 for span in report["spans"] if span["operation"] == "HTTP POST")
