"""What writing the columnar index as runs land costs a recording (issue 38): CPU and wall.

    uv run python tools/bench_live_index.py                 # 2,000 trivial runs at C=64, 4 turns
    uv run python tools/bench_live_index.py --runs 10000 --turns 3

``N`` runs of a trivial async task (returns ``{"value": 2n}``, one exact scorer) are recorded
in this process by ``run_benchmark_spec`` into a ``RecordDirectoryWriter``, with the index
on (autobench-index's listener) and off (``AUTOBENCH_NO_INDEX=1``) in turns, after one
warm-up of each (imports, pyarrow's among them, are not counted). The figures are the
process's CPU seconds (user + system: every thread, the writer's included) and the wall
seconds of each recording, sorted; CPU is the steadier of the two on a shared machine.
Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

TASK = """
async def run(ctx, case):
    return {"value": 2 * case.input["n"]}
"""


def _spec(directory: Path, runs: int) -> Path:
    (directory / "live_index_task.py").write_text(TASK)
    cases = [{"id": f"c{n}", "input": {"n": n}, "expected": {"value": 2 * n}} for n in range(runs)]
    spec = {
        "benchmark": {"id": "live-index"},
        "dataset": {"cases": cases},
        "variants": [{"id": "v"}],
        "scoring": [
            {
                "kind": "exact",
                "name": "correct",
                "actual": "output.value",
                "expected": "case.expected.value",
            }
        ],
        "task": {"target": "live_index_task:run"},
    }
    path = directory / "autobench.yaml"
    path.write_text(json.dumps(spec))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--turns", type=int, default=4)
    arguments = parser.parse_args()
    from autobench import load_benchmark_spec, run_benchmark_spec
    from autobench.records import RecordDirectoryWriter

    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        sys.path.insert(0, str(directory))
        spec = load_benchmark_spec(_spec(directory, arguments.runs))
        record = directory / "rec"

        def once(index: bool) -> tuple[float, float]:
            if index:
                os.environ.pop("AUTOBENCH_NO_INDEX", None)
            else:
                os.environ["AUTOBENCH_NO_INDEX"] = "1"
            shutil.rmtree(record, ignore_errors=True)
            before, started = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
            asyncio.run(
                run_benchmark_spec(
                    spec,
                    concurrency_limit=arguments.concurrency,
                    sink=RecordDirectoryWriter(record),
                )
            )
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_SELF)
            assert (record / "index").is_dir() == index
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            return cpu, wall

        once(True)
        once(False)
        samples: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
        for _ in range(arguments.turns):
            for index in (True, False):
                samples[index].append(once(index))
    print(
        f"{arguments.runs:,} runs at concurrency {arguments.concurrency}, {arguments.turns} turns"
    )
    for index in (True, False):
        cpu = sorted(c for c, _ in samples[index])
        wall = sorted(w for _, w in samples[index])
        print(
            f"index {'on ' if index else 'off'}: CPU s {', '.join(f'{c:.2f}' for c in cpu)}; "
            f"wall s {', '.join(f'{w:.2f}' for w in wall)}"
        )


if __name__ == "__main__":
    main()
