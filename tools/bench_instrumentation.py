"""Method-instrumentation budgets: per-call overhead and stream memory.

    uv run python tools/bench_instrumentation.py

Budgets: an instrumented method call adds under 15 us inside a run (span
start/end signals included); a 10,000-item instrumented stream keeps peak
extra memory under 100 KB (tracemalloc, compared with the same stream
uninstrumented). Figures are medians on this machine, not test assertions.
"""

from __future__ import annotations

import statistics
import timeit
import tracemalloc
from collections.abc import Callable, Iterator

from autobench.abp import TraceCollector, bind_collector, instrument_method, start_span

CALLS = 20_000
ITEMS = 10_000


class Target:
    def work(self, value: int) -> int:
        return value + 1

    def stream(self, count: int) -> Iterator[int]:
        yield from range(count)


def per_call_us(function: Callable[[], object], number: int = CALLS, repeat: int = 7) -> float:
    """Median microseconds per call of ``function``."""
    samples = timeit.repeat(function, number=number, repeat=repeat)
    return statistics.median(samples) / number * 1e6


def call_overhead() -> dict[str, float]:
    target = Target()
    plain = per_call_us(lambda: target.work(1))
    with instrument_method(Target, "work"):
        outside = per_call_us(lambda: target.work(1))
        collector = TraceCollector()
        with bind_collector(collector), start_span("benchmark.run"):
            inside = per_call_us(lambda: target.work(1), number=2_000, repeat=7)
    return {
        "plain call": plain,
        "instrumented, no run (no-op)": outside - plain,
        "instrumented, inside a run": inside - plain,
    }


def stream_peak_bytes(instrumented: bool) -> int:
    target = Target()
    collector = TraceCollector()
    handle = instrument_method(Target, "stream") if instrumented else None
    try:
        with bind_collector(collector):
            tracemalloc.start()
            total = 0
            for item in target.stream(ITEMS):
                total += item
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
    finally:
        if handle is not None:
            handle.close()
    assert total == sum(range(ITEMS))
    return peak


def main() -> None:
    print("instrumented method call (us per call, median of 7)")
    for label, value in call_overhead().items():
        print(f"  {label:<32} {value:8.2f}")
    plain = min(stream_peak_bytes(False) for _ in range(3))
    wrapped = min(stream_peak_bytes(True) for _ in range(3))
    print(f"{ITEMS:,}-item stream, peak traced memory")
    print(f"  plain          {plain / 1024:8.1f} KB")
    print(f"  instrumented   {wrapped / 1024:8.1f} KB")
    print(f"  extra          {(wrapped - plain) / 1024:8.1f} KB (budget 100 KB)")


if __name__ == "__main__":
    main()
