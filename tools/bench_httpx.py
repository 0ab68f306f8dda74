"""HTTPX instrumentor budgets: per-request overhead and streamed-body memory.

    uv run python tools/bench_httpx.py            # N = 1,000 and 10,000, 7 repetitions
    uv run python tools/bench_httpx.py --quick    # 3 repetitions

Budgets: an instrumented request over ``MockTransport`` (sync ``Client``,
inside one ABP run) costs under 25 us more than the same request
uninstrumented; a 10,000-chunk instrumented streamed response retains under
50 KB more memory than the same stream uninstrumented (tracemalloc). Each
repetition sends N requests on a fresh run; figures are min/median/max over
the repetitions on this machine, printed with their ratios, never asserted.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
import timeit
import tracemalloc
from collections.abc import Callable, Iterator
from types import ModuleType

import httpx
import httpx2

from autobench.abp import (
    InstrumentationManager,
    InstrumentationRuntime,
    TraceCollector,
    bind_collector,
    start_span,
)
from autobench.instrument.httpx import INFO, CapturePlan, create
from autobench.instrument.httpx._exchange import open_exchange, respond

CHUNKS = 10_000
BUDGET_US = 25.0
BUDGET_KB = 50.0


def _client(module: ModuleType) -> httpx.Client:
    body = b'{"ok": true}'

    def handler(request: httpx.Request) -> httpx.Response:
        return module.Response(200, content=body, headers={"content-type": "application/json"})

    client: httpx.Client = module.Client(transport=module.MockTransport(handler))
    return client


def _requests_seconds(module: ModuleType, count: int, *, in_run: bool) -> float:
    """CPU seconds (``process_time``) for ``count`` GETs on one client, inside one fresh run
    when ``in_run``. CPU time rather than wall time: other processes on a shared machine
    then shift the figures less."""
    client = _client(module)
    url = "https://api.example.com/v1/items?page=2"
    client.get(url)  # warm the client
    collector = TraceCollector()
    gc.collect()
    started = time.process_time()
    if in_run:
        with bind_collector(collector), start_span("bench.run", kind="task"):
            for _ in range(count):
                client.get(url)
    else:
        for _ in range(count):
            client.get(url)
    elapsed = time.process_time() - started
    client.close()
    return elapsed


def _triple(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    return ordered[0], statistics.median(ordered), ordered[-1]


def request_overhead(module: ModuleType, count: int, repeat: int) -> float:
    """Print the per-request figures; return the median extra us inside a run.

    Repetitions interleave: each measures the uninstrumented client, then
    installs the instrumentor, measures outside and inside a run and
    uninstalls, so drift of the machine affects both sides of a pair alike.
    """
    plain: list[float] = []
    outside: list[float] = []
    inside: list[float] = []
    for _ in range(repeat):
        plain.append(_requests_seconds(module, count, in_run=True) / count * 1e6)
        with InstrumentationManager() as manager:
            manager.install(create(None))
            outside.append(_requests_seconds(module, count, in_run=False) / count * 1e6)
            inside.append(_requests_seconds(module, count, in_run=True) / count * 1e6)
    extra = [i - p for i, p in zip(inside, plain, strict=True)]
    idle = [o - p for o, p in zip(outside, plain, strict=True)]
    print(f"  {module.__name__} sync Client, N = {count:,} requests, {repeat} repetitions")
    print(f"    {'us per request (CPU)':<34} {'min':>8} {'median':>8} {'max':>8}")
    rows = [
        ("uninstrumented, inside a run", plain),
        ("instrumented, outside a run", outside),
        ("instrumented, inside a run", inside),
        ("extra inside a run (paired)", extra),
        ("extra outside a run (paired)", idle),
    ]
    for label, values in rows:
        low, mid, high = _triple(values)
        print(f"    {label:<34} {low:8.2f} {mid:8.2f} {high:8.2f}")
    median_extra = statistics.median(extra)
    ratio = statistics.median(inside) / statistics.median(plain)
    print(
        f"    extra {median_extra:.2f} us per request: {ratio:.2f}x the uninstrumented request, "
        f"{median_extra / BUDGET_US:.0%} of the {BUDGET_US:.0f} us budget"
    )
    return median_extra


def _per_call_us(function: Callable[[], object], number: int, repeat: int) -> float:
    samples = timeit.repeat(function, number=number, repeat=repeat)
    return statistics.median(samples) / number * 1e6


def breakdown(repeat: int) -> None:
    """Where the time of one instrumented request's span goes (medians, us, in isolation).

    ``ABP span`` opens and ends a detached span with the attributes the
    instrumentor records for the request (no attributes: the span alone);
    ``instrumentor`` runs the instrumentor's own request/response recording
    (``open_exchange`` + ``respond``) on a real request and response, which
    includes that same ABP span.
    """
    client = _client(httpx)
    response = client.get("https://api.example.com/v1/items?page=2")
    request = response.request
    plan = CapturePlan()
    runtime = InstrumentationRuntime(INFO)
    collector = TraceCollector()
    with bind_collector(collector), start_span("bench.run", kind="task"):
        probe = open_exchange(runtime, plan, request)
        assert probe is not None
        respond(probe, plan, response, streamed=False, stream_type=None, registry=set())
        # what the request's span recorded (its end handed the attributes to the trace)
        attributes = dict(collector.materialize().spans[-1].attributes)

        def abp_span(values: dict[str, object]) -> Callable[[], None]:
            def run() -> None:
                span = runtime.open_span("HTTP GET", kind="http", family="http")
                assert span is not None
                span.span.attributes.update(values)
                span.end()

            return run

        def instrumentor() -> None:
            detached = open_exchange(runtime, plan, request)
            assert detached is not None
            respond(detached, plan, response, streamed=False, stream_type=None, registry=set())

        number = 5_000
        bare = _per_call_us(abp_span({}), number, repeat)
        full = _per_call_us(abp_span(attributes), number, repeat)
        policy = _per_call_us(
            lambda: collector.capture.apply_mapping(dict(attributes)), number, repeat
        )
        own = _per_call_us(instrumentor, number, repeat)
    print(f"  one request's span in isolation ({len(attributes)} attributes, medians)")
    print(f"    ABP span, no attributes                        {bare:6.2f} us")
    print(f"    ABP capture policy over the attributes alone   {policy:6.2f} us")
    print(f"    ABP span with the attributes                   {full:6.2f} us")
    print(f"    instrumentor recording (includes that span)    {own:6.2f} us")
    print(f"    instrumentor's own work                        {own - full:6.2f} us")


def _chunks() -> Iterator[bytes]:
    for _ in range(CHUNKS):
        yield b"data: x\n\n"


def _stream_memory(module: ModuleType) -> tuple[int, int]:
    """``(retained, peak)`` traced bytes of one 10,000-chunk streamed response inside a run."""

    def handler(request: httpx.Request) -> httpx.Response:
        return module.Response(200, content=_chunks())

    client = module.Client(transport=module.MockTransport(handler))
    collector = TraceCollector()
    with bind_collector(collector), start_span("bench.run", kind="task"):
        request = client.build_request("GET", "https://api.example.com/v1/stream")
        gc.collect()
        tracemalloc.start()
        before, _ = tracemalloc.get_traced_memory()
        response = client.send(request, stream=True)
        count = 0
        for _ in response.iter_raw():
            count += 1
        response.close()
        after, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert count == CHUNKS
    client.close()
    return after - before, peak - before


def stream_memory(module: ModuleType, repeat: int) -> None:
    def best(function: Callable[[], tuple[int, int]]) -> tuple[int, int]:
        samples = [function() for _ in range(repeat)]
        return min(s[0] for s in samples), min(s[1] for s in samples)

    plain_kept, plain_peak = best(lambda: _stream_memory(module))
    with InstrumentationManager() as manager:
        manager.install(create(None))
        kept, peak = best(lambda: _stream_memory(module))
    extra = (kept - plain_kept) / 1024
    print(f"  {module.__name__}: {CHUNKS:,}-chunk streamed response (traced KB, min of {repeat})")
    print(f"    {'':<16} {'retained':>9} {'peak':>9}")
    print(f"    {'uninstrumented':<16} {plain_kept / 1024:9.1f} {plain_peak / 1024:9.1f}")
    print(f"    {'instrumented':<16} {kept / 1024:9.1f} {peak / 1024:9.1f}")
    print(
        f"    extra retained: {extra:6.1f} KB, extra peak: {(peak - plain_peak) / 1024:6.1f} KB; "
        f"budget {BUDGET_KB:.0f} KB: {extra / BUDGET_KB:.0%} of it"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repetitions instead of 7")
    args = parser.parse_args()
    repeat = 3 if args.quick else 7
    print("HTTPX instrumentor: extra time per request over MockTransport")
    for module in (httpx, httpx2):
        for count in (1_000, 10_000):
            request_overhead(module, count, repeat)
    breakdown(repeat)
    print("HTTPX instrumentor: memory of a streamed response")
    for module in (httpx, httpx2):
        stream_memory(module, repeat)


if __name__ == "__main__":
    main()
