"""What giving each task call its own copy of the case costs: a large case input x many runs.

    uv run python tools/bench_case_copy.py                   # 1 MB input, 100 runs, 5 rounds
    uv run python tools/bench_case_copy.py --kib 64 --runs 1000

Builds a case input of about ``--kib`` KiB of JSON-like data (a list of small documents),
then, in this process and without recording:

* times one copy as the runtime makes it (``_case_copy.own_case``: one pickle round trip)
  against :func:`copy.deepcopy` of the same input (best of ``--rounds``);
* runs a real experiment of ``--runs`` runs of that case (``repeat``) whose sync task reads
  the input, with the copy and with it switched off (the task then gets the planned case),
  alternating, and prints the median wall time of each and the difference per run.

Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from autobench import load_benchmark_spec, run_benchmark_spec
from autobench.core.runtime import _run
from autobench.core.runtime._case_copy import own_case
from autobench.records import Case


def _input(kib: int) -> dict[str, object]:
    document = {"text": "lorem ipsum dolor sit amet " * 4, "tags": ["a", "b"], "score": 0.5}
    size = len(json.dumps(document)) + 40
    count = max(1, kib * 1024 // size)
    return {"docs": [{"id": index, **document, "meta": {"k": None}} for index in range(count)]}


def _best(call: object, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        call()  # type: ignore[operator]
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--kib", type=int, default=1024, help="size of the case input (KiB)")
    parser.add_argument("--runs", type=int, default=100, help="runs of the case")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of each measurement")
    args = parser.parse_args()
    data = _input(args.kib)
    case = Case(id="big", input=data)
    print(f"case input: {len(json.dumps(data)) / 1024:.0f} KiB of JSON")
    print(f"one copy (own_case):   {_best(lambda: own_case(case), args.rounds) * 1e3:8.2f} ms")
    print(f"one copy.deepcopy:     {_best(lambda: copy.deepcopy(data), args.rounds) * 1e3:8.2f} ms")

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "cases.yaml").write_text(json.dumps({"cases": [{"id": "big", "input": data}]}))
        (root / "big_task.py").write_text(
            "def run(ctx, case):\n    return {'n': len(case.input['docs'])}\n"
        )
        (root / "autobench.yaml").write_text(
            textwrap.dedent(
                f"""\
                benchmark:
                  case-copy:
                    cases: cases.yaml
                    run: {{python: big_task:run}}
                    variants: {{v: {{}}}}
                    repeat: {args.runs}
                """
            )
        )
        spec = load_benchmark_spec(root / "autobench.yaml")
        timings: dict[str, list[float]] = {"copy": [], "no copy": []}
        for _ in range(args.rounds):
            for label in timings:
                _run.own_case = own_case if label == "copy" else (lambda planned: planned)  # type: ignore[assignment]
                started = time.perf_counter()
                result = asyncio.run(run_benchmark_spec(spec))
                timings[label].append(time.perf_counter() - started)
                assert len(result.runs) == args.runs
        _run.own_case = own_case  # type: ignore[assignment]
    with_copy = statistics.median(timings["copy"])
    without = statistics.median(timings["no copy"])
    print(f"{args.runs} runs, copy:     {with_copy:8.3f} s (median of {args.rounds})")
    print(f"{args.runs} runs, no copy:  {without:8.3f} s")
    print(f"copy per run:          {(with_copy - without) / args.runs * 1e3:8.2f} ms")


if __name__ == "__main__":
    sys.exit(main())
