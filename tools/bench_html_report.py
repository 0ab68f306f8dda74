"""Figures for the HTML report: export time and file size of a 10,000-run record, and how
long the page takes to become interactive in headless Chromium.

    uv run python tools/bench_html_report.py                  # 10,000 runs
    uv run python tools/bench_html_report.py --runs 30         # the size of a small report
    uv run python tools/bench_html_report.py --record DIR      # an existing record
    uv run python tools/bench_html_report.py --screenshot docs/img/html-report.png

Budgets (issue 18): ``autobench export DIR --format html`` of 10,000 runs under 5 s (wall,
process start included), the file under 8 MB, interactive in the browser under 3 s; issue 32:
a 30-run page under 1.5 MB (plotly's basic bundle is 1.19 MB of it). The
page sets ``window.autobenchReady`` to ``performance.now()`` (milliseconds since navigation
started) once every chart is drawn and the run table is filled: that is the figure printed.
``--screenshot`` instead records the basic example, exports it and saves a screenshot of
the top of the page (the one docs/reports.md shows). Figures, not assertions.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

from bench import EXACT_SCORE, QUALITY_SCORE, ab_spec  # tools/bench.py, beside this script

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


TASK_MODULE = textwrap.dedent(
    """
    def run_case(ctx, case):
        n = case.input["n"]
        with ctx.span("plan", kind="agent"):
            with ctx.span("retrieve", kind="tool"):
                pass
            with ctx.span("generate", kind="llm"):
                pass
        ctx.metric("latency", 5 + (n * 7919) % 100, semantic_type="time.latency", unit="ms")
        ctx.metric("cost", 0.001 * (1 + n % 5) * (2 if ctx.factor("mode") == "b" else 1),
                   semantic_type="money.cost", unit="USD")
        if n % 97 == 0:
            raise RuntimeError(f"provider timeout on case {n}")
        return {"value": n * 2 if n % 11 else -1, "quality": (n % 10) / 10}
    """
)


def write_spec(directory: Path, cases: int) -> Path:
    """``cases`` x 2 variants: three spans, latency, cost, an exact score and a quality score."""
    return ab_spec(directory, "html-bench", TASK_MODULE, cases, (*EXACT_SCORE, *QUALITY_SCORE))


def browser(width: int = 1280, height: int = 1000) -> Any:
    """Headless Debian chromium through its chromedriver, offline flags, a fresh profile."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver is None:
        raise SystemExit(
            "needs chromium and chromedriver (apt-get install chromium chromium-driver)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--window-size={width},{height}",
        f"--user-data-dir={tempfile.mkdtemp(prefix='chromium-')}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(driver))


def open_page(driver: Any, page: Path) -> float:
    """Load ``page``; milliseconds from navigation start until the page said it was ready."""
    driver.get(page.as_uri())
    deadline = time.monotonic() + 120
    while driver.execute_script("return window.autobenchReady") is None:
        if time.monotonic() > deadline:
            raise RuntimeError("the page never became ready")
        time.sleep(0.02)
    return float(driver.execute_script("return window.autobenchReady"))


def autobench(*args: str) -> float:
    started = time.perf_counter()
    subprocess.run([str(BIN / "autobench"), *args], check=True, capture_output=True)
    return time.perf_counter() - started


def measure(runs: int, record: Path | None) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if record is None:
            spec = write_spec(tmp, runs // 2)
            record = tmp / "record"
            print(f"recording {runs:,} runs ...", flush=True)
            autobench("run", str(spec), "--record", str(record), "--no-progress", "--runs", "none")
        page = tmp / "report.html"
        times, csv_times = [], []
        for attempt in range(3):
            target = page if attempt == 0 else tmp / f"report{attempt}.html"
            times.append(
                autobench("export", str(record), "--format", "html", "--path", str(target))
            )
            csv_times.append(
                autobench("export", str(record), "--format", "csv", "--path", str(tmp / "r.csv"))
            )
        size = page.stat().st_size
        driver = browser()
        try:
            ready = [open_page(driver, page) for _ in range(3)]
            errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        finally:
            driver.quit()
    print(f"$ uv run python tools/bench_html_report.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"export --format html, {runs:,} runs: {min(times):.2f} s (best of 3; budget 5 s)")
    print(f"export --format csv of the same record, for scale: {min(csv_times):.2f} s (best of 3)")
    budget = "1.5 MB" if runs <= 30 else "8 MB"
    print(f"file size: {size / 1e6:.2f} MB ({size:,} bytes; budget {budget})")
    print(
        f"interactive in headless chromium: {min(ready) / 1000:.2f} s "
        f"(best of 3, median {sorted(ready)[1] / 1000:.2f} s; budget 3 s)"
    )
    print(f"console errors: {len(errors)}")


def screenshot(target: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        record = tmp / "record"
        spec = ROOT / "examples" / "basic" / "autobench.yaml"
        autobench("run", str(spec), "--record", str(record), "--no-progress")
        page = tmp / "report.html"
        autobench("export", str(record), "--format", "html", "--path", str(page))
        driver = browser(1280, 1500)
        try:
            open_page(driver, page)
            target.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(target))
        finally:
            driver.quit()
    print(f"wrote {target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--record", type=Path, help="measure this record directory instead")
    parser.add_argument("--screenshot", type=Path, help="write a screenshot of the basic example")
    options = parser.parse_args()
    if options.screenshot is not None:
        screenshot(options.screenshot)
    else:
        measure(options.runs, options.record)


if __name__ == "__main__":
    main()
