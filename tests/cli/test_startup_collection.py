"""`autobench run` starts up without the cyclic garbage collector, freezes what start-up
built before the first run and what survives each full collection while the runs go on
(autobench.cli._startup): a task run by the real console script sees collection on,
start-up's objects frozen, and its own live objects frozen by a full collection; the same
command run inside another program (click's runner) starts up with that program's collector
as it is, and gives it back as it found it once the runs are over."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from click.testing import CliRunner

from autobench.cli import cli
from autobench.core.runtime._collection import FULL_COLLECTION_EVERY, freeze_survivors

TASK = """
import gc


def observe(ctx, case):
    enabled, frozen = gc.isenabled(), gc.get_freeze_count()
    garbage = []
    garbage.append(garbage)  # a cycle, for the full collection below to free
    del garbage
    kept = [[] for _ in range(1000)]  # containers the collector tracks, alive through it
    gc.collect()
    return {
        "enabled": enabled,
        "frozen": frozen,
        "frozen_after_full": gc.get_freeze_count() - frozen,
        "kept": len(kept),
        "full_every": gc.get_threshold()[2],
    }
"""

SPEC = """
benchmark:
  collector:
    dataset:
      cases:
        - id: one
          input: {}
        - id: two
          input: {}
    run:
      python: gc_task:observe
    variants:
      base: {}
"""


def _write(tmp_path: Path) -> Path:
    (tmp_path / "gc_task.py").write_text(textwrap.dedent(TASK))
    spec = tmp_path / "autobench.yaml"
    spec.write_text(textwrap.dedent(SPEC))
    return spec


def _outputs(record: Path) -> list[dict[str, object]]:
    from autobench.records import replay_experiment

    result = replay_experiment(record)
    return [run.output for run in result.runs]  # type: ignore[misc]


def test_the_console_script_runs_tasks_with_startup_frozen_and_collection_on(
    tmp_path: Path,
) -> None:
    spec = _write(tmp_path)
    autobench = Path(sys.executable).parent / "autobench"
    done = subprocess.run(
        [str(autobench), "run", str(spec), "--record", str(tmp_path / "rec"), "--no-progress"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "AUTOBENCH_NO_INDEX": "1"},
    )
    assert done.returncode == 0, done.stderr
    outputs = _outputs(tmp_path / "rec")
    assert len(outputs) == 2
    for output in outputs:
        assert output["enabled"] is True
        # The modules, the spec and the plan: tens of thousands of objects, not a handful.
        assert isinstance(output["frozen"], int) and output["frozen"] > 10_000, output
        # The full collection froze what survived it: at least the thousand objects kept.
        assert isinstance(output["frozen_after_full"], int), output
        assert output["frozen_after_full"] >= 1_000, output
        assert output["full_every"] == FULL_COLLECTION_EVERY, output  # rarer while runs go on


def test_a_program_running_the_command_gets_its_collector_back_as_it_was(
    tmp_path: Path,
) -> None:
    """Inside another program the command's start-up leaves the collector on; the session
    freezes for the span of the runs only (autobench.core.runtime._collection) and hands
    everything back at the end."""
    spec = _write(tmp_path)
    frozen_before = gc.get_freeze_count()
    gc.collect()  # thresholds an earlier experiment of this process raised come back
    thresholds = gc.get_threshold()
    assert gc.isenabled()
    result = CliRunner().invoke(
        cli, ["run", str(spec), "--record", str(tmp_path / "rec"), "--no-progress", "--no-index"]
    )
    assert result.exit_code == 0, result.output
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen_before
    assert freeze_survivors not in gc.callbacks
    gc.collect()  # the thresholds come back with the next full collection
    assert gc.get_threshold() == thresholds
    for output in _outputs(tmp_path / "rec"):
        assert output["enabled"] is True
        assert isinstance(output["frozen"], int) and output["frozen"] > frozen_before, output
        assert isinstance(output["frozen_after_full"], int), output
        assert output["frozen_after_full"] >= 1_000, output
