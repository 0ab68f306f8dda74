"""``autobench view`` in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``) driven by selenium against the viewer served by uvicorn on a loopback
port. Opens the index, an experiment, filters its runs, opens a run: no console error, no
script from recorded text runs, screenshots written for a person to look at."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from browser_support import headless_chromium, needs_chromium
from conftest import serving

from autobench.view import create_app

T = TypeVar("T")

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def server(records: Path) -> Iterator[str]:
    with serving(create_app([records])) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    with headless_chromium(tmp_path_factory.mktemp("chromium-profile")) as driver:
        yield driver


def _ready(driver: object) -> None:
    deadline = time.monotonic() + 60  # a safety net, not a measure
    while driver.execute_script("return document.body && document.body.dataset.ready") != "true":  # type: ignore[attr-defined]
        assert time.monotonic() < deadline, "the page never became ready"
        time.sleep(0.05)


def _waited(probe: Callable[[], T | None], failure: str) -> T:
    """What ``probe`` returns once it is not ``None`` (pages draw after they load)."""
    deadline = time.monotonic() + 60  # a safety net, not a measure
    while (value := probe()) is None:
        assert time.monotonic() < deadline, failure
        time.sleep(0.05)
    return value


def _errors(driver: object) -> list[dict[str, object]]:
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]  # type: ignore[attr-defined]


def test_open_filter_and_drill_down(browser: object, server: str, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver = browser
    driver.get(server + "/")  # type: ignore[attr-defined]
    _ready(driver)
    links = driver.find_elements(By.CSS_SELECTOR, "a.experiment-link")  # type: ignore[attr-defined]
    assert len(links) == 1
    links[0].click()
    _ready(driver)
    assert driver.find_element(By.ID, "leaderboard").is_displayed()  # type: ignore[attr-defined]
    rows = driver.find_elements(By.CSS_SELECTOR, "#runs-table tbody tr")  # type: ignore[attr-defined]
    assert len(rows) == 6
    shot = tmp_path / "view-experiment.png"
    assert driver.save_screenshot(str(shot))  # type: ignore[attr-defined]

    Select(driver.find_element(By.NAME, "status")).select_by_value("errored")  # type: ignore[attr-defined]
    deadline = time.monotonic() + 60  # a safety net, not a measure
    while "status=errored" not in driver.current_url:  # type: ignore[attr-defined]
        assert time.monotonic() < deadline, "choosing a status did not filter the runs"
        time.sleep(0.05)
    _ready(driver)
    rows = driver.find_elements(By.CSS_SELECTOR, "#runs-table tbody tr")  # type: ignore[attr-defined]
    assert len(rows) == 2
    assert all(row.get_attribute("class") == "status-errored" for row in rows)

    rows[0].find_element(By.CSS_SELECTOR, "a.run-link").click()
    _ready(driver)
    assert "RuntimeError" in driver.find_element(By.ID, "errors").text  # type: ignore[attr-defined]
    step = _waited(
        lambda: next(
            (
                row
                for row in driver.find_elements(By.CSS_SELECTOR, "#waterfall .wf-row")  # type: ignore[attr-defined]
                if "step boom" in row.text
            ),
            None,
        ),
        "the waterfall never drew the failing step",
    )
    step.find_element(By.CSS_SELECTOR, ".wf-label").click()
    detail = driver.find_element(By.ID, "span-detail")  # type: ignore[attr-defined]
    deadline = time.monotonic() + 60  # a safety net, not a measure
    while '"note": "boom"' not in detail.text:
        assert time.monotonic() < deadline, "the span's details never arrived"
        time.sleep(0.05)
    image = driver.find_element(By.CSS_SELECTOR, "img.artifact-image")  # type: ignore[attr-defined]
    assert driver.execute_script("return arguments[0].naturalWidth", image) == 1  # type: ignore[attr-defined]
    bar = driver.find_element(By.CSS_SELECTOR, "#waterfall .wf-bar")  # type: ignore[attr-defined]
    assert bar.size["width"] > 0
    run_shot = tmp_path / "view-run.png"
    assert driver.save_screenshot(str(run_shot))  # type: ignore[attr-defined]

    assert driver.execute_script("return window.__pwned === undefined")  # type: ignore[attr-defined]
    assert _errors(driver) == []
    print(f"screenshots of autobench view: {shot} {run_shot}")


def test_hostile_recorded_text_runs_no_script(browser: object, server: str) -> None:
    from selenium.webdriver.common.by import By

    driver = browser
    driver.get(server + "/x/0/view-test?case=" + "%3Cscript%3E")  # type: ignore[attr-defined]
    _ready(driver)
    driver.get(server + "/x/0/view-test")  # type: ignore[attr-defined]
    _ready(driver)
    links = [
        a.get_attribute("href")
        for a in driver.find_elements(By.CSS_SELECTOR, "a.run-link")  # type: ignore[attr-defined]
    ]
    hostile = [link for link in links if "script_window" in link]
    assert len(hostile) == 4  # the hostile case under both variants, the hostile variant's runs
    for link in hostile:
        driver.get(link)  # type: ignore[attr-defined]
        _ready(driver)
        assert driver.execute_script("return window.__pwned === undefined")  # type: ignore[attr-defined]
        assert "<script>window.__pwned=1</script>" in driver.find_element(By.TAG_NAME, "h1").text  # type: ignore[attr-defined]
    assert _errors(driver) == []


def test_diff_and_compare(browser: object, server: str, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    driver = browser
    driver.get(server + "/x/0/view-test?case=plain&variant=base")  # type: ignore[attr-defined]
    _ready(driver)
    driver.find_element(By.CSS_SELECTOR, "#runs-table a.run-link").click()  # type: ignore[attr-defined]
    _ready(driver)
    links = driver.find_elements(By.CSS_SELECTOR, "#diff-with a.diff-link")  # type: ignore[attr-defined]
    assert len(links) == 1  # the same case under the hostile variant
    links[0].click()
    _ready(driver)
    tree = driver.find_element(By.ID, "span-tree")  # type: ignore[attr-defined]
    rows = tree.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert rows and all(row.get_attribute("class").startswith("diff-") for row in rows)
    names = tree.find_elements(By.CSS_SELECTOR, ".span-name[data-depth='1']")
    assert names and all(name.value_of_css_property("padding-left") == "14px" for name in names)
    assert driver.find_element(By.ID, "output-diff").text  # type: ignore[attr-defined]
    diff_shot = tmp_path / "view-diff.png"
    assert driver.save_screenshot(str(diff_shot))  # type: ignore[attr-defined]

    driver.get(server + "/x/0/view-test")  # type: ignore[attr-defined]
    _ready(driver)
    driver.find_element(By.CSS_SELECTOR, "#compare-variants button").click()  # type: ignore[attr-defined]
    _waited(
        lambda: "/compare?" in driver.current_url or None,  # type: ignore[attr-defined]
        "the compare form did not lead to the comparison",
    )
    _ready(driver)
    verdicts = driver.find_elements(By.CSS_SELECTOR, "table.statistics td.verdict")  # type: ignore[attr-defined]
    assert verdicts and all(v.text for v in verdicts)
    compare_shot = tmp_path / "view-compare.png"
    assert driver.save_screenshot(str(compare_shot))  # type: ignore[attr-defined]

    assert driver.execute_script("return window.__pwned === undefined")  # type: ignore[attr-defined]
    assert _errors(driver) == []
    print(f"screenshots of autobench view: {diff_shot} {compare_shot}")
