"""Shell blocks of the Markdown docs, run for real by the docs tests.

A documented command runs in ``bash`` as a user would type it, with three allowances, each the
state the README's set-up leaves and the test suite already runs in:

- set-up steps that install or sync (``python3 -m pip install ... uv``, ``python3 -m uv sync``)
  are dropped: this suite runs inside the environment they make;
- ``python3 -m uv`` outside an activated environment is the uv that runs this suite (``$UV``),
  standing for the one the set-up installed into the user's ``python3``;
- ``.venv`` in the working directory links to this suite's environment, so
  ``source .venv/bin/activate`` activates it for real. The environment's ``bin`` directory is
  taken off ``PATH`` first: a command needs the activation the docs ask for.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^#+ (.+)$", re.MULTILINE)
SHELLS = frozenset({"bash", "sh", "shell", "console"})
SET_UP = (
    re.compile(r"python3 -m pip install (--quiet )?uv"),
    re.compile(r"python3 -m uv sync( [-\w ]+)?"),
)
PRELUDE = """\
set -euo pipefail
python3() {
    if [ "${1-}" = -m ] && [ "${2-}" = uv ] && [ -z "${VIRTUAL_ENV-}" ]; then
        shift 2
        "$UV" "$@"
    else
        command python3 "$@"
    fi
}
set -x
"""


@dataclass(frozen=True)
class Block:
    language: str
    text: str
    heading: str
    """The nearest heading above the block."""


def blocks(doc: Path) -> list[Block]:
    text = doc.read_text()
    found = []
    heading, prose_start = "", 0
    for match in FENCE.finditer(text):
        headings = HEADING.findall(text[prose_start : match.start()])  # prose only
        heading = headings[-1] if headings else heading
        found.append(Block(match.group(1), match.group(2), heading))
        prose_start = match.end()
    return found


def shell_blocks(doc: Path) -> list[Block]:
    return [block for block in blocks(doc) if block.language in SHELLS]


def files(doc: Path) -> dict[str, str]:
    """The files a doc shows: code blocks whose first line is a ``# name.ext`` comment."""
    named = {}
    for block in blocks(doc):
        first, _, rest = block.text.partition("\n")
        match = re.fullmatch(r"# ([\w.-]+\.\w+)", first.strip())
        if match and block.language in {"yaml", "python"}:
            named[match.group(1)] = rest
    return named


def without_set_up(block: Block) -> str:
    """The block's commands with the install and sync steps removed."""
    kept = []
    for line in block.text.splitlines():
        steps = [step.strip() for step in line.split("&&")]
        steps = [step for step in steps if not any(p.fullmatch(step) for p in SET_UP)]
        if steps:
            kept.append(" && ".join(steps))
    return "\n".join(kept) + "\n"


def uv() -> str:
    found = os.environ.get("UV") or shutil.which("uv")
    if found is None:
        pytest.fail("this test needs uv (run the suite through `uv run pytest`)")
    return found


def environment() -> dict[str, str]:
    """The user's shell after the set-up, before activating anything."""
    env = dict(os.environ)
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    env_bin = str(Path(sys.prefix) / "bin")
    env["PATH"] = os.pathsep.join(
        entry for entry in env.get("PATH", "").split(os.pathsep) if entry != env_bin
    )
    env["UV"] = uv()
    env["COLUMNS"] = "120"
    return env


def link_environment(work: Path) -> None:
    """``work/.venv`` is this suite's environment, so ``source .venv/bin/activate`` works."""
    (work / ".venv").symlink_to(sys.prefix, target_is_directory=True)


def run(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["bash", "-c", PRELUDE + script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done
