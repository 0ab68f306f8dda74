"""Figures for the run page of ``autobench view`` on a run with a very large trace: a real
record whose one run opened 100,000 spans (``ctx.span``, nested three deep), then the run
page, the first window of waterfall rows, a window at the end and one span's details.

    uv run python tools/bench_view_trace.py                  # 100,000 spans
    uv run python tools/bench_view_trace.py --spans 10000

Figures are requests through Starlette's TestClient (no network): the first request (the
run's YAML read and laid out), then the median of five once the run is in the viewer's
run cache. Figures, not assertions. The browser side (scrolling to the end) is timed by
tests/view/test_run_page_browser.py.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from starlette.testclient import TestClient

from autobench import run_benchmark_spec
from autobench.core.spec import BenchmarkSpec
from autobench.records import RecordDirectoryWriter
from autobench.view import create_app

TASK = """
def run(ctx, case):
    total = case.input["spans"]
    opened = 0
    step = 0
    while opened < total:
        with ctx.span(f"step {step}", kind="agent"):
            opened += 1
            for call in range(9):
                if opened >= total:
                    break
                with ctx.span(f"call {call}", kind="tool" if call % 3 == 0 else "custom",
                              input={"call": call}):
                    opened += 1
                    for leaf in range(9):
                        if opened >= total:
                            break
                        with ctx.span("leaf", attributes={"leaf": leaf}):
                            opened += 1
        step += 1
    return {"spans": opened}
"""


def record_spans(workdir: Path, spans: int) -> Path:
    """Record one run whose task opens ``spans`` spans; the experiment directory."""
    (workdir / "big_trace_task.py").write_text(textwrap.dedent(TASK))
    sys.path.insert(0, str(workdir))
    data = {
        "benchmark": {"id": "big-trace"},
        "dataset": {"cases": [{"id": "big", "input": {"spans": spans}}]},
        "variants": [{"id": "only"}],
        "task": {"target": "big_trace_task:run"},
    }
    spec = BenchmarkSpec.model_validate(data).model_copy(update={"base_dir": workdir})
    out = workdir / "records" / "big-trace"
    try:
        asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(out)))
    finally:
        sys.modules.pop("big_trace_task", None)
        sys.path.remove(str(workdir))
    return out


def _timed(client: TestClient, url: str, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - started)
        assert response.status_code == 200, (url, response.status_code, response.text[:200])
    return statistics.median(times)


def measure(record: Path) -> None:
    client = TestClient(create_app([record.parent]))
    key = f"0/{record.name}"
    client.get(f"/x/{key}")  # the experiment loaded once, as a user arrives from it
    run_id = client.app.state.viewer.load(client.app.state.viewer.find(key)).rows[0].run_id  # type: ignore[attr-defined]
    page = f"/x/{key}/run/{run_id}"
    first = _timed(client, page, repeat=1)
    print(f"run page, first request (run.yaml read, waterfall laid out): {first * 1000:,.0f} ms")
    print(f"run page, run cached: {_timed(client, page) * 1000:,.1f} ms")
    total = client.get(page + "/spans?from=0&count=1").json()["total"]
    print(f"spans in the trace: {total:,}")
    print(
        f"first window (500 rows): {_timed(client, page + '/spans?from=0&count=500') * 1000:,.1f} ms"
    )
    last = max(0, total - 500)
    print(
        f"last window (500 rows): {_timed(client, f'{page}/spans?from={last}&count=500') * 1000:,.1f} ms"
    )
    print(f"one span's details: {_timed(client, f'{page}/span/{total // 2}') * 1000:,.1f} ms")
    size = len(client.get(page).content)
    print(f"run page size: {size / 1024:,.0f} KiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        started = time.perf_counter()
        record = record_spans(Path(name), args.spans)
        print(f"recorded {args.spans:,} spans in {time.perf_counter() - started:,.1f} s")
        measure(record)


if __name__ == "__main__":
    main()
