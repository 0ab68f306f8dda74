"""Figures for the terminal views of 10,000 runs: ``report`` and ``compare``, as a user runs them.

    uv run python tools/bench_report.py                   # records 10,000 runs first
    uv run python tools/bench_report.py --record DIR      # an existing record directory

Budget (issue 32): ``autobench report`` of 10,000 runs within 3.5 s and ``autobench compare``
within 3 s on the 2-core development machine, headline included. The experiment is
tools/bench_compare.py's (5,000 cases x 2 variants: an exact score, a quality score,
latency). Each command runs in its own process (start-up included), 100 columns wide with
``NO_COLOR``, output discarded; best of three wall times, and the CPU time (user + system)
of the fastest, which a busy machine disturbs less. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_compare import write_spec  # tools/bench_compare.py, beside this script

BIN = Path(sys.executable).parent


def autobench(*args: str) -> tuple[float, float]:
    """Wall and CPU seconds of one ``autobench`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [str(BIN / "autobench"), *args],
        check=True,
        capture_output=True,
        env={**os.environ, "COLUMNS": "100", "NO_COLOR": "1"},
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def record(directory: Path, runs: int) -> Path:
    spec = write_spec(directory, runs // 2)
    out = directory / "record"
    print(f"recording {runs:,} runs ({runs // 2:,} cases x 2 variants) ...", flush=True)
    autobench("run", str(spec), "--record", str(out), "--no-progress", "--runs", "none")
    return out


def measure(directory: Path) -> None:
    commands = {
        "report DIR": ["report", str(directory)],
        "compare DIR --baseline a --candidate b": [
            "compare",
            str(directory),
            "--baseline",
            "a",
            "--candidate",
            "b",
        ],
        "compare DIR DIR": ["compare", str(directory), str(directory)],
    }
    for label, args in commands.items():
        times = [autobench(*args) for _ in range(3)]
        walls = ", ".join(f"{wall:.2f}" for wall, _ in times)
        wall, cpu = min(times)
        print(f"autobench {label}: {wall:.2f} s (of {walls}); CPU {cpu:.2f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", type=Path, help="an existing record directory")
    parser.add_argument("--runs", type=int, default=10_000, help="runs to record (even)")
    arguments = parser.parse_args()
    if arguments.record is not None:
        measure(arguments.record)
        return
    with tempfile.TemporaryDirectory() as name:
        measure(record(Path(name), arguments.runs))


if __name__ == "__main__":
    main()
