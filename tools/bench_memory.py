"""Memory while running (issue 38, point 1): peak resident memory of recording a trivial
experiment, how it grows with the number of runs, and what each run leaves behind.

    uv run python tools/bench_memory.py                          # 10k, 30k, 100k runs
    uv run python tools/bench_memory.py --runs 10000,30000,100000,300000
    uv run python tools/bench_memory.py --only cli --runs 100000
    uv run python tools/bench_memory.py --tracemalloc 4000       # what one run keeps, by line
    uv run python tools/bench_memory.py --only phases            # running vs closing report
    uv run python tools/bench_memory.py --read-back REC --hold-cases 500000  # the closing's read

The experiment is tools/bench.py's trivial benchmark: N/2 cases x 2 variants; the task opens
one span and records one metric; two scorers (exact and pass) per run. Each size is recorded
twice, each time in a fresh process, output discarded:

``cli``  ``autobench run SPEC --record DIR --no-progress --runs none`` (the closing report
         included);
``api``  a Python process calling ``run_benchmark_spec(spec, sink=RecordDirectoryWriter(DIR))``
         then ``build_report`` of the result, as a script would;
``phases`` a Python process doing what ``autobench run --record`` does (a lean session, the
         plugins' record listeners, then the report rendered), which reads its own resident
         memory (Linux: ``VmRSS``, and ``VmHWM``, the peak, reset through
         ``/proc/self/clear_refs`` at each point) once the spec is loaded (``MB start``,
         the size then), and the peak of each phase after it: running until the runs are
         recorded (``MB ran``: up to the session's ``experiment_finished`` progress event,
         after ``sink.finish``; ``B/run`` its slope), reading the result back (``MB read``:
         until the result was read, the session and the spec dropped before it as
         ``autobench run`` drops them; until ``execute`` returned on a checkout without
         ``RunSession.execute_detached``) and building and rendering the closing report
         (``MB report``). ``close s``: seconds from the runs recorded to the report
         rendered. Run it with another checkout's interpreter to compare
         (``/path/to/other/.venv/bin/python tools/bench_memory.py --only phases``): the
         script only uses the public session API.

Each figure: wall seconds of the process, its peak resident memory (``ru_maxrss`` of a
process that only waits for it), and the slope between consecutive sizes in bytes per run
(what each further run costs at peak). The last line extrapolates linearly from the two
largest sizes to 1,000,000 runs (budget: under 400 MB).

``--tracemalloc N`` runs N runs in this process under :mod:`tracemalloc`, and prints the
memory still allocated when ``run_benchmark_spec`` has returned (its result alive), per run
and grouped by the source line that allocated it: what the runtime keeps per run.
``--read-back RECORD`` reads an indexed record back as ``autobench run``'s closing report
does (``ExecutedExperiment.result()`` of a lean session: the plugins' index, else the
replay), in a fresh process for each Arrow allocator (``ARROW_DEFAULT_MEMORY_POOL``:
jemalloc, mimalloc, system), and prints the resident size before, the peak while reading
and the size after; with ``--hold-cases N``, also with a loaded spec of N trivial cases and
its session held meanwhile (what the command held before it dropped them first).

Figures, never assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

from bench import trivial_spec  # tools/bench.py, beside this script

BIN = Path(sys.executable).parent
BUDGET_MB = 400
TARGET_RUNS = 1_000_000

_PEAK = (
    "import resource, subprocess, sys\n"
    "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)

_API = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path

    from autobench.core.runtime import run_benchmark_spec
    from autobench.core.spec import load_benchmark_spec
    from autobench.records import RecordDirectoryWriter
    from autobench.report import build_report

    spec = load_benchmark_spec(Path(sys.argv[1]))
    result = asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(Path(sys.argv[2]))))
    build_report(result)
    assert len(result.runs) == len(result.experiment.plan)
    """
)


_PHASES = textwrap.dedent(
    """
    import asyncio, io, json, sys, time
    from pathlib import Path

    from rich.console import Console

    from autobench.core.runtime import ProgressEventKind, RunSession
    from autobench.core.spec import load_benchmark_spec
    from autobench.report import build_report, render_report

    def status(name):
        with open("/proc/self/status") as lines:
            return next(int(l.split()[1]) / 1024 for l in lines if l.startswith(name + ":"))

    def point():
        # The peak since the last point (VmHWM, then reset), the current size, the time.
        peak, now = status("VmHWM"), status("VmRSS")
        with open("/proc/self/clear_refs", "w") as reset:
            reset.write("5")
        return time.perf_counter(), peak, now

    marks = {}

    def progress(event):
        if event.kind is ProgressEventKind.EXPERIMENT_FINISHED:
            marks["recorded"] = point()

    spec = load_benchmark_spec(Path(sys.argv[1]))
    session = RunSession.start(spec, record_dir=Path(sys.argv[2]))
    marks["start"] = point()
    if hasattr(session, "execute_detached"):  # as autobench run: the spec and session go first
        executed = asyncio.run(session.execute_detached(progress=progress, lean=True))
        del session, spec
        result = executed.result()
    else:  # a checkout from before it
        result = asyncio.run(session.execute(progress=progress, lean=True))
    marks["read"] = point()
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(render_report(build_report(result), records=sys.argv[2], runs="none"))
    marks["report"] = point()
    assert len(result.runs) == len(result.experiment.plan)
    print(json.dumps(marks))
    """
)


