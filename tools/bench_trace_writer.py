"""Microseconds per span to write a trace to ``trace.yaml``: the direct writer against the
document path, on the same trace, with the bytes compared.

    uv run python tools/bench_trace_writer.py                 # 20,000 spans, both shapes
    uv run python tools/bench_trace_writer.py --spans 100000 --repeat 3

Two span shapes: ``minimal`` (a ``step`` span with one attribute) and ``llm`` (input and
output mappings, a two-line output text, usage and one measurement, as an LLM call gives).
For each, the trace is collected through ABP, then ``trace_yaml_bytes`` is timed with the
direct writer (``records._span_text``) and with every span sent through the document path
(``model_dump``, ``encode_value``, ruamel/libyaml). The script checks both write the same
bytes and prints the best time of ``--repeat`` tries per span, and the ratio.
"""

from __future__ import annotations

import argparse
import time

from autobench.abp import Trace, TraceCollector, bind_collector, start_span
from autobench.records import _codec


def _trace(spans: int, llm: bool) -> Trace:
    collector = TraceCollector()
    with bind_collector(collector), start_span("root", kind="task"):
        for index in range(spans):
            if not llm:
                with start_span("step", attributes={"i": index}):
                    pass
                continue
            with start_span(
                "llm.call",
                kind="llm",
                input={"prompt": f"Summarise document {index}, please.", "model": "gpt-demo"},
                attributes={"gen_ai.request.model": "gpt-demo", "temperature": 0.2},
            ) as span:
                span.set_output({"text": f"Document {index}.\nSecond line.", "finish": "stop"})
                span.set_usage(input_tokens=120 + index % 7, output_tokens=30)
                span.record_measurement("tokens", 150, unit="tokens")
    return collector.materialize()


def _best(trace: Trace, repeat: int) -> tuple[float, bytes]:
    times = []
    data = b""
    for _ in range(repeat):
        started = time.perf_counter()
        data = _codec.trace_yaml_bytes(trace)
        times.append(time.perf_counter() - started)
    return min(times) / len(trace.spans) * 1e6, data


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--spans", type=int, default=20_000, help="spans per trace")
    parser.add_argument("--repeat", type=int, default=5, help="tries per figure (best kept)")
    options = parser.parse_args()
    direct = _codec.span_text
    print(f"trace.yaml writing, {options.spans:,} spans, best of {options.repeat} (us per span):")
    for llm in (False, True):
        trace = _trace(options.spans, llm)
        after, fast_bytes = _best(trace, options.repeat)
        _codec.span_text = lambda span: None  # every span through the document path
        try:
            before, reference_bytes = _best(trace, options.repeat)
        finally:
            _codec.span_text = direct
        if fast_bytes != reference_bytes:
            raise SystemExit("the two paths wrote different bytes")
        name = "llm" if llm else "minimal"
        print(
            f"    {name:<8} document path {before:7.1f}   direct {after:6.1f}   "
            f"{before / after:4.1f}x   (same {len(fast_bytes):,} bytes)"
        )


if __name__ == "__main__":
    main()
