"""Regenerate the screenshots of docs/view.md: ``autobench view`` over the Pydantic AI example.

    uv run python tools/view_screenshots.py            # writes docs/img/view-*.png
    uv run python tools/view_screenshots.py --out DIR  # somewhere else

Records examples/pydantic_ai (a Pydantic AI agent over an offline OpenAI-compatible API, two
variants, every native instrumentor on) through the real CLI into a temporary directory,
serves the viewer over it on a loopback port, and has headless Chromium (Debian's
``chromium`` and ``chromium-driver``, driven by selenium) save the experiment page,
a run, a diff of the same case under the two variants, and the variant comparison.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn

from autobench.view import create_app

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "pydantic_ai" / "autobench.yaml"
WIDTH, HEIGHT = 1280, 900


def _serve(directory: Path) -> tuple[str, uvicorn.Server, threading.Thread]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app([directory]), log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server, thread


def _browser(profile: Path) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if chromium is None or driver is None:
        sys.exit("needs chromium and chromedriver on PATH (Debian: chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        f"--window-size={WIDTH},{HEIGHT}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service(driver))


def _open(driver: Any, url: str, wait_for: str | None = None) -> None:
    from selenium.webdriver.common.by import By

    driver.get(url)
    deadline = time.monotonic() + 60
    while True:
        ready = driver.execute_script("return document.body && document.body.dataset.ready")
        if ready == "true" and (
            wait_for is None or driver.find_elements(By.CSS_SELECTOR, wait_for)
        ):
            break
        if time.monotonic() > deadline:
            sys.exit(f"{url} never became ready")
        time.sleep(0.1)
    time.sleep(0.3)  # let the waterfall draw its rows


def _shot(driver: Any, out: Path, name: str, selector: str | None = None) -> None:
    from selenium.webdriver.common.by import By

    if selector is not None:
        element = driver.find_element(By.CSS_SELECTOR, selector)
        driver.execute_script("arguments[0].scrollIntoView()", element)
        time.sleep(0.3)
    path = out / f"view-{name}.png"
    driver.save_screenshot(str(path))
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    from selenium.webdriver.common.by import By

    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        record = tmp / "records" / "pydantic-ai-shop"
        command = [
            str(Path(sys.executable).parent / "autobench"),
            "run",
            str(EXAMPLE),
            "--record",
            str(record),
            "--no-progress",
        ]
        subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        url, server, thread = _serve(tmp / "records")
        driver = _browser(tmp / "profile")
        try:
            _open(driver, url + "/")
            driver.find_element(By.CSS_SELECTOR, "a.experiment-link").click()
            _open(driver, driver.current_url, "#runs-table")
            _shot(driver, out, "experiment")
            run = driver.find_elements(By.CSS_SELECTOR, "#runs-table a.run-link")[0]
            run_url = run.get_attribute("href")
            _open(driver, run_url, "#waterfall .wf-row")
            _shot(driver, out, "run-calls", "#llm-calls")
            _shot(driver, out, "run-trace", "#trace")
            links = driver.find_elements(By.CSS_SELECTOR, "#diff-with a.diff-link")
            if links:
                _open(driver, links[0].get_attribute("href"), "#span-tree")
                _shot(driver, out, "diff", "#scores")
            _open(driver, url + "/")
            driver.find_element(By.CSS_SELECTOR, "a.experiment-link").click()
            _open(driver, driver.current_url, "#compare-variants button")
            driver.find_element(By.CSS_SELECTOR, "#compare-variants button").click()
            _open(driver, driver.current_url)
            _shot(driver, out, "compare")
        finally:
            driver.quit()
            server.should_exit = True
            thread.join(timeout=30)


if __name__ == "__main__":
    main()
