"""Figures for ``autobench view`` on a large record: how long the experiment page takes the
first time (replay and ``build_report``) and once loaded (filtered, sorted, paged), and how
long a run page takes.

    uv run python tools/bench_view.py                 # 10,000 runs
    uv run python tools/bench_view.py --runs 1000
    uv run python tools/bench_view.py --record DIR    # an existing record

Issue 35's budgets: the runs page usable in under 1 s and a run opening in under 200 ms on a
10,000-run experiment. Figures are requests through Starlette's TestClient (no network),
the median of five unless said otherwise. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from pathlib import Path

from bench_html_report import autobench, write_spec  # tools/, beside this script
from starlette.testclient import TestClient

from autobench.view import create_app
from autobench.view._app import RECHECK_SECONDS


def _timed(client: TestClient, url: str, repeat: int = 5) -> tuple[float, str]:
    times, text = [], ""
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - started)
        assert response.status_code == 200, (url, response.status_code)
        text = response.text
    return statistics.median(times), text


def measure(record: Path) -> None:
    client = TestClient(create_app([record.parent]))
    key = f"0/{record.name}"
    first, _ = _timed(client, f"/x/{key}", repeat=1)
    print(f"experiment page, first request (replay + build_report): {first * 1000:,.0f} ms")
    warm, text = _timed(client, f"/x/{key}")
    print(f"experiment page, loaded: {warm * 1000:,.0f} ms")
    for label, query in (
        ("sorted by cost, descending", "?sort=cost&order=desc"),
        ("errored runs only", "?status=errored"),
        ("page 100", "?page=100"),
    ):
        seconds, _ = _timed(client, f"/x/{key}{query}")
        print(f"runs, {label}: {seconds * 1000:,.0f} ms")
    links = re.findall(r'href="(/x/[^"]+/run/[^"]+)"', text)
    run = links[0]
    opened = [_timed(client, link, repeat=1)[0] for link in links[:20]]
    print(
        f"a run page opened for the first time (its run.yaml read), median of "
        f"{len(opened)} runs: {statistics.median(opened) * 1000:,.1f} ms (max {max(opened) * 1000:,.1f} ms)"
    )
    seconds, _ = _timed(client, run)
    print(f"a run page again (the run in the viewer's run cache): {seconds * 1000:,.1f} ms")
    rechecks, pages = [], []
    for _ in range(3):
        time.sleep(RECHECK_SECONDS + 0.1)
        rechecks.append(_timed(client, run, repeat=1)[0])
        time.sleep(RECHECK_SECONDS + 0.1)
        pages.append(_timed(client, f"/x/{key}", repeat=1)[0])
    print(
        f"a run page {RECHECK_SECONDS:g} s after the last look at the record's files: "
        f"{statistics.median(rechecks) * 1000:,.0f} ms"
    )
    print(
        f"experiment page {RECHECK_SECONDS:g} s after the last look (its files looked at "
        f"again, unchanged): {statistics.median(pages) * 1000:,.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--record", type=Path)
    args = parser.parse_args()
    if args.record is not None:
        measure(args.record.resolve())
        return
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        spec = write_spec(tmp, args.runs // 2)
        record = tmp / "records" / "record"
        print(f"recording {args.runs:,} runs ...", flush=True)
        autobench("run", str(spec), "--record", str(record), "--no-progress", "--runs", "none")
        measure(record)


if __name__ == "__main__":
    main()
