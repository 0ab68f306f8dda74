"""The evidence hot path as a task sees it: microseconds per span, metric and instrumented call.

    uv run python tools/bench_hot_path.py                      # both modes, N = 1k, 10k, 100k
    uv run python tools/bench_hot_path.py --mode api --sizes 1000,10000 --repeat 3
    uv run python tools/bench_hot_path.py --only empty_span,metric
    uv run python tools/bench_hot_path.py --memory             # the 100,000-span run's memory
    uv run python tools/bench_hot_path.py --matrix --baseline ../other-checkout

Each operation runs N times in a tight loop inside one real benchmark run; the task times
the loop with ``time.perf_counter_ns`` and subtracts the same loop doing the plain work
(nothing, or the uninstrumented call), so a figure is what the operation adds, in
microseconds, as the user's code sees it. Operations:

``empty_span``        ``with ctx.span("op"): pass``
``span_io``           ``ctx.span("op", input=..., attributes={1 key})`` + ``span.set_output(...)``
``metric``            ``ctx.metric("m", i)``
``metrics5``          ``ctx.metrics({5 names: i})`` (per call, not per value)
``span_metric``       ``span.metric("m", i)`` on one open span
``call``              a method instrumented with ``instrument_method``, no metric (extra over
                      the plain call)
``call_value_path``   the same with one ``InstrumentMetricSpec(value_path="result.n")``
``generator100``      an instrumented generator method of 100 items, consumed (per call)

Modes: ``cli`` runs ``autobench run SPEC --record DIR`` in a subprocess (one process for all
runs, the record written as usual) and reads each run's figure from its ``run.yaml``;
``api`` calls ``run_benchmark_spec`` in this process without recording. Every operation and
size runs ``--repeat`` times (separate runs, interleaved); the script prints min / median /
max microseconds per operation and the ratio of the largest size's median to the smallest's
(flat in N means a ratio near 1). ``--memory`` runs one 100,000-span run in a fresh process
with recording and prints its peak resident memory over a 1-span run's, then replays and
reports the record. ``--matrix`` times ``autobench run --record`` of the 1,000 trivial runs
of ``tools/bench.py`` (process start included) and the framework time per unrecorded run
in process, for this checkout and, with ``--baseline DIR``, for another checkout with its
own ``.venv`` (``git worktree add DIR <commit> && cd DIR && uv sync --all-packages``),
alternating the two, and prints the ratio. Targets (issue: the evidence hot path): empty span <= 3 us, ``metric``
<= 2 us, ``call_value_path`` <= 10 us extra, every ratio <= 1.25, extra memory < 60 MB,
the matrix 1.5 times faster than the baseline, at most 60 us of framework time per run.
Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

OPERATIONS = (
    "empty_span",
    "span_io",
    "metric",
    "metrics5",
    "span_metric",
    "call",
    "call_value_path",
    "generator100",
)
TARGETS_US = {"empty_span": 3.0, "metric": 2.0, "call_value_path": 10.0}

TASK = textwrap.dedent(
    '''
    """Hot-path workloads: the loop's cost minus the plain loop's, in ns per operation."""
    import time

    from autobench.abp import InstrumentMetricSpec, instrument_method


    class Service:
        def call(self, x):
            return {"n": x}

        def items(self, count):
            for i in range(count):
                yield i


    def _plain(op, n):
        service = Service()
        started = time.perf_counter_ns()
        if op in ("call", "call_value_path"):
            for i in range(n):
                service.call(i)
        elif op == "generator100":
            for _ in range(n):
                for _ in service.items(100):
                    pass
        else:
            for i in range(n):
                pass
        return time.perf_counter_ns() - started


    def _measured(ctx, op, n):
        service = Service()
        if op == "empty_span":
            started = time.perf_counter_ns()
            for _ in range(n):
                with ctx.span("op"):
                    pass
        elif op == "span_io":
            started = time.perf_counter_ns()
            for i in range(n):
                with ctx.span("op", input={"q": i}, attributes={"k": "v"}) as span:
                    span.set_output({"a": i})
        elif op == "metric":
            started = time.perf_counter_ns()
            for i in range(n):
                ctx.metric("m", i)
        elif op == "metrics5":
            started = time.perf_counter_ns()
            for i in range(n):
                ctx.metrics({"a": i, "b": i, "c": i, "d": i, "e": i})
        elif op == "span_metric":
            with ctx.span("holder") as span:
                started = time.perf_counter_ns()
                for i in range(n):
                    span.metric("m", i)
        elif op in ("call", "call_value_path"):
            specs = [InstrumentMetricSpec("n", "bench.n", value_path="result.n")]
            with instrument_method(Service, "call", metrics=specs if op == "call_value_path" else ()):
                started = time.perf_counter_ns()
                for i in range(n):
                    service.call(i)
                elapsed = time.perf_counter_ns() - started
            return elapsed
        elif op == "generator100":
            with instrument_method(Service, "items"):
                started = time.perf_counter_ns()
                for _ in range(n):
                    for _ in service.items(100):
                        pass
                elapsed = time.perf_counter_ns() - started
            return elapsed
        else:
            raise ValueError(op)
        return time.perf_counter_ns() - started


    def run(ctx, case):
        op, n = case.input["op"], case.input["n"]
        plain = min(_plain(op, n) for _ in range(3))
        measured = _measured(ctx, op, n)
        return {"ns_per_op": (measured - plain) / n}
    '''
)


def _spec(directory: Path, operations: list[str], sizes: list[int], repeat: int) -> Path:
    cases = [
        {"id": f"{op}_{n}_r{r}", "input": {"op": op, "n": n}}
        for r in range(repeat)
        for n in sizes
        for op in operations
    ]
    (directory / "hot_task.py").write_text(TASK)
    spec = directory / "autobench.yaml"
    spec.write_text(
        "benchmark:\n  hot-path:\n"
        f"    cases: {json.dumps(cases)}\n"
        "    run: {python: 'hot_task:run'}\n"
        "    variants: {only: {}}\n"
    )
    return spec


def _cli_figures(spec: Path, record: Path) -> dict[str, float]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "autobench.cli",
            "run",
            str(spec),
            "--record",
            str(record),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"autobench run failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    from autobench.records import replay_experiment

    result = replay_experiment(record)
    return {run.case.id: run.output["ns_per_op"] for run in result.runs if run.output}


def _api_figures(spec_path: Path) -> dict[str, float]:
    from autobench.core.runtime import run_benchmark_spec
    from autobench.core.spec import load_benchmark_spec

    spec = load_benchmark_spec(spec_path)
    result = asyncio.run(run_benchmark_spec(spec))
    return {run.case.id: run.output["ns_per_op"] for run in result.runs if run.output}


def _table(figures: dict[str, float], operations: list[str], sizes: list[int], repeat: int) -> None:
    print(f"    {'operation':<16} {'N':>8} {'min':>8} {'median':>8} {'max':>8}   us/op")
    for op in operations:
        medians = {}
        for n in sizes:
            values = [
                figures[f"{op}_{n}_r{r}"] / 1e3
                for r in range(repeat)
                if f"{op}_{n}_r{r}" in figures
            ]
            if not values:
                print(f"    {op:<16} {n:>8,}   (no figure: the run failed)")
                continue
            medians[n] = statistics.median(values)
            print(f"    {op:<16} {n:>8,} {min(values):8.2f} {medians[n]:8.2f} {max(values):8.2f}")
        if len(medians) > 1:
            low, high = min(medians), max(medians)
            ratio = medians[high] / medians[low] if medians[low] > 0 else float("nan")
            target = TARGETS_US.get(op)
            goal = f"; target {target:g} us" if target is not None else ""
            print(f"    {'':<16} ratio N={high:,} / N={low:,}: {ratio:.2f} (target <= 1.25){goal}")


MEMORY_SCRIPT = textwrap.dedent(
    """
    import asyncio, resource, sys
    from pathlib import Path
    from autobench.core.runtime import run_benchmark_spec
    from autobench.core.spec import load_benchmark_spec
    from autobench.records import RecordDirectoryWriter
    spec = load_benchmark_spec(Path(sys.argv[1]))
    asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(Path(sys.argv[2]))))
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    """
)


def _memory(directory: Path, spans: int) -> None:
    script = directory / "memory.py"
    script.write_text(MEMORY_SCRIPT)
    peaks = {}
    for n in (1, spans):
        folder = directory / f"m{n}"
        folder.mkdir()
        spec = _spec(folder, ["empty_span"], [n], 1)
        record = directory / f"rec{n}"
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, str(script), str(spec), str(record)],
            capture_output=True,
            text=True,
            check=True,
        )
        peaks[n] = int(done.stdout.split()[-1]) / 1024  # KiB -> MiB
        print(
            f"    {n:>7,} spans: peak RSS {peaks[n]:7.1f} MiB, run + record {time.perf_counter() - started:6.2f} s"
        )
    print(
        f"    extra peak memory of the {spans:,}-span run: {peaks[spans] - peaks[1]:.1f} MiB (target < 60)"
    )
    record = directory / f"rec{spans}"
    files = sorted(record.rglob("*.yaml"), key=lambda path: path.stat().st_size)
    largest = files[-1]
    print(
        f"    its largest record file: {largest.relative_to(record)}, "
        f"{largest.stat().st_size / 1e6:.1f} MB"
    )
    for command in (["replay", str(record)], ["report", str(record)]):
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "autobench.cli", *command], capture_output=True, text=True
        )
        print(
            f"    autobench {command[0]}: exit {done.returncode} in "
            f"{time.perf_counter() - started:.2f} s"
        )
    from autobench.records import replay_experiment

    spans_back = len(replay_experiment(record).runs[0].trace.spans)  # type: ignore[union-attr]
    print(f"    spans replayed: {spans_back:,} (the task span, the root and {spans:,} more)")


FRAMEWORK_SCRIPT = textwrap.dedent(
    """
    import asyncio, statistics, sys, time
    from pathlib import Path
    from autobench import load_benchmark_spec, run_benchmark_spec
    spec = load_benchmark_spec(Path(sys.argv[1]))
    asyncio.run(run_benchmark_spec(spec))  # warm up
    times = []
    for _ in range(5):
        started = time.perf_counter()
        result = asyncio.run(run_benchmark_spec(spec))
        times.append((time.perf_counter() - started) / len(result.runs) * 1e6)
    print(min(times), statistics.median(times))
    """
)


def _matrix(directory: Path, baseline: Path | None, repeat: int) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench import trivial_spec

    spec = trivial_spec(directory, 500)
    script = directory / "framework.py"
    script.write_text(FRAMEWORK_SCRIPT)
    here = Path(sys.executable).parent
    checkouts = [("this checkout", here)]
    if baseline is not None:
        checkouts.append(("baseline", baseline.resolve() / ".venv" / "bin"))
    walls: dict[str, list[float]] = {name: [] for name, _ in checkouts}
    for index in range(repeat):
        for name, bin_dir in checkouts:
            record = directory / f"rec_{name.replace(' ', '_')}_{index}"
            started = time.perf_counter()
            subprocess.run(
                [
                    str(bin_dir / "autobench"),
                    "run",
                    str(spec),
                    "--record",
                    str(record),
                    "--no-progress",
                ],
                check=True,
                capture_output=True,
                cwd=directory,
            )
            walls[name].append(time.perf_counter() - started)
    print(
        f"autobench run --record, 1,000 trivial runs, {repeat} runs each (s, process start included):"
    )
    for name, values in walls.items():
        print(f"    {name:<14} min {min(values):6.2f}  median {statistics.median(values):6.2f}")
    if baseline is not None:
        ratio = statistics.median(walls["baseline"]) / statistics.median(walls["this checkout"])
        print(f"    speed-up over the baseline (median / median): {ratio:.2f}x (target >= 1.5)")
    print("framework time per unrecorded run, in process (us; min and median of 5):")
    for name, bin_dir in checkouts:
        done = subprocess.run(
            [str(bin_dir / "python"), str(script), str(spec)],
            check=True,
            capture_output=True,
            text=True,
            cwd=directory,
        )
        low, middle = (float(part) for part in done.stdout.split())
        print(f"    {name:<14} min {low:7.1f}  median {middle:7.1f} (target <= 60)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mode", choices=("cli", "api", "both"), default="both")
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated N")
    parser.add_argument("--repeat", type=int, default=3, help="runs per operation and size")
    parser.add_argument("--only", help="comma-separated operations (default: all)")
    parser.add_argument("--memory", action="store_true", help="measure the 100,000-span run")
    parser.add_argument("--matrix", action="store_true", help="time 1,000 trivial runs")
    parser.add_argument("--baseline", type=Path, help="with --matrix: another checkout")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    operations = args.only.split(",") if args.only else list(OPERATIONS)
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        if args.matrix:
            _matrix(directory, args.baseline, args.repeat)
            return
        if args.memory:
            print("Memory of one run of 100,000 empty spans, recorded (fresh process each):")
            _memory(directory, 100_000)
            return
        spec = _spec(directory, operations, sizes, args.repeat)
        sys.path.insert(0, str(directory))
        if args.mode in ("cli", "both"):
            print(f"autobench run --record (subprocess), {args.repeat} runs per figure:")
            _table(_cli_figures(spec, directory / "record"), operations, sizes, args.repeat)
        if args.mode in ("api", "both"):
            print(f"run_benchmark_spec (in process, no record), {args.repeat} runs per figure:")
            _table(_api_figures(spec), operations, sizes, args.repeat)


if __name__ == "__main__":
    main()
