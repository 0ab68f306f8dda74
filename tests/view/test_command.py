"""``autobench view`` as a user starts it: a real uvicorn server on a loopback port, asked
for pages over HTTP; the warning for a host that is not loopback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from click.testing import CliRunner

from autobench.cli import cli
from autobench.view._serve import LOOPBACK_WARNING, announce


def test_the_command_serves_the_records_on_loopback(records: Path) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "autobench.cli", "view", str(records), "--no-open"],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        seen = [process.stderr.readline()]
        while seen[-1] and not seen[-1].startswith("autobench view: http") and len(seen) < 50:
            seen.append(process.stderr.readline())  # a warning of the environment may come first
        line = seen[-1]
        assert line.startswith("autobench view: http://127.0.0.1:"), seen
        url = line.split()[2]
        index = httpx.get(url, timeout=30)
        assert index.status_code == 200
        assert "/x/0/view-test" in index.text
        assert httpx.get(url + "x/0/view-test", timeout=30).status_code == 200
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stderr is not None:
            process.stderr.close()


def test_a_host_that_is_not_loopback_is_warned_about() -> None:
    url, lines = announce("0.0.0.0", 8080)
    assert url == "http://0.0.0.0:8080/"
    assert lines[0] == LOOPBACK_WARNING.format(host="0.0.0.0", port=8080)
    assert "no authentication" in lines[0].lower()
    url, lines = announce("::1", 9000)
    assert url == "http://[::1]:9000/" and len(lines) == 1


def test_the_command_is_listed_and_checks_its_directories(tmp_path: Path) -> None:
    runner = CliRunner()
    assert "view" in runner.invoke(cli, ["--help"]).output
    missing = runner.invoke(cli, ["view", str(tmp_path / "nope"), "--no-open"])
    assert missing.exit_code == 2
    assert "does not exist" in missing.output


def test_without_the_view_distribution_the_command_says_how_to_install_it() -> None:
    # The interpreter as a user without autobench-view has it: the package cannot be imported.
    hide = (
        "import sys; sys.modules['autobench.view'] = None; "
        "from autobench.cli import main; sys.argv = ['autobench', 'view', '--no-open']; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", hide],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 1
    said = " ".join(done.stderr.split())
    assert "needs the autobench-view distribution" in said
    assert "uv sync --extra view" in said
    assert "autobench_view-0.1.0-*.whl" in said


def test_an_address_that_cannot_be_bound_is_a_clean_error(records: Path) -> None:
    """A port in use stops the command with one line saying so and a non-zero exit, before
    any walk of the directories, never a traceback."""
    taken = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = str(taken.getsockname()[1])
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "autobench.cli",
                "view",
                str(records),
                "--no-open",
                "--port",
                port,
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode != 0, done.stderr
        assert f"cannot listen on 127.0.0.1 port {port}: Address already in use" in done.stderr
        assert "Traceback" not in done.stderr and "looking for experiments" not in done.stderr
    finally:
        taken.close()


def test_the_command_opens_the_browser_on_its_address_unless_told_not_to(
    records: Path, tmp_path: Path
) -> None:
    """Without ``--no-open`` the address is handed to the browser (Python's ``webbrowser``,
    which runs the command in ``BROWSER``: here a script that writes what it is given)."""
    opened = tmp_path / "opened.txt"
    script = tmp_path / "browser.sh"
    script.write_text(f'#!/bin/sh\nprintf %s "$1" > {opened}\n')
    script.chmod(0o755)
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "BROWSER": f"{script} %s"}
    process = subprocess.Popen(
        [sys.executable, "-m", "autobench.cli", "view", str(records)],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        while line and not line.startswith("autobench view: http"):
            line = process.stderr.readline()
        url = line.split()[2]
        for _ in range(300):  # the browser is opened half a second after the address is told
            if opened.exists() and opened.read_text():
                break
            time.sleep(0.1)
        assert opened.read_text() == url
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stderr is not None:
            process.stderr.close()
