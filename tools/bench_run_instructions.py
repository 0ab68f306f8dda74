"""Instructions (callgrind) per trivial run and per evidence operation: counts that do not
depend on how busy the machine is, to tell whether a cost grows with what a run holds.

    uv run python tools/bench_run_instructions.py                # both parts
    uv run python tools/bench_run_instructions.py --part matrix  # per trivial run only
    uv run python tools/bench_run_instructions.py --part growth --sizes 1000,10000,100000

``matrix``: ``run_benchmark_spec`` (in process, no record) of the 1,000 trivial runs of
``tools/bench.py``, once and three times in a process; the difference over two experiments and
1,000 runs is the instructions of one run, framework and task. It is given with the cyclic
garbage collector on, and off (the difference is the collector's share).

``growth``: one run whose task does N times ``ctx.metric``, an empty ``ctx.span`` or
``span.metric``; the instructions between two sizes divided by the difference of N are the
marginal instructions of one operation, end-of-run work included (building its observation or
span). Equal figures between each pair of sizes: nothing grows with what the run holds.

Needs ``valgrind`` (Debian: ``apt-get install valgrind``); a count takes a few seconds to a
minute (the interpreter runs about 50 times slower under callgrind).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

MATRIX_SCRIPT = textwrap.dedent(
    """
    import asyncio, gc, sys
    sys.path.insert(0, sys.argv[3])
    from pathlib import Path
    from bench import trivial_spec
    from autobench import load_benchmark_spec, run_benchmark_spec
    spec = load_benchmark_spec(trivial_spec(Path(sys.argv[1]), 500))
    if sys.argv[4] == "off":
        gc.disable()
    for _ in range(int(sys.argv[2])):
        asyncio.run(run_benchmark_spec(spec))
    """
)

GROWTH_TASK = textwrap.dedent(
    """
    def run_case(ctx, case):
        op, n = case.input["op"], case.input["n"]
        if op == "metric":
            for i in range(n):
                ctx.metric("m", i)
        elif op == "span":
            for _ in range(n):
                with ctx.span("op"):
                    pass
        else:
            with ctx.span("holder") as span:
                for i in range(n):
                    span.metric("m", i)
        return {}
    """
)

GROWTH_SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from autobench import load_benchmark_spec, run_benchmark_spec
    directory, op, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    spec = directory / f"{op}_{n}.yaml"
    spec.write_text(
        "benchmark:\\n  growth:\\n    dataset:\\n      cases:\\n"
        f"        - id: c\\n          input: {{op: {op}, n: {n}}}\\n"
        "    variants:\\n      - id: v\\n    run:\\n      python: growth_task:run_case\\n"
    )
    asyncio.run(run_benchmark_spec(load_benchmark_spec(spec)))
    """
)


def _instructions(*command: str) -> int:
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def _matrix(directory: Path) -> None:
    script = directory / "matrix.py"
    script.write_text(MATRIX_SCRIPT)
    tools = str(Path(__file__).resolve().parent)
    print("instructions per trivial run (run_benchmark_spec, 1,000 runs, no record):")
    for collector in ("on", "off"):
        counts = [
            _instructions(sys.executable, str(script), str(directory), str(k), tools, collector)
            for k in (1, 3)
        ]
        per_run = (counts[1] - counts[0]) / 2 / 1000
        print(f"    garbage collector {collector:<3}  {per_run / 1e3:8.1f} thousand")


def _growth(directory: Path, sizes: list[int]) -> None:
    (directory / "growth_task.py").write_text(GROWTH_TASK)
    script = directory / "growth.py"
    script.write_text(GROWTH_SCRIPT)
    print("marginal instructions per operation between sizes (thousand):")
    for op in ("metric", "span", "span_metric"):
        counts = [
            _instructions(sys.executable, str(script), str(directory), op, str(n)) for n in sizes
        ]
        steps = [
            f"N {low:,} -> {high:,}: {(b - a) / (high - low) / 1e3:6.1f}"
            for (low, a), (high, b) in zip(
                zip(sizes, counts, strict=True),
                zip(sizes[1:], counts[1:], strict=True),
                strict=False,
            )
        ]
        print(f"    {op:<12} " + "   ".join(steps))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--part", choices=("matrix", "growth", "both"), default="both")
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated N")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="autobench-instructions-") as tmp:
        directory = Path(tmp)
        if options.part in ("matrix", "both"):
            _matrix(directory)
        if options.part in ("growth", "both"):
            _growth(directory, [int(size) for size in options.sizes.split(",")])


if __name__ == "__main__":
    main()
