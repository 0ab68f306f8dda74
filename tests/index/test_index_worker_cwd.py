"""The index worker of a benchmark whose directory holds modules named like the standard
library's (a ``queue.py``, ``email.py``, ``random.py``: common names for a benchmark's own
helpers) still writes the index: it starts with ``python -P``, so the recording process's
working directory is not on its path (it was, and the worker died on its first import,
leaving a warning and no index)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from autobench.index import load_index

AUTOBENCH = str(Path(sys.executable).parent / "autobench")
SHADOW = 'raise ImportError("a benchmark module named like the standard library")\n'


def test_modules_of_the_working_directory_do_not_reach_the_index_worker(tmp_path: Path) -> None:
    for name in ("queue.py", "email.py", "random.py"):
        (tmp_path / name).write_text(SHADOW)
    (tmp_path / "shadow_task.py").write_text("def run(ctx, case):\n    return {'n': 1}\n")
    cases = ", ".join(f"{{id: c{index}}}" for index in range(20))
    (tmp_path / "autobench.yaml").write_text(
        f"benchmark:\n  shadow:\n    cases: [{cases}]\n"
        "    run: {python: shadow_task:run}\n    variants: {v: {}}\n"
    )
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    env.update(AUTOBENCH_INDEX_WORKER="1", NO_COLOR="1")
    done = subprocess.run(
        [AUTOBENCH, "run", "autobench.yaml", "--record", "rec", "--no-progress", "--runs", "none"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "was not written" not in done.stderr, done.stderr
    result = load_index(tmp_path / "rec")
    assert result is not None and len(result.runs) == 20
