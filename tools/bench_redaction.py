"""What the redaction rules cost on the values a run records.

    uv run python tools/bench_redaction.py                  # this checkout
    uv run python tools/bench_redaction.py --rounds 9       # more rounds, steadier medians

Times, with the default capture policy (the rules of ``autobench.abp._secrets``), the
median microseconds per call over ``--rounds`` rounds of each of:

* ``text`` of 2.6 KB of clean prose (an error message or a model answer with no secret),
  and of the same text with a bearer token, an ``sk-`` key and a URL with ``key=`` in it;
* ``text`` of a 60 KB JSON document with no secret (a request body sent as ``text/plain``)
  and of one with ``"password": "..."`` pairs in it;
* ``apply_mapping`` of the attributes of a typical HTTP client span, the same dict again
  and again (the hot path: remembered clean keys and values) and a fresh copy each time;
* ``apply`` of a parsed 60 KB JSON request body.

It uses only methods older versions have too, so running it with another checkout's
interpreter (``/other/checkout/.venv/bin/python tools/bench_redaction.py``) gives the
figures to compare. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from autobench.abp import DEFAULT_CAPTURE_POLICY as POLICY

PROSE = (
    "The assistant looked up the order, found two shipments and summarised them for the "
    "customer in plain words, with dates and the carrier's tracking page. "
) * 17
SECRETS = (
    " upstream said Authorization: Bearer abcDEF123456ghiJKL and key sk-abcdefghijklmnop123 "
    "at https://api.example.test/v1/models?key=AIzaSyA12345678901234567890123456789012"
)
DOCUMENT = {
    "model": "gpt-4o-mini",
    "messages": [
        {"role": "user", "content": f"question {i}: " + "words " * 40} for i in range(200)
    ],
}
LEAKY = {**DOCUMENT, "auth": {"password": "hunter2-hunter2"}, "client_secret": "abc"}
ATTRIBUTES = {
    "http.request.method": "POST",
    "url.full": "https://api.openai.com/v1/chat/completions",
    "server.address": "api.openai.com",
    "http.response.status_code": 200,
    "gen_ai.request.model": "gpt-4o-mini",
    "gen_ai.usage.input_tokens": 812,
    "gen_ai.usage.output_tokens": 97,
    "http.request.body.size": 4210,
}


def _median_us(call: Callable[[], Any], rounds: int, inner: int) -> float:
    timings = []
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(inner):
            call()
        timings.append((time.perf_counter() - started) / inner * 1e6)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    clean_json = json.dumps(DOCUMENT)
    leaky_json = json.dumps(LEAKY)
    cases: list[tuple[str, Callable[[], Any], int]] = [
        # Each text call gets a new string object equal to the text: the clean-string memo
        # only remembers strings of up to 256 characters, which these are not.
        ("text: 2.6 KB clean prose", lambda: POLICY.text(PROSE + ""), 200),
        ("text: 2.6 KB prose with 3 secrets", lambda: POLICY.text(PROSE + SECRETS), 200),
        ("text: 60 KB clean JSON", lambda: POLICY.text(clean_json + ""), 20),
        ("text: 60 KB JSON with secret pairs", lambda: POLICY.text(leaky_json + ""), 20),
        (
            "apply_mapping: span attributes (same dict)",
            lambda: POLICY.apply_mapping(ATTRIBUTES),
            5000,
        ),
        (
            "apply_mapping: span attributes (fresh dict)",
            lambda: POLICY.apply_mapping(dict(ATTRIBUTES)),
            5000,
        ),
        ("apply: parsed 60 KB JSON body", lambda: POLICY.apply(DOCUMENT), 20),
    ]
    print(f"{'value':48} {'median us/call':>15}")
    for name, call, inner in cases:
        call()  # warm: compiled patterns, memo
        print(f"{name:48} {_median_us(call, args.rounds, inner):15.2f}")
    redacted = POLICY.text(PROSE + SECRETS)
    print(
        f"\nsecrets left in the prose: {sum(s in redacted for s in ('abcDEF', 'sk-abc', 'AIza'))}"
    )


if __name__ == "__main__":
    main()
