"""Figures for the columnar index (issue 38): building it, and reports read from it.

    uv run python tools/bench_index.py                    # records 10,000 trivial runs first
    uv run python tools/bench_index.py --runs 100000      # records 100,000 first (minutes)
    uv run python tools/bench_index.py --record DIR       # an existing record directory

Budget (issue 38): ``autobench report`` of 10,000 runs in under 1 s from the index; of
1,000,000 in under 10 s and 1 GB. The experiment is tools/bench.py's trivial benchmark
(cases x 2 variants; one span, one metric, an exact and a pass scorer). Each command runs
in its own process (start-up included), output discarded; the figures are its wall time
and its peak resident memory (``ru_maxrss`` of a process that only waits for it). In
process, the script also times ``load_index`` (and 2,000 allocations right after it: they
pay the collections the load left due, a walk over every object it built unless they
were settled in the oldest generation) against
``replay_experiment(evidence_only=True)`` and ``build_report`` of the result. Figures, not
assertions.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import trivial_spec  # tools/bench.py, beside this script

BIN = Path(sys.executable).parent

_PEAK = (
    "import resource, subprocess, sys\n"
    "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL,"
    " stderr=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def command(*args: str) -> tuple[float, float]:
    """Wall seconds and peak resident MB of one ``autobench`` process."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, str(BIN / "autobench"), *args],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "100", "NO_COLOR": "1"},
    )
    wall = time.perf_counter() - started
    return wall, int(done.stdout.strip()) / 1024


def record(directory: Path, runs: int) -> Path:
    spec = trivial_spec(directory, runs // 2)
    out = directory / "record"
    print(f"recording {runs:,} runs ({runs // 2:,} cases x 2 variants) ...", flush=True)
    subprocess.run(
        [
            str(BIN / "autobench"),
            "run",
            str(spec),
            "--record",
            str(out),
            "--no-progress",
            "--runs",
            "none",
        ],
        check=True,
        capture_output=True,
    )
    return out


def in_process(directory: Path) -> None:
    from autobench.index import load_index
    from autobench.records import replay_experiment
    from autobench.report import build_report

    gc.collect()
    started = time.perf_counter()
    indexed = load_index(directory)
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    after = [[] for _ in range(2_000)]  # what the next code pays: the collections now due
    collected = time.perf_counter() - started
    del after
    assert indexed is not None, "the index is not fresh"
    started = time.perf_counter()
    build_report(indexed)
    built = time.perf_counter() - started
    del indexed
    gc.collect()
    started = time.perf_counter()
    replay_experiment(directory, evidence_only=True)
    replayed = time.perf_counter() - started
    print(
        f"in process: load_index {loaded:.2f} s (the 2,000 allocations after it {collected:.2f} s), "
        f"replay (evidence only) {replayed:.2f} s, "
        f"build_report {built:.2f} s",
        flush=True,
    )


def best(label: str, args: list[str], repeats: int) -> None:
    samples = [command(*args) for _ in range(repeats)]
    wall, peak = min(samples)
    walls = ", ".join(f"{w:.2f}" for w, _ in samples)
    print(f"{label}: {wall:.2f} s (of {walls}), peak {peak:.0f} MB", flush=True)


def measure(directory: Path, repeats: int) -> None:
    index = directory / "index"
    if index.exists():
        shutil.rmtree(index)
    best("autobench report (YAML, no index)", ["report", str(directory)], repeats)
    best("autobench index (build)", ["index", str(directory)], 1)
    best("autobench index (fresh: check only)", ["index", str(directory)], repeats)
    best("autobench report (from the index)", ["report", str(directory)], repeats)
    best(
        "autobench export --format csv (from the index)",
        [
            "export",
            str(directory),
            "--format",
            "csv",
            "--path",
            str(directory.parent / "bench_index.csv"),
        ],
        repeats,
    )
    best(
        "autobench query (runs per variant and status)",
        ["query", str(directory), "select variant_id, status, count(*) from runs group by all"],
        repeats,
    )
    in_process(directory)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", type=Path, help="an existing record directory")
    parser.add_argument("--runs", type=int, default=10_000, help="runs to record (even)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats of each command")
    arguments = parser.parse_args()
    if arguments.record is not None:
        measure(arguments.record, arguments.repeats)
        return
    with tempfile.TemporaryDirectory() as tmp:
        measure(record(Path(tmp), arguments.runs), arguments.repeats)


if __name__ == "__main__":
    main()
