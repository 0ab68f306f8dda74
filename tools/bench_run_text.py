"""Microseconds to write one ``run.yaml``: ``run_record_to_yaml`` (``run_text``, the
group-commit thread's work per run) against the document path, on the runs of a real
experiment, with the text compared.

    uv run python tools/bench_run_text.py                      # 2,000 trivial runs
    uv run python tools/bench_run_text.py --runs 500 --repeat 9
    uv run python tools/bench_run_text.py --record DIR         # the runs of a record

Without ``--record``, ``--runs`` cases of a task returning ``{"value": 2n}`` with one
exact-match scorer (the trivial workload of ``tools/bench_throughput.py``) are run in
this process, recorded in a temporary directory, and read back. Each try writes every
run once; the script prints the median of ``--repeat`` tries per run, with min and max,
for ``run_record_to_yaml`` and for the document path (``render_run(run_sections(run))``),
and checks both write the same text for every run. The script runs unchanged on older
Autobench (where both are the document path), for a before/after in one sitting.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench import ab_spec  # tools/, beside this script

from autobench.records import RunRecord, replay_experiment, run_record_to_yaml
from autobench.records._codec import render_run, run_sections

TASK = """
async def run_case(ctx, case):
    return {"value": case.input["n"] * 2}
"""


def _record(directory: Path, runs: int) -> Path:
    """Record ``runs`` trivial runs (``runs // 2`` cases x two variants) into ``directory/record``."""
    from autobench import load_benchmark_spec, run_benchmark_spec
    from autobench.records import RecordDirectoryWriter

    correct = (
        "      correct:",
        "        exact: {actual: output.value, expected: case.expected.value}",
        "        semantic: quality.correctness",
    )
    spec_path = ab_spec(directory, "runtext", TASK, max(runs // 2, 1), correct)
    sys.path.insert(0, str(directory))
    record = directory / "record"
    spec = load_benchmark_spec(spec_path)
    asyncio.run(run_benchmark_spec(spec, concurrency_limit=64, sink=RecordDirectoryWriter(record)))
    return record


def _tries(runs: list[RunRecord], write: Callable[[RunRecord], str], repeat: int) -> list[float]:
    per_run = []
    for _ in range(repeat):
        started = time.perf_counter()
        for run in runs:
            write(run)
        per_run.append((time.perf_counter() - started) / len(runs) * 1e6)
    return per_run


def _shown(tries: list[float]) -> str:
    return f"{statistics.median(tries):6.1f} us ({min(tries):.1f}-{max(tries):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=2000, help="runs recorded (no --record)")
    parser.add_argument("--record", type=Path, help="write the runs of this record directory")
    parser.add_argument("--repeat", type=int, default=7, help="tries (median, min, max)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="autobench-run-text-") as name:
        record = options.record or _record(Path(name), options.runs)
        runs = list(replay_experiment(record).runs)
    if any(run_record_to_yaml(run) != render_run(run_sections(run)) for run in runs):
        raise SystemExit("the two paths wrote different text")
    fast = _tries(runs, run_record_to_yaml, options.repeat)
    reference = _tries(runs, lambda run: render_run(run_sections(run)), options.repeat)
    print(f"run.yaml writing, {len(runs):,} runs, median of {options.repeat} tries (min-max):")
    print(f"    run_record_to_yaml {_shown(fast)}")
    print(f"    document path      {_shown(reference)}")


if __name__ == "__main__":
    main()
