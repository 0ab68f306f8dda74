"""The shell blocks of README.md and docs/getting-started.md run as documented.

Each doc's blocks run in order in one ``bash`` session, in a fresh working directory holding the
files the doc shows (its ``# name`` code blocks) and a copy of ``examples/``; see ``docs_shell``
for the set-up steps the test leaves out (this suite already runs in the environment they make)
and how ``python3 -m uv`` and ``source .venv/bin/activate`` resolve.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import docs_shell
from docs_shell import ROOT

from autobench import replay_experiment

README = ROOT / "README.md"
GETTING_STARTED = ROOT / "docs" / "getting-started.md"


def _work_dir(tmp_path: Path, doc: Path) -> Path:
    work = tmp_path / "work"
    shutil.copytree(
        ROOT / "examples",
        work / "examples",
        ignore=shutil.ignore_patterns(".autobench", "__pycache__"),
    )
    for name, content in docs_shell.files(doc).items():
        (work / name).write_text(content)
    docs_shell.link_environment(work)
    return work


def _statuses(record: Path) -> dict[str, str]:
    return {run.variant_id: run.status.value for run in replay_experiment(record).runs}


def test_readme_commands_run_as_documented(tmp_path: Path) -> None:
    example, tests, first = docs_shell.shell_blocks(README)
    # The test command is the one running this suite; CI runs it verbatim.
    assert "uv run pytest" in tests.text
    assert tests.text.strip() in (ROOT / ".ci" / "run").read_text().splitlines()
    assert "python3 -m uv run autobench run examples/basic/autobench.yaml" in example.text
    assert first.heading == "A first benchmark"
    assert first.text.startswith("source .venv/bin/activate")

    work = _work_dir(tmp_path, README)
    assert sorted(docs_shell.files(README)) == ["autobench.yaml", "calculator_task.py"]
    env = docs_shell.environment()
    # `uv run` from the checkout: the project is the checkout, its environment already synced.
    env["UV_PROJECT"] = str(ROOT)
    env["UV_NO_SYNC"] = "1"
    docs_shell.run(docs_shell.without_set_up(example), work, env)
    (basic,) = (work / ".autobench").glob("*/*/experiment.yaml")
    assert len(replay_experiment(basic.parent).runs) == 64  # 32 tickets x 2 rule sets

    env.pop("UV_PROJECT")
    done = docs_shell.run(docs_shell.without_set_up(first), work, env)
    assert "+ source .venv/bin/activate" in done.stderr
    assert _statuses(work / "runs" / "first") == {"naive": "passed", "builtin": "passed"}
    rows = (work / "runs.csv").read_text().splitlines()
    assert rows[0].startswith("run,case,variant,status") and len(rows) == 3
    assert "arithmetic" in done.stdout  # validate and report name the benchmark


def test_getting_started_example_runs_records_and_replays(tmp_path: Path) -> None:
    set_up, core_only, first = docs_shell.shell_blocks(GETTING_STARTED)
    assert "source .venv/bin/activate" in set_up.text
    # The core-only install builds wheels and a fresh environment: that block is run by
    # tests/test_core_only_install.py, exactly as documented.
    assert "--no-index --find-links dist autobench-core" in core_only.text
    assert first.heading == "A first benchmark"

    work = _work_dir(tmp_path, GETTING_STARTED)
    assert sorted(docs_shell.files(GETTING_STARTED)) == ["autobench.yaml", "greeter_task.py"]
    script = docs_shell.without_set_up(set_up) + docs_shell.without_set_up(first)
    done = docs_shell.run(script, work, docs_shell.environment())
    assert "+ source .venv/bin/activate" in done.stderr
    record = work / "runs" / "first"
    assert (record / "experiment.yaml").is_file() and (record / "summary.yaml").is_file()
    assert len(list(record.glob("cases/*/*/run.yaml"))) == 2
    # As the doc says: `pass` is a constraint, so terse fails and friendly passes; exit 0.
    assert _statuses(record) == {"terse": "failed", "friendly": "passed"}
    assert "greeting" in done.stdout


def test_a_documented_command_that_breaks_fails_the_run(tmp_path: Path) -> None:
    """Without the activation the docs ask for, `autobench` is not found: the runner does not
    lend the command its own environment."""
    _set_up, _core_only, first = docs_shell.shell_blocks(GETTING_STARTED)
    work = _work_dir(tmp_path, GETTING_STARTED)
    done = subprocess.run(
        ["bash", "-c", docs_shell.PRELUDE + docs_shell.without_set_up(first)],
        cwd=work,
        env=docs_shell.environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 127, done.stderr
    assert "autobench: command not found" in done.stderr
