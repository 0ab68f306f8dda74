"""A benchmark for the HTML report tests: 15 cases x 2 variants (30 runs) recording latency
in ms, cost in USD, input tokens that are the same in every run of a variant, an output
token count that is the same in every run, and a quality score; a leaderboard of eight
columns with long names (sum and mean of cost among them), the matrix over cost and a
comparison with all of them."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path
from typing import Any

from report_support import RunBench

from autobench import run_benchmark_spec
from autobench.core.spec import BenchmarkSpec
from autobench.records import ExperimentResult

TASK = """
def run(ctx, case):
    n = case.input["n"]
    big = ctx.factor("model") == "large-reasoning-model-with-a-long-name"
    ctx.metric("latency", 40 + (n * 37) % 50 + (25 if big else 0), semantic_type="time.latency",
               unit="ms")
    ctx.metric("cost", 0.0002 * (1 + n % 3) * (10 if big else 1), semantic_type="money.cost",
               unit="USD")
    ctx.metric("input", 1200 if big else 800, semantic_type="llm.tokens.input", unit="tokens")
    ctx.metric("output", 64, semantic_type="llm.tokens.output", unit="tokens")
    return {"q": min(1.0, (n % 5) / 4 + (0.25 if big else 0.0))}
"""

BASELINE = "small-baseline-model"
CANDIDATE = "large-reasoning-model-with-a-long-name"


def wide_result(run_bench: RunBench, cases: int = 15) -> ExperimentResult:
    """The benchmark of the module docstring over ``cases`` cases."""
    columns = [
        ("cost total", "money.cost", "sum"),
        ("cost per case", "money.cost", "mean"),
        ("latency median", "time.latency", "median"),
        ("latency p95", "time.latency", "p95"),
        ("input tokens", "llm.tokens.input", "mean"),
        ("output tokens", "llm.tokens.output", "mean"),
        ("answer quality", "quality.score", "mean"),
        ("answer quality spread", "quality.score", "stddev"),
    ]
    metrics = [{"name": n, "metric": m, "aggregate": a} for n, m, a in columns]
    return run_bench(
        TASK,
        cases=[{"id": f"case-{n:03d}", "input": {"n": n}} for n in range(cases)],
        variants=[
            {"id": BASELINE, "factors": {"model": BASELINE}},
            {"id": CANDIDATE, "factors": {"model": CANDIDATE}},
        ],
        scoring=[
            {
                "kind": "output",
                "name": "quality",
                "path": "output.q",
                "semantic": "quality.score",
                "goal": "maximize",
            }
        ],
        reports={
            "leaderboard": {"metrics": metrics},
            "matrix": {"metric": "money.cost"},
            "comparisons": [{"baseline": BASELINE, "candidate": CANDIDATE, "metrics": metrics}],
        },
    )


def spec_runner(root: Path) -> RunBench:
    """A ``run_bench`` (see ``conftest.py``) writing its task module to ``root``, for a
    fixture wider than one test."""

    def run(source: str, **spec: Any) -> ExperimentResult:
        (root / "html_task.py").write_text(textwrap.dedent(source))
        data = {
            "benchmark": {"id": "report-test"},
            "dataset": {"cases": list(spec["cases"])},
            "variants": list(spec["variants"]),
            "scoring": list(spec.get("scoring", ())),
            "task": {"target": "html_task:run"},
            "reports": dict(spec.get("reports") or {}),
        }
        model = BenchmarkSpec.model_validate(data).model_copy(update={"base_dir": root})
        sys.path.insert(0, str(root))
        try:
            return asyncio.run(run_benchmark_spec(model))
        finally:
            sys.path.remove(str(root))
            sys.modules.pop("html_task", None)

    return run
