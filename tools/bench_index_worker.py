"""The index worker's CPU on an existing record (issue 36): what it costs per run.

    uv run python tools/bench_index_worker.py DIR                # DIR: a recorded experiment
    uv run python tools/bench_index_worker.py DIR --repeats 5

Each repeat is a fresh process set up as the index worker of this checkout sets itself up
(Pydantic's plugins off; numpy kept out and what it keeps frozen out of the collector,
where the worker does so) that writes the live
index of ``DIR`` the way the worker does when runs land: ``LiveIndex.runs_stored`` for
groups of ``--group`` run files in plan order, then ``finish`` (the index put in place, as
``autobench run`` leaves it; ``DIR/index`` is replaced). Printed per repeat: the CPU
seconds of the imports, of reading the experiment record, of adding the runs (and per
run) and of completing the index. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

_CHILD = """
import os, sys, time
cpu = time.process_time
started = cpu()
from autobench.index import _worker  # as the worker starts, whatever this version does
getattr(_worker, "_without_numpy", lambda: None)()
freeze = getattr(_worker, "_freeze", lambda: None)
from pathlib import Path
from autobench.index._live import LiveIndex
freeze()
imported = cpu()
root, group = Path(sys.argv[1]), int(sys.argv[2])
live = LiveIndex.of_record(root, resumed=False, owner=os.getpid())
freeze()
read = cpu()
paths = [planned.path for planned in live._experiment.plan]
for start in range(0, len(paths), group):
    live.runs_stored(paths[start : start + group])
added = cpu()
live.finish()
done = cpu()
print(len(paths), imported - started, read - imported, added - read, done - added)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("record", type=Path, help="a recorded experiment's directory")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--group", type=int, default=64, help="run files per group")
    args = parser.parse_args()
    env = {**os.environ, "PYDANTIC_DISABLE_PLUGINS": "__all__"}
    print("runs  imports s  experiment s  runs s  per run us  completion s")
    for _ in range(args.repeats):
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(args.record), str(args.group)],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        )
        wall = time.perf_counter() - started
        runs, imports, experiment, added, completion = done.stdout.split()
        count = int(runs)
        print(
            f"{count:>5,}  {float(imports):9.3f}  {float(experiment):12.3f}  "
            f"{float(added):6.3f}  {float(added) / count * 1e6:10.0f}  "
            f"{float(completion):12.3f}  (process {wall:.2f} s wall)"
        )


if __name__ == "__main__":
    main()
