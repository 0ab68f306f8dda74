"""Headless Chromium for the browser tests (the HTML report's and the viewer's): Debian's
``chromium`` and ``chromium-driver``, driven by selenium, offline, with the console kept."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

needs_chromium = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="no chromium and chromedriver on PATH (Debian: apt-get install chromium chromium-driver)",
)
"""The skip mark of a test that drives the browser."""


@contextmanager
def headless_chromium(profile: Path, *, width: int = 1280, height: int = 1000) -> Iterator[Any]:
    """A selenium driver of headless Chromium with a ``width`` x ``height`` window, its user
    profile in ``profile``, nothing fetched in the background, the browser console logged
    (``driver.get_log("browser")``); quit when the block ends."""
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
        f"--window-size={width},{height}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(str(DRIVER)))
    try:
        yield driver
    finally:
        driver.quit()
