"""Figures for ``compare`` with statistics: 10,000 paired runs.

    uv run python tools/bench_compare.py                # 10,000 runs: 5,000 cases x 2 variants
    uv run python tools/bench_compare.py --runs 2000

Budget (issue 18): ``compare`` with statistics on 10,000 paired runs in under 3 s. The
script records one experiment (``--runs`` runs: half the cases, two variants) with an
exact score (pass/fail: McNemar), a quality score and latency (continuous: Wilcoxon), then
prints, best of three:

* ``autobench compare DIR --baseline a --candidate b`` wall time, process start included;
* ``autobench compare DIR DIR`` (the two-directory form, the experiment against itself);
* in process: replaying the records, ``compare_variants`` alone (statistics included), and
  one metric's statistics alone on as many pairs (a ``mean`` row: Wilcoxon with the
  Hodges-Lehmann interval) and one ``p95`` row's (the paired bootstrap of the p95).

Figures, not assertions.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from bench import EXACT_SCORE, QUALITY_SCORE, ab_spec  # tools/bench.py, beside this script

BIN = Path(sys.executable).parent


TASK_MODULE = textwrap.dedent(
    """
    def run_case(ctx, case):
        n = case.input["n"]
        slower = 3 if ctx.factor("mode") == "b" else 0
        ctx.metric("latency", 50 + (n * 7919) % 100 + slower, semantic_type="time.latency",
                   unit="ms")
        wrong = n % 11 == 0 or (ctx.factor("mode") == "b" and n % 13 == 0)
        return {"value": -1 if wrong else n * 2, "quality": (n % 10) / 10}
    """
)


def write_spec(directory: Path, cases: int) -> Path:
    return ab_spec(directory, "compare-bench", TASK_MODULE, cases, (*EXACT_SCORE, *QUALITY_SCORE))


def autobench(*args: str) -> float:
    started = time.perf_counter()
    subprocess.run([str(BIN / "autobench"), *args], check=True, capture_output=True)
    return time.perf_counter() - started


def best(times: list[float]) -> str:
    return f"{min(times):.2f} s (of {', '.join(f'{t:.2f}' for t in times)})"


def measure(runs: int) -> None:
    from autobench.records import replay_experiment
    from autobench.report import compare_variants

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        spec = write_spec(tmp, runs // 2)
        record = tmp / "record"
        print(f"recording {runs:,} runs ({runs // 2:,} cases x 2 variants) ...", flush=True)
        autobench("run", str(spec), "--record", str(record), "--no-progress", "--runs", "none")
        one = [
            autobench("compare", str(record), "--baseline", "a", "--candidate", "b")
            for _ in range(3)
        ]
        two = [autobench("compare", str(record), str(record)) for _ in range(3)]
        replays, compares = [], []
        comparison = None
        for _ in range(3):
            started = time.perf_counter()
            result = replay_experiment(record, evidence_only=True)
            replays.append(time.perf_counter() - started)
            started = time.perf_counter()
            comparison = compare_variants(result, "a", "b")
            compares.append(time.perf_counter() - started)
        assert comparison is not None
        print(f"autobench compare DIR --baseline a --candidate b: {best(one)}")
        print(f"autobench compare DIR DIR (every variant, 2 x {runs:,} runs): {best(two)}")
        print(f"in process, replay_experiment(evidence_only=True): {best(replays)}")
        print(f"in process, compare_variants (statistics included): {best(compares)}")
        from autobench.report._statistics import paired_statistics

        rng = random.Random(7)
        pairs = comparison.metrics[0].statistics.n if comparison.metrics[0].statistics else 0
        before = [rng.gauss(100, 10) for _ in range(pairs)]
        after = [value + rng.gauss(1, 5) for value in before]
        alone = []
        for _ in range(3):
            started = time.perf_counter()
            paired_statistics(before, after, pass_fail=False, direction=None)
            alone.append(time.perf_counter() - started)
        print(
            f"  of which one mean row's statistics on {pairs:,} pairs (Wilcoxon + Hodges-Lehmann): "
            f"{best(alone)}"
        )
        p95 = []
        for _ in range(3):
            started = time.perf_counter()
            paired_statistics(before, after, pass_fail=False, direction=None, fn="p95")
            p95.append(time.perf_counter() - started)
        print(f"  and one p95 row's on {pairs:,} pairs (paired bootstrap): {best(p95)}")
        for metric in comparison.metrics:
            stats = metric.statistics
            if stats is None:
                continue
            holm = "-" if stats.p_adjusted is None else f"{stats.p_adjusted:.3g}"
            print(
                f"  {metric.name}: {stats.test}, n={stats.n}, mean delta {stats.mean_delta:+.4g}, "
                f"{stats.interval_of} [{stats.ci_low:+.4g}, {stats.ci_high:+.4g}], "
                f"p(Holm)={holm}, {stats.verdict.value}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000, help="runs to record (even)")
    measure(parser.parse_args().runs)


if __name__ == "__main__":
    main()
