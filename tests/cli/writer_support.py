"""Shared by the record writer process's tests (test_record_writer_process.py,
test_record_writer_hostile.py): a benchmark of N trivial cases, the environment of an
``autobench run`` child, running it, and finding the record writer processes of a process
through /proc (Linux), in the test and, as source text, in the scripts and tasks the tests
run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

AUTOBENCH = str(Path(sys.executable).parent / "autobench")

WRITERS_SOURCE = '''
def writers(parent):
    """The live record writer processes whose parent is ``parent`` (from /proc)."""
    import pathlib

    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == parent and b"autobench.records._commit_worker" in command and state != "Z":
            found.append(int(entry.name))
    return found
'''
"""Source of ``writers(parent)``, for the scripts and task modules the tests write."""

_namespace: dict[str, object] = {}
exec(WRITERS_SOURCE, _namespace)
writers = _namespace["writers"]
"""``writers(parent) -> list[int]``: the same function, in the test process."""


def write_benchmark(root: Path, cases: int, task: str, module: str) -> None:
    """``root/autobench.yaml``: ``cases`` cases ``c0000...`` (input ``n``) x one variant,
    run by ``module:run``, whose source is ``task``."""
    (root / f"{module}.py").write_text(task)
    case_list = ", ".join(f"{{id: c{index:04d}, input: {{n: {index}}}}}" for index in range(cases))
    (root / "autobench.yaml").write_text(
        f"benchmark:\n  store:\n    cases: [{case_list}]\n"
        f"    run: {{python: {module}:run}}\n    variants: {{v: {{}}}}\n"
    )


def child_env(**extra: str) -> dict[str, str]:
    """This process's environment without pytest's, no live index, wide plain output, then
    ``extra`` (a value of ``""`` removes the variable)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    env.update(COLUMNS="200", NO_COLOR="1", AUTOBENCH_NO_INDEX="1")
    env.update(extra)
    return {key: value for key, value in env.items() if value != ""}


def _run(command: list[str], root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=root, env=child_env(**env), capture_output=True, text=True, timeout=300
    )


def run_cli(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``autobench run autobench.yaml --no-progress --runs none *args`` in ``root``."""
    command = [AUTOBENCH, "run", "autobench.yaml", "--no-progress", "--runs", "none", *args]
    return _run(command, root, env)


def run_script(root: Path, source: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Write ``source`` as ``root/drive.py`` and run it (with ``args``) by this interpreter
    in ``root``."""
    (root / "drive.py").write_text(source)
    return _run([sys.executable, "drive.py", *args], root, env)
