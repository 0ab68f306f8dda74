"""The ``html`` export in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``; ``.ci/run`` installs them) driven by selenium, offline.

The window is 1280 px wide. The example's page loads without console errors, every chart
has drawn data marks, a click on a run opens its drill-down with the span waterfall. A wide
report (eight leaderboard columns, long variant names) fits the window: no table is wider
than its container, nor the page than the window; the headline comes before the leaderboard;
chart titles sit clear of the charts' toolbars; the case matrix shows values with a legend and
opens a run on click. Screenshots are written for a person to look at. The hostile fixture
shows that markup in user text runs no script.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import headless_chromium, needs_chromium
from click.testing import CliRunner
from html_fixtures import CANDIDATE, spec_runner, wide_result
from report_support import RunBench
from test_html_export import HOSTILE, export_html, hostile_result

from autobench.cli import cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
pytestmark = needs_chromium

# Marks plotly draws for data: points (scatter), bar paths (bars, boxes), error bars.
MARKS = ".point, .bars path, .errorbar path"
WIDTH = 1280


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    with headless_chromium(tmp_path_factory.mktemp("chromium-profile"), width=WIDTH) as driver:
        yield driver


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
    assert _overflowing(browser) == []
    marks = browser.execute_script(  # type: ignore[attr-defined]
        "return Array.from(document.querySelectorAll('[id^=chart-]'))"
        ".map(e => [e.id, e.querySelectorAll(arguments[0]).length])",
        MARKS,
    )
    kinds = {name.split("-")[1] for name, _ in marks}
    assert kinds == {"intervals", "distributions", "scatter", "forest"}
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
    assert HOSTILE in browser.find_element("id", "matrix-table").text  # type: ignore[attr-defined]
    assert _overflowing(browser) == []
    assert _errors(browser) == []
    print(f"hostile fixture page: {page}")


def _overflowing(driver: object) -> list[object]:
    """Tables wider than their container, and the page when wider than the window."""
    return driver.execute_script(  # type: ignore[attr-defined, no-any-return]
        "var wide = Array.from(document.querySelectorAll('table'))"
        ".filter(t => t.offsetParent !== null && t.scrollWidth > t.parentElement.clientWidth)"
        ".map(t => [t.id || t.className || t.parentElement.id, t.scrollWidth, t.parentElement.clientWidth]);"
        "var page = document.documentElement;"
        "if (page.scrollWidth > page.clientWidth) { wide.push(['page', page.scrollWidth, page.clientWidth]); }"
        "return wide;"
    )


def _shoot(driver: object, tmp_path: Path, name: str, element: str) -> Path:
    driver.execute_script(  # type: ignore[attr-defined]
        "document.getElementById(arguments[0]).scrollIntoView()", element
    )
    shot = tmp_path / f"{name}.png"
    assert driver.save_screenshot(str(shot))  # type: ignore[attr-defined]
    assert shot.stat().st_size > 10_000
    return shot


def test_wide_report_fits_1280_px_with_titles_clear_and_a_readable_matrix(
    browser: object, tmp_path: Path
) -> None:
    page = tmp_path / "wide.html"
    page.write_text(export_html(wide_result(spec_runner(tmp_path))), encoding="utf-8")
    _open(browser, page)
    assert _errors(browser) == []
    assert browser.execute_script("return window.innerWidth") == WIDTH  # type: ignore[attr-defined]
    assert _overflowing(browser) == []

    order = browser.execute_script(  # type: ignore[attr-defined]
        "return Array.from(document.querySelectorAll('section')).map(s => s.id)"
    )
    assert order.index("headline") == 0 and order.index("headline") < order.index("leaderboard")
    headline = browser.find_element("id", "headline").text  # type: ignore[attr-defined]
    assert "cost x10.0" in headline and "improved" in headline

    # Every chart has a title above it; no toolbar overlaps any title.
    charts = browser.execute_script(  # type: ignore[attr-defined]
        "return Array.from(document.querySelectorAll('figure.chart-box')).map(f => {"
        "  var t = f.querySelector('figcaption').getBoundingClientRect();"
        "  var bars = Array.from(f.querySelectorAll('.modebar')).map(m => m.getBoundingClientRect());"
        "  return [f.querySelector('figcaption').textContent, bars.length,"
        "          bars.filter(b => b.width > 0 && b.left < t.right && t.left < b.right"
        "                           && b.top < t.bottom && t.top < b.bottom).length,"
        "          f.querySelector('.chart').querySelectorAll(arguments[0]).length];"
        "})",
        MARKS,
    )
    assert len(charts) >= 12  # 8 columns, 3 distributions, the scatter, 4 delta charts
    for title, toolbars, overlapping, marks in charts:
        assert title and toolbars == 1 and overlapping == 0 and marks > 0, (title, marks)

    # The matrix: values in the cells, a legend, darker for the cheaper run; a click opens it.
    legend = browser.find_element("id", "matrix-legend").text  # type: ignore[attr-defined]
    assert "darker is better (lower is better)" in legend and "errored" in legend
    cells = browser.find_elements("css selector", "#matrix-table tbody tr:first-child td")  # type: ignore[attr-defined]
    assert [c.text for c in cells] == ["case-000", "0.000200", "0.002000"]
    shades = [c.value_of_css_property("background-color") for c in cells[1:]]
    lightness = [sum(int(x) for x in re.findall(r"\d+", shade)[:3]) for shade in shades]
    assert lightness[0] < lightness[1]  # the cheaper run is the darker cell
    cells[2].click()
    assert browser.find_element("id", "dd-title").text.startswith(f"case-000 / {CANDIDATE}")  # type: ignore[attr-defined]
    assert _overflowing(browser) == []

    for name, element in (
        ("wide-headline", "headline"),
        ("wide-leaderboard", "leaderboard"),
        ("wide-matrix", "matrix"),
        ("wide-comparisons", "comparisons"),
    ):
        print(f"screenshot at {WIDTH} px: {_shoot(browser, tmp_path, name, element)}")
