"""OpenTelemetry import budget: extra time per OpenTelemetry span mirrored into a run.

    uv run python tools/bench_opentelemetry.py [--spans 2000] [--repeat 9]

Two SDK ``TracerProvider`` values, one plain and one with Autobench's span processor (the
processor the ``opentelemetry`` instrumentor installs), each without exporters; the context
bridge the instrumentor installs is on for both (it is process-wide). Inside one
active benchmark run (a bound ABP collector with its root span open), a sample times
``--spans`` GenAI chat spans on each provider, in alternating blocks of ``--block`` spans
so a slow spell of the shared machine hits both alike (``start_as_current_span``, four
GenAI attributes at start and six set before the end: ten in all, as a model call of an
instrumented client carries). A sample's figure is its time per span with the processor
minus the time per span without, and the script prints min/median/max over ``--repeat``
samples. A new collector is bound for each sample, so the trace does not grow without end.

Budget (issue 21): under 15 us per span. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import Tracer

from autobench.abp import TraceCollector, bind_collector, start_span
from autobench.opentelemetry._import import INFO
from autobench.opentelemetry._import._context_bridge import install_bridge
from autobench.opentelemetry._import._processor import AutobenchSpanProcessor

BUDGET_US = 15.0
START = {
    "gen_ai.operation.name": "chat",
    "gen_ai.request.model": "gpt-bench",
    "gen_ai.provider.name": "openai",
    "server.address": "api.example.com",
}


def _spans(tracer: Tracer, count: int) -> int:
    """Time ``count`` chat spans (ns), inside the caller's run."""
    started = time.perf_counter_ns()
    for _ in range(count):
        with tracer.start_as_current_span("chat gpt-bench", attributes=START) as span:
            span.set_attribute("gen_ai.response.model", "gpt-bench-2026-01-01")
            span.set_attribute("gen_ai.response.id", "chatcmpl-1")
            span.set_attribute("gen_ai.response.finish_reasons", ("stop",))
            span.set_attribute("gen_ai.usage.input_tokens", 1000)
            span.set_attribute("gen_ai.usage.output_tokens", 200)
            span.set_attribute("gen_ai.usage.cache_read.input_tokens", 800)
    return time.perf_counter_ns() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--block", type=int, default=100)
    args = parser.parse_args()
    plain = TracerProvider().get_tracer("bench")
    provider = TracerProvider()
    processor = AutobenchSpanProcessor(INFO)
    provider.add_span_processor(processor)
    install_bridge(processor)  # as the instrumentor does: both providers' attaches pass it
    mirrored = provider.get_tracer("bench")
    with bind_collector(TraceCollector()), start_span("warm-up", kind="task"):
        _spans(plain, 500)
        _spans(mirrored, 500)
    extra: list[float] = []
    base: list[float] = []
    gc.collect()
    for _ in range(args.repeat):
        with bind_collector(TraceCollector()) as collector, start_span("task", kind="task"):
            blocks = max(1, args.spans // args.block)
            plain_ns = mirrored_ns = 0
            for _ in range(blocks):
                plain_ns += _spans(plain, args.block)
                mirrored_ns += _spans(mirrored, args.block)
            without = plain_ns / (blocks * args.block) / 1000
            with_processor = mirrored_ns / (blocks * args.block) / 1000
        assert len(collector.materialize().spans) == blocks * args.block + 1
        base.append(without)
        extra.append(with_processor - without)
    print(f"OpenTelemetry span without the processor: median {statistics.median(base):.2f} us")
    print(
        f"extra per span with the processor (import into the run, {args.spans} spans x "
        f"{args.repeat}): min {min(extra):.2f} / median {statistics.median(extra):.2f} / "
        f"max {max(extra):.2f} us (budget {BUDGET_US:.0f} us)"
    )


if __name__ == "__main__":
    main()
