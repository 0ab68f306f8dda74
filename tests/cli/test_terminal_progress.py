"""`autobench run` in a real terminal: the progress bar is shown, what a task prints while
it is shown reaches the terminal once, redacted, and the command ends.

The command runs in a child process whose stdin, stdout and stderr are a pseudo-terminal
(``os.openpty``), as in a user's shell, so Rich draws its live progress bar and puts its
proxies in ``sys.stdout`` and ``sys.stderr``. A task printing through them once made every
write go round between the proxy and Autobench's redacting console for ever (the command
never ended). The timeout below only guards against that hang; nothing here is timed.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

SECRET = "sk-proj-" + "Q7r2X9w4" * 5
"""A key of the OpenAI shape: the default capture policy recognises it."""

TASK = f"""
import sys


def run(ctx, case):
    print("task says key {SECRET} for", case.id)
    print("task warns for", case.id, file=sys.stderr)
    return {{"value": case.input["n"] * 2}}
"""

CASES = 40
HANG_GUARD = 120.0
"""Seconds after which the command is taken for hung (it takes about two)."""


def _spec(directory: Path) -> Path:
    (directory / "terminal_task.py").write_text(textwrap.dedent(TASK))
    lines = ["benchmark:", "  terminal:", "    dataset:", "      cases:"]
    for index in range(CASES):
        lines += [
            f"        - id: case-{index}",
            f"          input: {{n: {index}}}",
            f"          expected: {{value: {index * 2}}}",
        ]
    lines += [
        "    run:",
        "      python: terminal_task:run",
        "    variants:",
        "      a: {factors: {mode: a}}",
        "    score:",
        "      correct:",
        "        exact: {actual: output.value, expected: case.expected.value}",
        "        semantic: quality.correctness",
    ]
    spec = directory / "autobench.yaml"
    spec.write_text("\n".join(lines) + "\n")
    return spec


def _run_in_terminal(arguments: list[str], cwd: Path) -> tuple[int, str]:
    """Run ``autobench ARGUMENTS`` with a pseudo-terminal as stdin, stdout and stderr;
    ``(exit code, everything it wrote)``. Fails the test if it has not ended in
    ``HANG_GUARD`` seconds."""
    master, slave = os.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
    env.pop("NO_COLOR", None)
    env.pop("CI", None)  # Rich draws no live display when it takes the terminal for CI
    command = [str(Path(sys.executable).with_name("autobench")), *arguments]
    process = subprocess.Popen(
        command, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, close_fds=True
    )
    os.close(slave)
    written = bytearray()
    deadline = time.monotonic() + HANG_GUARD
    try:
        while True:
            if time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"`autobench {' '.join(arguments)}` did not end in a terminal")
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the terminal closed: every writer has ended
                    break
                if not chunk:
                    break
                written += chunk
            elif process.poll() is not None:
                break
        return process.wait(timeout=HANG_GUARD), written.decode("utf-8", "replace")
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()


def test_run_in_a_terminal_shows_progress_and_what_the_task_prints(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    code, written = _run_in_terminal(
        ["run", str(spec), "--record", str(tmp_path / "rec"), "--runs", "none"], tmp_path
    )
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", written)  # colours and cursor moves
    assert code == 0, text[-2000:]
    assert "running" in text and f"{CASES}/{CASES}" in text  # the progress bar was drawn
    for index in range(CASES):  # each line of the task once, the key redacted
        assert text.count(f"task says key [redacted] for case-{index}\r\n") == 1
        assert text.count(f"task warns for case-{index}\r\n") == 1
    assert SECRET not in written
    assert f"{CASES} cases" in text  # the closing report followed
    assert len(list((tmp_path / "rec").glob("cases/*/*/run.yaml"))) == CASES


def test_rescore_in_a_terminal_ends_with_its_progress_shown(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    record = tmp_path / "rec"
    code, written = _run_in_terminal(["run", str(spec), "--record", str(record)], tmp_path)
    assert code == 0
    code, written = _run_in_terminal(["rescore", str(record), "--score", "correct"], tmp_path)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", written)
    assert code == 0, text[-2000:]
    assert f"{CASES}/{CASES}" in text  # its progress bar was drawn
    assert (
        len(list((record / "derived" / "rescore" / "correct").glob("*/cases/*/*/score.yaml")))
        == CASES
    )
