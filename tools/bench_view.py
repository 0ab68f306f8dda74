"""Figures for ``autobench view`` on a large record: how soon the runs page is usable the first
time (the page with the whole runs table: every run, filterable, sortable, paged, with its
counts), when the headline and leaderboard join it (``build_report``) and when the first load
is complete; how long pages take once loaded (filtered, sorted, paged), how long a run page
takes, and how long a reload takes after one more run was recorded (incremental: only that
run file is parsed). First loads are measured in fresh processes (``--fresh``, three by
default), as a user starting ``autobench view`` meets them, then once more in this process
before the other figures.

    uv run python tools/bench_view.py                 # 10,000 runs: first loads from the
                                                      # YAML files, then from a columnar index
    uv run python tools/bench_view.py --runs 1000
    uv run python tools/bench_view.py --record DIR    # an existing record (no reload figure:
                                                      # nothing is written into it; build an
                                                      # index on a copy: autobench index COPY)
    uv run python tools/bench_view.py --browser 3     # also in headless Chromium (chromium
                                                      # and chromedriver on PATH), 3 times

Issue 35's budgets: the runs page usable in under 1 s and a run opening in under 200 ms on a
10,000-run experiment. Figures are requests through Starlette's TestClient (no network),
the median of five unless said otherwise. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench_html_report import autobench, write_spec  # tools/, beside this script
from starlette.testclient import TestClient

from autobench.view import create_app
from autobench.view._app import RECHECK_SECONDS, Viewer

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


def _timed(client: TestClient, url: str, repeat: int = 5) -> tuple[float, str]:
    times, text = [], ""
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - started)
        assert response.status_code == 200, (url, response.status_code)
        text = response.text
    return statistics.median(times), text


def _until(client: TestClient, url: str, done: Callable[[dict[str, Any]], bool]) -> float:
    """Seconds until the state at ``url`` satisfies ``done`` (polled every 20 ms)."""
    started = time.perf_counter()
    while not done(client.get(url).json()):
        assert time.perf_counter() - started < 600, "the viewer never got there"
        time.sleep(0.02)
    return time.perf_counter() - started


def _counts(html: str) -> str | None:
    """The page's ``N of M planned runs recorded`` line, when it shows the runs table."""
    if 'id="runs-table"' not in html:
        return None
    found = re.search(r'id="run-counts">([^<]*?) planned runs recorded', html)
    return found.group(1) if found else None


def first_load(client: TestClient, key: str) -> dict[str, float]:
    """Figures of an experiment's first load in ``client``'s fresh viewer (seconds after
    the first request): ``answered`` (the first request), ``usable`` (a page with the whole
    runs table: every recorded run, filterable, sortable, paged, with its counts),
    ``report`` (the headline and leaderboard too) and ``complete`` (the load done,
    including the look at the record's files that live reloads compare with)."""
    state = f"/x/{key}/live/state"
    started, cpu = time.perf_counter(), time.process_time()
    response = client.get(f"/x/{key}")
    figures = {"answered": time.perf_counter() - started}
    assert response.status_code == 200, response.status_code
    html = response.text
    shown = re.search(r'id="live-progress">([^<]*)<', html)
    parts = ["the runs table" if _counts(html) else "no runs table"]
    parts += ["the headline"] if 'id="headline"' in html else []
    parts += [f"progress: {shown.group(1)}"] if shown and shown.group(1) else []
    print(
        f"experiment page, first request: {figures['answered'] * 1000:,.0f} ms; "
        f"it shows {', '.join(parts)}"
    )
    while _counts(html) is None:  # what live.js does: the state, then the page's live part
        _until(client, state, lambda s: s["runs"] is not None or s["problem"] is not None)
        html = client.get(f"/x/{key}/live/body").text
    figures["usable"] = time.perf_counter() - started
    figures["usable_cpu"] = time.process_time() - cpu
    recorded = client.get(state).json()["runs"]
    assert (_counts(html) or "").startswith(f"{recorded} of "), _counts(html)
    print(
        f"RUNS PAGE USABLE (the runs table with all {recorded:,} recorded runs and its "
        f"counts): {figures['usable'] * 1000:,.0f} ms after the first request (CPU time of "
        f"this process meanwhile: {figures['usable_cpu'] * 1000:,.0f} ms; load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
    )
    _until(client, state, lambda s: s["report"])
    figures["report"] = time.perf_counter() - started
    print(
        f"headline and leaderboard in (build_report): {figures['report'] * 1000:,.0f} ms "
        "after the first request"
    )
    _until(client, state, lambda s: s["report"] and not s["loading"])
    figures["complete"] = time.perf_counter() - started
    print(
        "first load complete (and the record's files looked at for live reloads): "
        f"{figures['complete'] * 1000:,.0f} ms after the first request"
    )
    return figures


