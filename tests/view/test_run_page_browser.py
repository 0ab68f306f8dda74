"""The run page's virtualised waterfall in a real browser (headless Chromium, as in
``test_browser.py``): a run of 100,000 spans, recorded by a real task, loads, scrolls to its
last span, collapses a subtree and opens a span's details, with no console error; a
screenshot is written for a person to look at. The time to reach the last span is printed
(a figure, not an assertion)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import serving
from test_browser import _errors, _ready, browser, pytestmark  # noqa: F401 (fixture, skip mark)

from autobench.view import create_app

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from bench_view_trace import record_spans

SPANS = 100_000


@pytest.fixture
def chromium(request: pytest.FixtureRequest) -> object:
    """``test_browser``'s headless Chromium, shared with its tests in this module."""
    return request.getfixturevalue("browser")


@pytest.fixture(scope="module")
def big_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    record = record_spans(tmp_path_factory.mktemp("big-trace"), SPANS)
    with serving(create_app([record.parent])) as url:
        yield f"{url}/x/0/{record.name}"


def _wait(driver: object, script: str, what: str) -> object:
    deadline = time.monotonic() + 120  # a safety net, not a measure
    while True:
        value = driver.execute_script(script)  # type: ignore[attr-defined]
        if value:
            return value
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def test_a_100000_span_waterfall_scrolls_collapses_and_opens_a_span(
    chromium: object, big_server: str, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    driver = chromium
    driver.get(big_server)  # type: ignore[attr-defined]
    _ready(driver)
    link = driver.find_element(By.CSS_SELECTOR, "a.run-link").get_attribute("href")  # type: ignore[attr-defined]
    driver.get(link)  # type: ignore[attr-defined]
    _ready(driver)
    total = int(driver.find_element(By.ID, "waterfall").get_attribute("data-total"))  # type: ignore[attr-defined]
    assert total > SPANS  # the task's spans and the run's own
    _wait(driver, "return document.querySelector('#waterfall .wf-row:not(.wf-loading)')", "no row")
    drawn = len(driver.find_elements(By.CSS_SELECTOR, "#waterfall .wf-row"))  # type: ignore[attr-defined]
    assert drawn < 100  # rows are recycled: only a viewport's worth exists

    started = time.perf_counter()
    driver.execute_script(  # type: ignore[attr-defined]
        "var v = document.querySelector('#waterfall .wf-viewport'); v.scrollTop = v.scrollHeight;"
    )
    last = _wait(
        driver,
        f"var r = document.querySelector('#waterfall .wf-row[data-row=\"{total - 1}\"]');"
        " return r && !r.hidden && !r.classList.contains('wf-loading') && r.textContent;",
        "the last span was never drawn",
    )
    print(f"scrolled to span {total:,} of the waterfall in {time.perf_counter() - started:.3f} s")
    # 100,000 spans in steps of 91 (a step, 9 calls of 9 leaves): the last is a bare call 8.
    assert "call 8" in str(last)
    shot = tmp_path / "view-waterfall-end.png"
    assert driver.save_screenshot(str(shot))  # type: ignore[attr-defined]

    driver.execute_script(  # type: ignore[attr-defined]
        "document.querySelector('#waterfall .wf-viewport').scrollTop = 0;"
    )
    _wait(
        driver,
        "var r = document.querySelector('#waterfall .wf-row[data-row=\"1\"]');"
        " return r && !r.hidden && !r.classList.contains('wf-loading');",
        "the first rows were never drawn again",
    )
    height = driver.execute_script(  # type: ignore[attr-defined]
        "return document.querySelector('#waterfall .wf-spacer').offsetHeight"
    )
    step = driver.find_element(By.CSS_SELECTOR, '#waterfall .wf-row[data-row="1"]')  # type: ignore[attr-defined]
    assert "step 0" in step.text
    step.find_element(By.CSS_SELECTOR, ".wf-toggle").click()
    smaller = driver.execute_script(  # type: ignore[attr-defined]
        "return document.querySelector('#waterfall .wf-spacer').offsetHeight"
    )
    assert smaller < height  # the step's 90 descendants are hidden
    assert (
        "step 1" in driver.find_element(By.CSS_SELECTOR, '#waterfall .wf-row[data-row="92"]').text
    )  # type: ignore[attr-defined]

    driver.find_element(By.CSS_SELECTOR, '#waterfall .wf-row[data-row="92"] .wf-label').click()  # type: ignore[attr-defined]
    _wait(
        driver,
        "return document.getElementById('span-detail').dataset.row === '92'",
        "the span's details never arrived",
    )
    detail = driver.find_element(By.ID, "span-detail").text  # type: ignore[attr-defined]
    assert "step 1" in detail and "agent" in detail
    driver.execute_script("document.getElementById('trace').scrollIntoView()")  # type: ignore[attr-defined]
    shot_detail = tmp_path / "view-waterfall-detail.png"
    assert driver.save_screenshot(str(shot_detail))  # type: ignore[attr-defined]
    assert _errors(driver) == []
    print(f"screenshots of the waterfall: {shot} {shot_detail}")
