"""Span path budget: a completed empty manual span under 5 microseconds.

    uv run python tools/bench_spans.py              # 10,000 spans, median of 7
    uv run python tools/bench_spans.py --spans 1000 --repeats 3

Measures ``autobench.abp.start_span`` with a bound :class:`TraceCollector`:
each sample opens and closes ``--spans`` empty spans under one root span in a
fresh collector and reports nanoseconds per span; the figure is the median of
``--repeats`` samples (after one warm-up sample). A second line adds the cost
of materialising the trace (signals joined into ``SpanRecord`` values), which
the runtime pays once per run. Figures, not test assertions.
"""

from __future__ import annotations

import argparse
import statistics
import time

from autobench.abp import TraceCollector, bind_collector, start_span

BUDGET_NS = 5_000


def span_sample(spans: int, *, materialize: bool) -> float:
    """Nanoseconds per completed empty span for ``spans`` spans in a fresh collector."""
    collector = TraceCollector()
    with bind_collector(collector), start_span("root"):
        started = time.perf_counter_ns()
        for _ in range(spans):
            with start_span("empty"):
                pass
        if materialize:
            collector.materialize()
        elapsed = time.perf_counter_ns() - started
    return elapsed / spans


def measure(spans: int, repeats: int, *, materialize: bool = False) -> float:
    """Median ns/span over ``repeats`` samples, after one discarded warm-up sample."""
    span_sample(spans, materialize=materialize)
    return statistics.median(span_sample(spans, materialize=materialize) for _ in range(repeats))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--spans", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    rows = [
        ("empty manual span (start_span + collector)", measure(args.spans, args.repeats)),
        (
            "same, plus materialising the trace",
            measure(args.spans, args.repeats, materialize=True),
        ),
    ]
    print(f"{'measurement':<46} {'ns/span':>10} {'budget':>8}  ratio")
    for label, value in rows:
        print(f"{label:<46} {value:>10.0f} {BUDGET_NS:>8}  {value / BUDGET_NS:.2f}")


if __name__ == "__main__":
    main()