def measure(record: Path, *, aside: Sequence[Path] = ()) -> None:
    """Figures over ``record``; with ``aside`` (run files of it moved out of the record),
    also a reload each time one of them is put back: one more run recorded."""
    app = create_app([record])
    viewer: Viewer = app.state.viewer
    client = TestClient(app)
    key = "0"  # the record itself is the root: nothing else is walked
    state = f"/x/{key}/live/state"
    first_load(client, key)
    warm, text = _timed(client, f"/x/{key}")
    print(f"experiment page, loaded: {warm * 1000:,.0f} ms")
    for label, query in (
        ("sorted by cost, descending", "?sort=cost&order=desc"),
        ("errored runs only", "?status=errored"),
        ("page 100", "?page=100"),
    ):
        seconds, _ = _timed(client, f"/x/{key}{query}")
        print(f"runs, {label}: {seconds * 1000:,.0f} ms")
    seconds, _ = _timed(client, f"/x/{key}/live/body")
    print(f"the page's live part (what live.js fetches after a change): {seconds * 1000:,.0f} ms")
    seconds, _ = _timed(client, state)
    print(f"the live state (what live.js polls): {seconds * 1000:,.0f} ms")
    links = re.findall(r'href="(/x/[^"]+/run/[^"]+)"', text)
    run = links[0]
    opened = [_timed(client, link, repeat=1)[0] for link in links[:20]]
    print(
        f"a run page opened for the first time (its run.yaml read), median of "
        f"{len(opened)} runs: {statistics.median(opened) * 1000:,.1f} ms "
        f"(max {max(opened) * 1000:,.1f} ms)"
    )
    seconds, _ = _timed(client, run)
    print(f"a run page again (the run in the viewer's run cache): {seconds * 1000:,.1f} ms")
    looks = []
    for _ in range(3):
        time.sleep(RECHECK_SECONDS + 0.1)
        looks.append(_until(client, state, lambda s: not s["loading"]))
    print(
        f"looking at the record's files again (every {RECHECK_SECONDS:g} s while polled, in "
        f"the background; unchanged): {statistics.median(looks) * 1000:,.0f} ms"
    )
    loads = viewer.loads(viewer.find(key))
    table = loads.snapshot().table
    from_index = table is not None and table.from_index
    for number, path in enumerate(aside, 1):
        before = client.get(state).json()["generation"]
        path.rename(record / path.name.replace("__", "/"))
        time.sleep(RECHECK_SECONDS + 0.1)
        seconds = _until(
            client, state, lambda s, g=before: s["generation"] > g and not s["loading"]
        )
        why = ": the first load read the index" if number == 1 and from_index else ""
        print(
            f"reload {number} after one more run was recorded ({loads.parsed_by_last_load:,} "
            f"run files parsed{why}; the report built again): {seconds * 1000:,.0f} ms"
        )


def _in_fresh_process(record: Path, flag: str) -> dict[str, Any]:
    """The figures this script prints as its last line when run on ``record`` with
    ``flag`` (``--first-load-only`` or ``--browser-only``) in a fresh Python process."""
    done = subprocess.run(
        [sys.executable, __file__, "--record", str(record), flag],
        capture_output=True,
        text=True,
        check=True,
    )
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def fresh_first_loads(record: Path, count: int) -> None:
    """The first-load figures of ``record`` in ``count`` fresh processes, one after the
    other (each imports the viewer, creates the app and sends the first request)."""
    if count < 1:
        return
    usable = []
    for number in range(1, count + 1):
        figures = _in_fresh_process(record, "--first-load-only")
        usable.append(figures["usable"])
        print(
            f"fresh process {number}: runs page usable {figures['usable'] * 1000:,.0f} ms "
            f"(CPU {figures['usable_cpu'] * 1000:,.0f} ms), "
            f"headline and leaderboard {figures['report'] * 1000:,.0f} ms, first load "
            f"complete {figures['complete'] * 1000:,.0f} ms after the first request"
        )
    print(
        f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores) "
        f"RUNS PAGE USABLE in {count} fresh processes: "
        f"{', '.join(f'{u * 1000:,.0f}' for u in usable)} ms (max {max(usable) * 1000:,.0f} ms)"
    )


