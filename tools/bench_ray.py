"""Budgets of the ``ray`` executor on a local Ray of 2 CPUs (docs/scale.md quotes the figures).

    uv run python tools/bench_ray.py                       # both parts
    uv run python tools/bench_ray.py --part overhead --runs 500
    uv run python tools/bench_ray.py --part throughput --runs 1000 --concurrency 16

``overhead``: the same experiment of ``--runs`` trivial runs (a sync task returning ``{}``),
recorded to a temporary directory at concurrency 1, once on the ``local`` executor and once
on ``ray``; the difference of wall time divided by the runs is the Ray executor's overhead
per run (submission, shipping the run and its record both ways, the driver's bookkeeping).
Budget: under 5 ms.

``throughput``: ``--runs`` runs of a task sleeping 50 ms at ``--concurrency`` on ``ray``,
recorded; the wall time of ``RunSession.execute`` against the ideal ``runs x 50 ms /
concurrency`` (3.125 s for 1,000 runs at 16). Budget: under 1.3 times the ideal.

The executor starts the local Ray itself (as ``autobench run --executor ray`` does; this
machine has 2 CPUs, so Ray gets 2), with the benchmark's directory as the job's
``working_dir``: every spec of this script lives in that one directory. Each part first
runs a warm-up experiment of trivial runs at the measured concurrency, which starts the
worker actors (one per slot; each process imports Autobench, about a CPU-second on this
2-core machine); a Ray this process started keeps them for the next experiment of the
same CPUs per run (``autobench.ray._pool``), so the figures are for running workers.
An ``autobench run`` pays for starting its workers once per command.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from autobench.core.runtime import RunSession
from autobench.core.spec import load_benchmark_spec

TASKS = """
import time

def trivial(ctx, case):
    return {}

def sleepy(ctx, case):
    time.sleep(0.05)
    return {}

"""


def _spec(directory: Path, task: str, runs: int) -> Path:
    """``<directory>/<task>-<runs>.yaml``: ``runs`` cases of ``task``, one variant."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "bench_ray_tasks.py").write_text(TASKS)
    cases = ", ".join(f"{{id: c{index}}}" for index in range(runs))
    path = directory / f"{task}-{runs}.yaml"
    path.write_text(
        f"benchmark:\n  bench-ray:\n    cases: [{cases}]\n"
        f"    run: {{python: bench_ray_tasks:{task}}}\n    variants: {{v: {{}}}}\n"
    )
    return path


def _timed(spec_path: Path, record: Path, executor: str, concurrency: int) -> float:
    spec = load_benchmark_spec(spec_path)
    session = RunSession.start(spec, record_dir=record, executor=executor)
    started = time.perf_counter()
    result = asyncio.run(session.execute(concurrency_limit=concurrency))
    elapsed = time.perf_counter() - started
    assert len(result.runs) == len(session.runs), "runs missing"
    return elapsed


def overhead(root: Path, runs: int) -> None:
    spec = _spec(root / "specs", "trivial", runs)
    warm = _spec(root / "specs", "trivial", 20)
    cold = _timed(warm, root / "warm-record", "ray", 1)
    local = _timed(spec, root / "local", "local", 1)
    remote = _timed(spec, root / "ray", "ray", 1)
    per_run = (remote - local) / runs * 1000
    print(f"overhead: {runs} trivial runs at concurrency 1")
    print(f"  cold warm-up (20 runs on ray): {cold:.2f} s")
    print(f"  local: {local:.3f} s ({local / runs * 1000:.2f} ms/run)")
    print(f"  ray:   {remote:.3f} s ({remote / runs * 1000:.2f} ms/run)")
    print(f"  ray executor overhead per run: {per_run:.2f} ms (budget 5 ms)")


def throughput(root: Path, runs: int, concurrency: int) -> None:
    spec = _spec(root / "specs", "sleepy", runs)
    warm = _spec(root / "specs", "trivial", concurrency * 2)
    cold = _timed(warm, root / "sleepy-warm-record", "ray", concurrency)
    elapsed = _timed(spec, root / "sleepy-record", "ray", concurrency)
    ideal = runs * 0.05 / concurrency
    print(f"throughput: {runs} runs of 50 ms at concurrency {concurrency} on ray")
    print(f"  warm-up ({concurrency * 2} trivial runs, starting the workers): {cold:.2f} s")
    print(f"  wall: {elapsed:.3f} s, ideal {ideal:.3f} s, ratio {elapsed / ideal:.3f} (budget 1.3)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("overhead", "throughput", "both"), default="both")
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-ray-") as scratch:
        root = Path(scratch)
        if args.part in ("overhead", "both"):
            overhead(root, args.runs or 500)
        if args.part in ("throughput", "both"):
            throughput(root, args.runs or 1000, args.concurrency)


if __name__ == "__main__":
    main()
