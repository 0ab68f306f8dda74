"""Figures for the run-against-run diff: two runs of 100,000 spans each diffed.

    uv run python tools/bench_run_diff.py [--spans N]

Each run has a root, agents of 99 children (LLM calls with usage, tool calls with
arguments); the right run drops every tenth tool call, adds a step to every fifth agent and
spends more tokens on every third LLM call. Prints seconds per diff (best of three, in this
process) and the node counts. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import time

from autobench.abp import SpanRecord, Trace
from autobench.records import RunRecord
from autobench.report import diff_runs, run_diff_lines


def _run(run_id: str, spans: int, *, right: bool) -> RunRecord:
    records = [SpanRecord(id="root", operation="benchmark.run", kind="task", duration=1.0)]
    agent = 0
    while len(records) < spans:
        parent = f"a{agent}"
        records.append(SpanRecord(id=parent, operation="agent", kind="agent", parent="root"))
        for child in range(min(99, spans - len(records))):
            ident = f"{parent}.{child}"
            if child % 2 == 0:
                tokens = 100 + (10 if right and child % 3 == 0 else 0)
                usage = {"input_tokens": tokens, "output_tokens": 20}
                records.append(
                    SpanRecord(id=ident, operation="llm.call", kind="llm", parent=parent,
                               duration=0.01, usage=usage)
                )  # fmt: skip
            elif not (right and child % 10 == 1):
                records.append(
                    SpanRecord(id=ident, operation=f"tool{child % 7}", kind="tool",
                               parent=parent, duration=0.002, input={"n": child})
                )  # fmt: skip
        if right and agent % 5 == 0:
            records.append(
                SpanRecord(id=f"{parent}.x", operation="extra", kind="tool", parent=parent)
            )
        agent += 1
    return RunRecord.model_validate(
        {
            "run": {
                "id": run_id, "experiment": "e", "benchmark": "b", "case": "c",
                "variant": "right" if right else "left", "index": 0, "status": "passed",
                "outcome": {"task": "passed", "evaluation": "passed"}, "duration": 1.0,
            },
            "case": {"id": "c"},
            "variant": {"id": "right" if right else "left"},
            "output": {"answer": 42 if right else 41},
            "trace": Trace(id=run_id, spans=tuple(records)),
        }
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=100_000)
    args = parser.parse_args()
    left, right = _run("left", args.spans, right=False), _run("right", args.spans, right=True)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        diff = diff_runs(left, right)
        best = min(best, time.perf_counter() - start)
    start = time.perf_counter()
    lines = run_diff_lines(diff)
    rendered = time.perf_counter() - start
    print(f"spans: {len(left.trace.spans)} left, {len(right.trace.spans)} right")  # type: ignore[union-attr]
    print(f"nodes: {len(diff.spans)} {diff.span_counts}; tool steps: {len(diff.tool_steps)}")
    print(
        f"diff_runs: {best:.3f} s (best of 3); run_diff_lines: {rendered:.3f} s, {len(lines)} lines"
    )


if __name__ == "__main__":
    main()