def _served(app: Any) -> tuple[Any, threading.Thread, str]:
    """``app`` served by uvicorn on a free loopback port in a thread, as ``autobench view``
    serves it: the server, its thread and its address."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    return server, thread, f"http://127.0.0.1:{sock.getsockname()[1]}"


def browser_first_load(record: Path) -> dict[str, Any]:
    """In headless Chromium (started first, not timed), over a viewer served by uvicorn in
    this process (no preload: the page's request starts the load): seconds from navigating
    to the experiment page until its runs table is on screen (``table``) and until the
    headline is (``headline``), and the browser console's warnings and errors."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(str(DRIVER)))
    server, thread, url = _served(create_app([record]))
    try:
        driver.get("about:blank")
        started = time.perf_counter()
        driver.get(f"{url}/x/0")
        figures: dict[str, Any] = {}
        while "headline" not in figures and time.perf_counter() - started < 600:
            if "table" not in figures and driver.find_elements(By.ID, "runs-table"):
                figures["table"] = time.perf_counter() - started
            if driver.find_elements(By.ID, "headline"):
                figures["headline"] = time.perf_counter() - started
            time.sleep(0.01)
        timing = driver.execute_script(
            "var t = performance.getEntriesByType('navigation')[0];"
            "return [t.responseStart, t.responseEnd, t.domContentLoadedEventEnd, t.loadEventEnd];"
        )
        figures["response"], figures["received"], figures["parsed"], figures["loaded"] = (
            ms / 1000 for ms in timing
        )
        figures["console"] = [
            entry["message"]
            for entry in driver.get_log("browser")
            if entry["level"] in ("SEVERE", "WARNING")
        ]
        return figures
    finally:
        driver.quit()
        server.should_exit = True
        thread.join(30)


def browser_first_loads(record: Path, count: int) -> None:
    """:func:`browser_first_load` in ``count`` fresh processes, when Chromium and its
    driver are on ``PATH``."""
    if CHROMIUM is None or DRIVER is None:
        print("in Chromium: skipped (no chromium and chromedriver on PATH)")
        return
    for number in range(1, count + 1):
        figures = _in_fresh_process(record, "--browser-only")
        print(
            f"in Chromium, fresh process {number}: the runs table on screen "
            f"{figures['table'] * 1000:,.0f} ms and the headline {figures['headline'] * 1000:,.0f} "
            f"ms after navigating to the page (the page's first byte {figures['response'] * 1000:,.0f} "
            f"ms, its load event {figures['loaded'] * 1000:,.0f} ms); console warnings and errors: "
            f"{figures['console'] or 'none'}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--record", type=Path)
    parser.add_argument("--fresh", type=int, default=3, help="fresh processes for first loads")
    parser.add_argument("--browser", type=int, default=0, help="fresh processes in Chromium")
    parser.add_argument("--first-load-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--browser-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.browser_only:  # one fresh process of browser_first_loads: figures as JSON
        print(json.dumps(browser_first_load(args.record.resolve())))
        return
    if args.first_load_only:  # one fresh process of fresh_first_loads: figures as JSON
        record = args.record.resolve()
        client = TestClient(create_app([record]))
        print(json.dumps(first_load(client, "0")))
        return
    if args.record is not None:
        record = args.record.resolve()
        indexed = (record / "index").is_dir()
        print(f"{record}: {'with' if indexed else 'without'} an index directory")
        fresh_first_loads(record, args.fresh)
        browser_first_loads(record, args.browser)
        measure(record)
        return
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        spec = write_spec(tmp, args.runs // 2)
        record = tmp / "records" / "record"
        print(f"recording {args.runs:,} runs ...", flush=True)
        autobench("run", str(spec), "--record", str(record), "--no-progress", "--runs", "none")
        # The last two runs, not yet recorded when the viewer opens: put back later, one
        # after the other, as new runs (the first reload after a load from the index parses
        # every run file, the second only the new one).
        aside = []
        for last in sorted(record.glob("cases/*/*/run.yaml"))[-2:]:
            aside.append(tmp / last.relative_to(record).as_posix().replace("/", "__"))
            last.rename(aside[-1])
        # An index ``autobench run`` may have written is stale now (a run file moved aside):
        # first loads without one, then with one built for the record as the viewer sees it.
        shutil.rmtree(record / "index", ignore_errors=True)
        print("first loads from the YAML run files (no index):")
        fresh_first_loads(record, args.fresh)
        autobench("index", str(record))
        print("first loads from a fresh columnar index (autobench index):")
        fresh_first_loads(record, args.fresh)
        browser_first_loads(record, args.browser)
        measure(record, aside=aside)


if __name__ == "__main__":
    main()
