"""build_report and the CSV export work over 10,000 runs (timing is measured by tools/bench.py)."""

from __future__ import annotations

from report_support import RunBench, scaled

from autobench.report import build_report, exporter_registry

TASK = """
def run(ctx, case):
    ctx.metric("latency", 120 + case.input["i"], semantic_type="time.latency", unit="ms",
               role="objective")
    ctx.metric("cost", 0.001, semantic_type="money.cost", unit="usd")
    ctx.check("format", case.input["i"] % 7 != 0)
    return {"q": (case.input["i"] % 10) / 10}
"""


def test_ten_thousand_runs(run_bench: RunBench) -> None:
    cases = [{"id": f"c{i}", "input": {"i": i}} for i in range(50)]
    variants = [
        {"id": "base", "factors": {"model": "a"}},
        {"id": "cand", "factors": {"model": "b"}},
    ]
    scoring = [{"kind": "output", "name": "q", "path": "output.q", "semantic": "quality.score"}]
    result = scaled(run_bench(TASK, cases=cases, variants=variants, scoring=scoring), 10_000)
    report = build_report(result)
    text = exporter_registry().get("csv").export(report, result)
    assert len(report.run_rows) == 10_000
    assert isinstance(text, str) and text.count("\n") == 10_001
    assert report.leaderboard.rows[0].metrics["time.latency"].n == 5_000
