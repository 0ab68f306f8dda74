"""Figures for the terminal views of 10,000 runs: ``report`` and ``compare``, as a user runs them;
and for ``build_report`` itself, in process, at 1,000 to 100,000 runs.

    uv run python tools/bench_report.py                   # records 10,000 runs first
    uv run python tools/bench_report.py --record DIR      # an existing record directory
    uv run python tools/bench_report.py --build-report [--record DIR]

``--build-report``: ``build_report(result)`` on the replayed record (``evidence_only``)
and on the same experiment cut to its first 1,000 and 2,000 planned runs, and made 100,000
runs by repeating its runs ten times under new case ids (so ten times the cases, each
paired as before; built in memory, never written). The CPU time of the process (a busy
machine disturbs it less than the wall time), best of five calls (seven at 1,000 and 2,000
runs), and the best wall time; the collector as ``build_report`` leaves it; the replay is
not counted.
Budget (issues 35, 36, 38): under 0.3 s at 10,000 runs and 0.06 s at 2,000, growing
linearly.

Budget (issue 32): ``autobench report`` of 10,000 runs within 3.5 s and ``autobench compare``
within 3 s on the 2-core development machine, headline included. The experiment is
tools/bench_compare.py's (5,000 cases x 2 variants: an exact score, a quality score,
latency). Each command runs in its own process (start-up included), 100 columns wide with
``NO_COLOR``, output discarded; best of three wall times, and the CPU time (user + system)
of the fastest, which a busy machine disturbs less. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_compare import write_spec  # tools/bench_compare.py, beside this script

from autobench.records import ExperimentResult

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


def _resized(result: ExperimentResult, runs: int) -> ExperimentResult:
    """``result`` cut to its first ``runs`` planned runs, or its runs repeated under new
    case ids (``<case>~<k>``) until there are ``runs``."""
    plan, recorded = result.experiment.plan, result.runs
    if runs <= len(recorded):
        kept = {planned.id for planned in plan[:runs]}
        return dataclasses.replace(
            result,
            experiment=result.experiment.model_copy(update={"plan": plan[:runs]}),
            runs=tuple(run for run in recorded if run.run_id in kept),
        )
    copies = -(-runs // len(recorded))
    new_plan = [
        planned.model_copy(update={"id": f"{planned.id}~{k}", "case": f"{planned.case}~{k}"})
        for k in range(copies)
        for planned in plan
    ]
    new_runs = [
        run.model_copy(
            update={
                "run": run.run.model_copy(
                    update={"id": f"{run.run_id}~{k}", "case": f"{run.case_id}~{k}"}
                )
            }
        )
        for k in range(copies)
        for run in recorded
    ]
    return dataclasses.replace(
        result,
        experiment=result.experiment.model_copy(update={"plan": tuple(new_plan[:runs])}),
        runs=tuple(new_runs[:runs]),
    )


def measure_build_report(directory: Path) -> None:
    from autobench.records import replay_experiment
    from autobench.report import build_report

    result = replay_experiment(directory, evidence_only=True)
    build_report(_resized(result, 100))  # imports (scipy) outside the figures
    for runs in (1_000, 2_000, len(result.runs), 10 * len(result.runs)):
        sized = _resized(result, runs)
        walls, cpus = [], []
        for _ in range(7 if runs <= 2_000 else 5):
            started, cpu = time.perf_counter(), time.process_time()
            build_report(sized)
            cpus.append(time.process_time() - cpu)
            walls.append(time.perf_counter() - started)
        listed = ", ".join(f"{t * 1000:.0f}" for t in cpus)
        print(
            f"build_report, {len(sized.runs):,} runs: CPU {min(cpus) * 1000:.0f} ms "
            f"(best of {listed}; {min(cpus) / len(sized.runs) * 1e6:.1f} us per run), "
            f"wall {min(walls) * 1000:.0f} ms",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", type=Path, help="an existing record directory")
    parser.add_argument("--runs", type=int, default=10_000, help="runs to record (even)")
    parser.add_argument(
        "--build-report", action="store_true", help="build_report in process, 1,000-100,000 runs"
    )
    arguments = parser.parse_args()
    run = measure_build_report if arguments.build_report else measure
    if arguments.record is not None:
        run(arguments.record)
        return
    with tempfile.TemporaryDirectory() as name:
        run(record(Path(name), arguments.runs))


if __name__ == "__main__":
    main()
