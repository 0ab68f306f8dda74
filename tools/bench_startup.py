"""Figures for start-up (issues 36 and 38): importing Autobench's packages, and whole commands.

    uv run python tools/bench_startup.py                    # records 10,000 trivial runs first
    uv run python tools/bench_startup.py --record DIR       # report an existing record (indexed)
    uv run python tools/bench_startup.py --imports-only -n 21

Each figure is the median of ``-n`` fresh processes (default 11), taken in turns so that a
busy moment of the shared machine falls on all of them alike:

- ``import X``: the wall and CPU time of the import alone, timed inside the process, for
  each package (its dependencies included, the interpreter's own start not), and the
  number of Autobench's pydantic model classes whose validators the import built (the rest
  are built on first use);
- ``autobench report REC`` (output discarded) and ``autobench run examples/basic/autobench.yaml
  --record TMP``: the wall time and the CPU time (user + system) of the whole process.

Python's bytecode cache is written for the workspace's packages first (``compileall``), as
an installed package has it: with ``PYTHONDONTWRITEBYTECODE`` set and no cache, every
process compiles Autobench's sources again (about 0.15 s more). Figures, not assertions.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import trivial_spec  # tools/bench.py, beside this script

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

PACKAGES = (
    "autobench.abp",
    "autobench.records",
    "autobench.core.spec",
    "autobench.report",
    "autobench.records, autobench.report",
    "autobench.cli",
)

_IMPORT = """\
import json, sys, time
started, cpu = time.perf_counter(), time.process_time()
for name in sys.argv[1].split(", "):
    __import__(name)
wall, cpu = time.perf_counter() - started, time.process_time() - cpu
import pydantic
seen, stack = [], [pydantic.BaseModel]
while stack:
    for sub in stack.pop().__subclasses__():
        stack.append(sub)
        if sub.__module__.startswith("autobench.") and sub not in seen:
            seen.append(sub)
built = sum(1 for cls in seen if cls.__dict__.get("__pydantic_complete__"))
print(json.dumps({"wall": wall, "cpu": cpu, "built": built, "models": len(seen)}))
"""


def compile_sources() -> None:
    """Write the bytecode cache of every workspace package's sources."""
    for src in sorted((ROOT / "packages").glob("*/src")):
        compileall.compile_dir(src, quiet=1)


def import_sample(names: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _IMPORT, names], check=True, capture_output=True, text=True
    )
    sample: dict[str, float] = json.loads(done.stdout)
    return sample


def command_sample(args: list[str], cwd: Path = ROOT) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one ``autobench`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [str(BIN / "autobench"), *args],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "100", "NO_COLOR": "1"},
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def record_trivial(directory: Path, runs: int) -> Path:
    spec = trivial_spec(directory, runs // 2)
    out = directory / "record"
    print(f"recording {runs:,} trivial runs, then indexing them ...", flush=True)
    run = [str(BIN / "autobench"), "run", str(spec), "--record", str(out), "--no-progress"]
    subprocess.run([*run, "--runs", "none"], check=True, capture_output=True)
    subprocess.run([str(BIN / "autobench"), "index", str(out)], check=True, capture_output=True)
    return out


def median_line(label: str, walls: list[float], cpus: list[float], extra: str = "") -> None:
    print(
        f"{label:<52} wall {statistics.median(walls) * 1000:7.0f} ms"
        f"  cpu {statistics.median(cpus) * 1000:7.0f} ms"
        f"  (cpu {min(cpus) * 1000:.0f}-{max(cpus) * 1000:.0f}){extra}",
        flush=True,
    )


def measure_imports(repeats: int) -> None:
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in PACKAGES}
    for _ in range(repeats):
        for name in PACKAGES:
            samples[name].append(import_sample(name))
    for name, rows in samples.items():
        built = f"  models built {int(rows[0]['built'])}/{int(rows[0]['models'])}"
        median_line(f"import {name}", [r["wall"] for r in rows], [r["cpu"] for r in rows], built)


def measure_commands(record: Path, repeats: int, scratch: Path) -> None:
    spec = ROOT / "examples" / "basic" / "autobench.yaml"
    report: tuple[list[float], list[float]] = ([], [])
    run: tuple[list[float], list[float]] = ([], [])
    for index in range(repeats):
        wall, cpu = command_sample(["report", str(record)])
        report[0].append(wall)
        report[1].append(cpu)
        out = scratch / f"basic-{index}"
        wall, cpu = command_sample(["run", str(spec), "--record", str(out), "--no-progress"])
        run[0].append(wall)
        run[1].append(cpu)
    median_line(f"autobench report ({record.name})", *report)
    median_line("autobench run examples/basic --record", *run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", type=Path, help="an existing (indexed) record directory")
    parser.add_argument("--runs", type=int, default=10_000, help="runs to record (even)")
    parser.add_argument("-n", "--repeats", type=int, default=11, help="fresh processes each")
    parser.add_argument("--imports-only", action="store_true", help="no whole commands")
    parser.add_argument("--no-compile", action="store_true", help="leave the bytecode cache")
    options = parser.parse_args()
    if not options.no_compile:
        compile_sources()
    print(f"load average {os.getloadavg()[0]:.1f}; medians of {options.repeats} processes")
    measure_imports(options.repeats)
    if options.imports_only:
        return
    with tempfile.TemporaryDirectory(prefix="autobench-startup-") as scratch:
        record = options.record or record_trivial(Path(scratch), options.runs)
        measure_commands(record, options.repeats, Path(scratch))
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