_READ_BACK = textwrap.dedent(
    """
    import gc, json, sys
    from pathlib import Path

    from autobench.core.plugins import default_plugins
    from autobench.core.runtime import ExecutedExperiment, RunSession
    from autobench.core.spec import load_benchmark_spec

    def status(name):
        with open("/proc/self/status") as lines:
            return next(int(l.split()[1]) / 1024 for l in lines if l.startswith(name + ":"))

    held = None
    if sys.argv[2]:  # a spec and its session, held while the record is read back
        spec = load_benchmark_spec(Path(sys.argv[2]))
        held = (spec, RunSession.start(spec, record_dir=None))
    gc.collect()
    before = status("VmRSS")
    with open("/proc/self/clear_refs", "w") as reset:
        reset.write("5")
    outcome = ExecutedExperiment(read_from=(Path(sys.argv[1]), default_plugins(), True))
    result = outcome.result()
    print(json.dumps([before, status("VmHWM"), status("VmRSS"), len(result.runs)]))
    """
)


def read_back(tmp: Path, record: Path, hold_cases: int) -> None:
    """The ``--read-back`` figures (module docstring): MB."""
    spec = str(trivial_spec(tmp, hold_cases)) if hold_cases else ""
    print(f"\nread back: {sys.executable} -c <ExecutedExperiment.result()> {record}", flush=True)
    print(f"{'Arrow pool':>10} {'held':>16} {'MB before':>10} {'MB peak':>8} {'MB after':>9}")
    for pool in ("jemalloc", "mimalloc", "system"):
        for held in ("", spec) if spec else ("",):
            done = subprocess.run(
                [sys.executable, "-c", _READ_BACK, str(record), held],
                check=False,
                capture_output=True,
                text=True,
                env={**os.environ, "ARROW_DEFAULT_MEMORY_POOL": pool},
            )
            if done.returncode:
                raise SystemExit(f"read back failed:\n{done.stderr[-3000:]}")
            before, peak, after, _ = json.loads(done.stdout.strip().splitlines()[-1])
            what = f"{hold_cases:,} cases" if held else "nothing"
            print(f"{pool:>10} {what:>16} {before:>10.0f} {peak:>8.0f} {after:>9.0f}", flush=True)


def phases(tmp: Path, runs: list[int]) -> None:
    """The ``phases`` figures (module docstring): MB and seconds."""
    print(f"\nphases: {sys.executable} -c <lean session; report> SPEC DIR", flush=True)
    header = ("runs", "MB start", "run s", "MB ran", "B/run", "MB read", "MB report", "close s")
    print("{:>9} {:>8} {:>7} {:>8} {:>7} {:>8} {:>10} {:>8}".format(*header), flush=True)
    before: tuple[int, float] | None = None
    for count in runs:
        directory = tmp / f"phases-{count}"
        directory.mkdir()
        spec = trivial_spec(directory, count // 2)
        done = subprocess.run(
            [sys.executable, "-c", _PHASES, str(spec), str(directory / "record")],
            check=False,
            capture_output=True,
            text=True,
        )
        shutil.rmtree(directory)
        if done.returncode:
            raise SystemExit(f"phases failed:\n{done.stderr[-3000:]}")
        marks = json.loads(done.stdout.strip().splitlines()[-1])
        (started, _, start), (recorded, ran, _), (_, read, _), (closed, report, _) = (
            marks[name] for name in ("start", "recorded", "read", "report")
        )
        slope = "" if before is None else f"{(ran - before[1]) * 2**20 / (count - before[0]):,.0f}"
        before = (count, ran)
        print(
            f"{count:>9,} {start:>8.0f} {recorded - started:>7.1f} {ran:>8.0f} {slope:>7} "
            f"{read:>8.0f} {report:>10.0f} {closed - recorded:>8.1f}",
            flush=True,
        )


def measure(args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak resident MB of the process ``args``."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, *args],
        check=False,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "100", "NO_COLOR": "1"},
    )
    if done.returncode:
        raise SystemExit(f"{' '.join(args[:2])} failed:\n{done.stderr[-3000:]}")
    return time.perf_counter() - started, int(done.stdout.strip()) / 1024


def commands(way: str, spec: Path, record: Path) -> list[str]:
    if way == "cli":
        run = [str(BIN / "autobench"), "run", str(spec), "--record", str(record)]
        return [*run, "--no-progress", "--runs", "none"]
    return [sys.executable, "-c", _API, str(spec), str(record)]


