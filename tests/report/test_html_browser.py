"""The ``html`` export in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``; ``.ci/run`` installs them) driven by selenium, offline.

The example's page loads without console errors, every chart has drawn data marks, a click
on a run opens its drill-down with the span waterfall, and a screenshot is written for a
person to look at. The hostile fixture shows that markup in user text runs no script.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from report_support import RunBench
from test_html_export import HOSTILE, export_html, hostile_result

from autobench.cli import cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="no chromium and chromedriver on PATH (Debian: apt-get install chromium chromium-driver)",
)

# Marks plotly draws for data: points (scatter, box points), bar and box paths, heatmap image.
MARKS = ".point, .bars path, .boxlayer path, .heatmaplayer image"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,1000",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(str(DRIVER)))
    try:
        yield driver
    finally:
        driver.quit()


def _open(driver: object, page: Path) -> None:
    driver.get(page.as_uri())  # type: ignore[attr-defined]
    deadline = time.monotonic() + 120  # a safety net, not a measure: a loaded machine is slow
    while not driver.execute_script("return document.body.dataset.ready === 'true'"):  # type: ignore[attr-defined]
        assert time.monotonic() < deadline, "the page never finished drawing its charts"
        time.sleep(0.05)


def _errors(driver: object) -> list[dict[str, object]]:
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]  # type: ignore[attr-defined]


def test_example_report_draws_every_chart_and_opens_a_run(browser: object, tmp_path: Path) -> None:
    record = tmp_path / "record"
    runner = CliRunner()
    ran = runner.invoke(
        cli,
        [
            "run",
            str(EXAMPLES / "basic" / "autobench.yaml"),
            "--record",
            str(record),
            "--no-progress",
        ],
    )
    assert ran.exit_code == 0, ran.output
    page = tmp_path / "report.html"
    exported = runner.invoke(cli, ["export", str(record), "--format", "html", "--path", str(page)])
    assert exported.exit_code == 0, exported.output

    _open(browser, page)
    assert _errors(browser) == []
    marks = browser.execute_script(  # type: ignore[attr-defined]
        "return Array.from(document.querySelectorAll('[id^=chart-]'))"
        ".map(e => [e.id, e.querySelectorAll(arguments[0]).length])",
        MARKS,
    )
    kinds = {name.split("-")[1] for name, _ in marks}
    assert kinds == {"intervals", "distributions", "scatter", "matrix", "comparisons"}
    assert all(count > 0 for _, count in marks), marks

    assert browser.execute_script("return document.getElementById('drilldown').hidden")  # type: ignore[attr-defined]
    row = browser.find_element("css selector", "#runs tbody tr")  # type: ignore[attr-defined]
    row.click()
    assert not browser.execute_script("return document.getElementById('drilldown').hidden")  # type: ignore[attr-defined]
    assert browser.find_element("id", "dd-status").text in {"passed", "failed", "errored"}  # type: ignore[attr-defined]
    assert (
        browser.execute_script(  # type: ignore[attr-defined]
            "return document.querySelectorAll('#dd-waterfall .bars path').length"
        )
        > 0
    )
    assert len(browser.find_elements("css selector", "#dd-scores tbody tr")) == 3  # type: ignore[attr-defined]
    assert _errors(browser) == []

    browser.execute_script("window.scrollTo(0, 0)")  # type: ignore[attr-defined]
    screenshot = tmp_path / "html-report.png"
    assert browser.save_screenshot(str(screenshot))  # type: ignore[attr-defined]
    assert screenshot.stat().st_size > 10_000
    print(f"screenshot of the example's HTML report: {screenshot}")


def test_hostile_text_runs_no_script(browser: object, run_bench: RunBench, tmp_path: Path) -> None:
    page = tmp_path / "hostile.html"
    page.write_text(export_html(hostile_result(run_bench)), encoding="utf-8")
    _open(browser, page)
    # Open every run's drill-down (scores, reasons, errors, span names hold the markup).
    count = browser.execute_script("return document.querySelectorAll('#runs tbody tr').length")  # type: ignore[attr-defined]
    for index in range(count):
        browser.execute_script("window.autobenchOpenRun(arguments[0])", index)  # type: ignore[attr-defined]
    assert browser.execute_script("return typeof window.__pwned") == "undefined"  # type: ignore[attr-defined]
    assert browser.execute_script("return document.querySelectorAll('img').length") == 0  # type: ignore[attr-defined]
    assert HOSTILE in browser.find_element("id", "runs").text  # type: ignore[attr-defined]
    assert HOSTILE in browser.find_element("id", "summary").text  # type: ignore[attr-defined]
    assert "window.__pwned=1" in browser.find_element("id", "chart-matrix-0").text  # type: ignore[attr-defined]
    assert _errors(browser) == []
    print(f"hostile fixture page: {page}")
