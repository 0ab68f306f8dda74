"""Commands that only read records do not load pydantic's plugins (autobench.cli._app,
``leave_out_pydantic_plugins``); commands that run a user's code do, and so does any
command run inside another program. A fresh interpreter runs the real console script's
``main`` and lists the modules it loaded: an installed plugin's module (an observability
SDK's, found by its ``pydantic`` entry point) is among them or not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

PLUGINS = sorted(
    {point.value.split(":")[0].split(".")[0] for point in entry_points(group="pydantic")}
)

pytestmark = pytest.mark.skipif(not PLUGINS, reason="no pydantic plugin installed here")

SCRIPT = """
import json, sys
from autobench.cli import _app
sys.argv = ["autobench", *sys.argv[1:]]
try:
    if sys.argv[1] == "--in-program":
        del sys.argv[1]
        _app.cli.main(sys.argv[1:], prog_name="autobench")
    else:
        _app.main()
except SystemExit as end:
    code = end.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

TASK = "def run(ctx, case):\n    return {'n': case.input['n']}\n"


def _loaded(cwd: Path, *args: str) -> set[str]:
    env = {key: value for key, value in os.environ.items() if key != "PYDANTIC_DISABLE_PLUGINS"}
    env.update(AUTOBENCH_NO_INDEX="1", NO_COLOR="1")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    found = json.loads(done.stdout.rstrip("\n").split("\n")[-1])
    assert found["code"] in (0, None), done.stderr
    return {name.split(".")[0] for name in found["modules"]}


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("plugins")
    (root / "plugin_task.py").write_text(TASK)
    (root / "autobench.yaml").write_text(
        "benchmark:\n  plugins:\n    cases: [{id: a, input: {n: 1}}, {id: b, input: {n: 2}}]\n"
        "    run: {python: plugin_task:run}\n    variants: {x: {}, y: {}}\n"
    )
    _loaded(root, "run", "autobench.yaml", "--record", "rec", "--no-progress")
    return root


@pytest.mark.parametrize(
    "command",
    [
        ["report", "rec"],
        ["compare", "rec", "--baseline", "x", "--candidate", "y"],
        ["export", "rec", "--format", "csv", "--path", "out.csv"],
        ["replay", "rec"],
    ],
    ids=lambda command: command[0],
)
def test_a_reading_command_loads_no_pydantic_plugin(record: Path, command: list[str]) -> None:
    assert _loaded(record, *command).isdisjoint(PLUGINS)


def test_a_command_running_user_code_keeps_the_plugins(record: Path) -> None:
    modules = _loaded(record, "run", "autobench.yaml", "--no-record", "--no-progress")
    assert set(PLUGINS) <= modules


def test_a_reading_command_inside_another_program_keeps_the_plugins(record: Path) -> None:
    assert set(PLUGINS) <= _loaded(record, "--in-program", "report", "rec")