def sizes(tmp: Path, runs: list[int], ways: list[str]) -> None:
    for way in ways:
        shown = commands(way, Path("SPEC"), Path("DIR"))
        if way == "api":
            shown[2] = "<run_benchmark_spec(spec, sink=RecordDirectoryWriter(DIR)); build_report>"
        print(f"\n{way}: {' '.join(shown)}", flush=True)
        print(f"{'runs':>9} {'wall s':>8} {'peak MB':>9} {'bytes/run (slope)':>18}", flush=True)
        points: list[tuple[int, float]] = []
        for count in runs:
            directory = tmp / f"{way}-{count}"
            directory.mkdir()
            spec = trivial_spec(directory, count // 2)
            record = directory / "record"
            wall, peak = measure(commands(way, spec, record))
            shutil.rmtree(directory)
            slope = ""
            if points:
                before_runs, before_peak = points[-1]
                slope = f"{(peak - before_peak) * 2**20 / (count - before_runs):,.0f}"
            points.append((count, peak))
            print(f"{count:>9,} {wall:>8.1f} {peak:>9.0f} {slope:>18}", flush=True)
        if len(points) >= 2:
            (small, low), (large, high) = points[-2], points[-1]
            per_run = (high - low) / (large - small)
            projected = high + per_run * (TARGET_RUNS - large)
            verdict = "within" if projected < BUDGET_MB else "over"
            print(
                f"  extrapolated from {small:,} and {large:,} runs to {TARGET_RUNS:,}: "
                f"{projected:,.0f} MB ({verdict} the {BUDGET_MB} MB budget)",
                flush=True,
            )


def retained(tmp: Path, count: int, top: int, *, lean: bool) -> None:
    """What the runtime keeps per run once ``run_benchmark_spec`` returned (``lean``: once
    a lean session's ``execute`` returned, as for ``autobench run``), by source line."""
    import tracemalloc

    from autobench.core.runtime import RunSession, run_benchmark_spec
    from autobench.core.spec import load_benchmark_spec
    from autobench.records import RecordDirectoryWriter

    spec_path = trivial_spec(tmp, count // 2)
    spec = load_benchmark_spec(spec_path)
    gc.collect()
    tracemalloc.start(8)
    before = tracemalloc.take_snapshot()
    if lean:
        session = RunSession.start(spec, record_dir=tmp / "record")
        result = asyncio.run(session.execute(lean=True))
    else:
        result = asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(tmp / "record")))
    gc.collect()
    after = tracemalloc.take_snapshot()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    runs = len(result.runs)
    stats = after.compare_to(before, "traceback")
    total = sum(stat.size_diff for stat in stats)
    by_line: dict[str, list[int]] = {}
    for stat in stats:
        where = _caller(stat.traceback)
        kept = by_line.setdefault(where, [0, 0])
        kept[0] += stat.size_diff
        kept[1] += stat.count_diff
    lines = sorted(by_line.items(), key=lambda item: -item[1][0])
    how = "a lean session (as autobench run)" if lean else "run_benchmark_spec"
    print(f"\n{runs:,} runs in process by {how}, under tracemalloc (frames: 8)")
    print(f"  kept once the experiment returned: {total / runs:,.0f} bytes per run")
    print(f"  traced peak during the experiment: {peak / runs:,.0f} bytes per run")
    print(
        f"  top {top} Autobench source lines by memory kept (innermost Autobench frame of "
        "each allocation; bytes per run, blocks per run):"
    )
    for where, (size, count) in lines[:top]:
        print(f"  {size / runs:>9,.0f} {count / runs:>6.1f}  {where}")
    del result


def _caller(traceback: Any) -> str:
    """The innermost frame of ``traceback`` in Autobench's source (else the innermost)."""
    frames = list(traceback)  # oldest first
    chosen = next((f for f in reversed(frames) if "/src/autobench/" in f.filename), frames[-1])
    return f"{_short(chosen.filename)}:{chosen.lineno}"


def _short(filename: str) -> str:
    for marker in ("/src/autobench/", "/site-packages/", "/lib/python"):
        if marker in filename:
            return filename.split(marker, 1)[1]
    return filename


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", default="10000,30000,100000", help="comma-separated sizes")
    parser.add_argument("--only", default="cli,api", help="cli, api, phases (comma-separated)")
    parser.add_argument("--tracemalloc", type=int, default=0, metavar="N", help="runs to trace")
    parser.add_argument("--top", type=int, default=25, help="source lines to list")
    parser.add_argument(
        "--lean", action="store_true", help="--tracemalloc: a lean session, as autobench run"
    )
    parser.add_argument("--read-back", type=Path, metavar="RECORD", help="an indexed record")
    parser.add_argument("--hold-cases", type=int, default=0, metavar="N", help="--read-back")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as name:
        tmp = Path(name)
        if options.read_back:
            read_back(tmp, options.read_back, options.hold_cases)
            return
        if options.tracemalloc:
            retained(tmp, options.tracemalloc, options.top, lean=options.lean)
            return
        runs = [int(part) for part in options.runs.split(",") if part]
        ways = [way for way in options.only.split(",") if way]
        if "phases" in ways:
            phases(tmp, runs)
        sizes(tmp, runs, [way for way in ways if way != "phases"])


if __name__ == "__main__":
    main()
