"""Performance harness: measures Autobench against its budgets and prints figures and ratios.

    uv run python tools/bench.py            # all measurements
    uv run python tools/bench.py --quick    # fewer repetitions

Budgets (from the project's issues): ``import autobench`` under 150 ms;
``autobench --help`` under 400 ms; ``autobench run --record`` of 1,000 trivial
runs under 3 s wall including process start; under 150 us of framework time
per trivial run in process without recording (concurrency must not make it
slower); a trivial run's run.yaml under 3.5 KB; ``report`` and ``export --format
csv`` of a 10,000-run record directory each under 5 s and 500 MB peak memory. Timings are medians of
repeated measurements on this machine; they are figures, not test assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

TASK_MODULE = textwrap.dedent(
    """
    def run_case(ctx, case):
        with ctx.span("work", kind="tool"):
            value = case.input["n"] * 2
        ctx.metric("size", case.input["n"], semantic_type="workload.size")
        return {"value": value, "ok": True}
    """
)


EXACT_SCORE = (
    "      correct:",
    "        exact: {actual: output.value, expected: case.expected.value}",
    "        semantic: quality.correctness",
)
"""The score block of the benches' specs: the output's ``value`` against the expected one."""

QUALITY_SCORE = (
    "      quality:",
    "        value: output.quality",
    "        semantic: quality.score",
)
"""A score block reading the output's ``quality`` (0 to 1) as a quality score."""


def ab_spec(
    directory: Path, name: str, task_source: str, cases: int, scores: tuple[str, ...]
) -> Path:
    """Write benchmark ``name`` to ``directory/autobench.yaml``: ``cases`` cases (input ``n``,
    expected value ``2n``) x variants ``a`` and ``b`` (factor ``mode``), the task
    ``run_case`` of a module ``<name>_task.py`` holding ``task_source``, and the ``scores``
    lines under ``score:``."""
    module = name.replace("-", "_") + "_task"
    (directory / f"{module}.py").write_text(task_source)
    lines = ["benchmark:", f"  {name}:", "    dataset:", "      cases:"]
    for index in range(cases):
        lines += [
            f"        - id: case-{index}",
            f"          input: {{n: {index}}}",
            f"          expected: {{value: {index * 2}}}",
        ]
    lines += [
        "    run:",
        f"      python: {module}:run_case",
        "    variants:",
        "      a: {factors: {mode: a}}",
        "      b: {factors: {mode: b}}",
        "    score:",
        *scores,
    ]
    spec = directory / "autobench.yaml"
    spec.write_text("\n".join(lines) + "\n")
    return spec


def trivial_spec(directory: Path, cases: int) -> Path:
    """Write a trivial benchmark (``cases`` x 2 variants, one span, one metric, exact + pass)."""
    ok = ("      ok:", "        pass: output.ok", "        semantic: result.success")
    return ab_spec(directory, "trivial", TASK_MODULE, cases, (*EXACT_SCORE, *ok))


def _median_wall(command: list[str], repeats: int, cwd: Path | None = None) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, cwd=cwd)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def measure_import(repeats: int) -> float:
    code = "import time; t = time.perf_counter(); import autobench; print(time.perf_counter() - t)"
    samples = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], check=True, capture_output=True, text=True
            ).stdout
        )
        for _ in range(repeats)
    ]
    return statistics.median(samples)


def measure_help(repeats: int) -> float:
    return _median_wall([str(BIN / "autobench"), "--help"], repeats)


def measure_record(tmp: Path, repeats: int) -> tuple[float, int]:
    spec = trivial_spec(tmp, 500)
    samples = []
    size = 0
    for attempt in range(repeats):
        record = tmp / f"record-{attempt}"
        started = time.perf_counter()
        subprocess.run(
            [str(BIN / "autobench"), "run", str(spec), "--record", str(record), "--no-progress"],
            check=True,
            capture_output=True,
        )
        samples.append(time.perf_counter() - started)
        runs = sorted(record.glob("cases/*/*/run.yaml"))
        size = max(path.stat().st_size for path in runs)
        shutil.rmtree(record)
    return statistics.median(samples), size


def measure_report(tmp: Path, runs: int) -> list[tuple[str, float, float, str]]:
    """``report`` and ``export --format csv`` on a recorded directory of ``runs`` runs:
    wall time (process start included) and peak resident memory of the process."""
    (tmp / "big").mkdir()
    spec = trivial_spec(tmp / "big", runs // 2)
    record = tmp / "big" / "record"
    subprocess.run(
        [
            str(BIN / "autobench"),
            "run",
            str(spec),
            "--record",
            str(record),
            "--no-progress",
            "--runs",
            "none",
        ],
        check=True,
        capture_output=True,
    )
    rows: list[tuple[str, float, float, str]] = []
    commands = {
        "report": ["report", str(record)],
        "export --format csv": [
            "export",
            str(record),
            "--format",
            "csv",
            "--path",
            str(tmp / "big.csv"),
        ],
    }
    for label, args in commands.items():
        started = time.perf_counter()
        child = subprocess.Popen(
            [str(BIN / "autobench"), *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - started
        if status != 0:
            raise RuntimeError(f"autobench {label} failed with status {status}")
        rows.append((f"{label}, {runs:,} runs", elapsed, 5.0, "s"))
        rows.append((f"{label}, {runs:,} runs, peak memory", usage.ru_maxrss / 1024, 500, "MB"))
    return rows


def measure_in_process(tmp: Path, concurrency: int, repeats: int) -> float:
    sys.path.insert(0, str(tmp))
    from autobench import load_benchmark_spec, run_benchmark_spec

    spec = load_benchmark_spec(trivial_spec(tmp, 500))
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        result = asyncio.run(run_benchmark_spec(spec, concurrency_limit=concurrency))
        samples.append((time.perf_counter() - started) / len(result.runs))
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument(
        "--report-runs",
        type=int,
        default=10_000,
        help="runs in the recorded experiment that report and export are measured on (0: skip)",
    )
    args = parser.parse_args()
    repeats = 3 if args.quick else 7
    rows: list[tuple[str, float, float, str]] = []
    with tempfile.TemporaryDirectory(prefix="autobench-bench-") as name:
        tmp = Path(name)
        rows.append(("import autobench", measure_import(repeats) * 1e3, 150, "ms"))
        rows.append(("autobench --help", measure_help(repeats) * 1e3, 400, "ms"))
        wall, size = measure_record(tmp, max(1, repeats // 2))
        rows.append(("run --record, 1,000 trivial runs", wall, 3.0, "s"))
        rows.append(("largest trivial run.yaml", size / 1024, 3.5, "KiB"))
        if args.report_runs:
            rows.extend(measure_report(tmp, args.report_runs))
        for concurrency in (1, 8):
            per_run = measure_in_process(tmp, concurrency, repeats) * 1e6
            rows.append((f"framework time per run, concurrency {concurrency}", per_run, 150, "us"))
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"{'measurement':<46} {'figure':>10} {'budget':>8}  ratio")
    for label, value, budget, unit in rows:
        print(f"{label:<46} {value:>8.2f}{unit:>2} {budget:>6g}{unit:>2}  {value / budget:.2f}")


if __name__ == "__main__":
    main()
