"""What run totals add to ``autobench report``: 10,000 LLM runs with several calls each.

    uv run python tools/bench_accounting.py                      # 10,000 runs, 5 repeats
    uv run python tools/bench_accounting.py --runs 2000 --repeats 3
    uv run python tools/bench_accounting.py --baseline d9b75a9   # the commit to compare with

The benchmark: ``--runs / 2`` cases x 2 variants; each run makes ``--calls`` LLM calls, each
in its own span with its input and output tokens (``span.metric``), plus a latency metric,
and a ``token_cost`` deriver prices them. Three figures, each the wall time of
``autobench report DIR`` (process start included; min / median / max of ``--repeats``):

* *baseline*: the ``--baseline`` commit (checked out in a temporary git worktree and put
  first on ``PYTHONPATH``) reporting a directory it recorded itself: no run totals at all;
* *this tree*: the working tree reporting a directory it recorded: every run carries its
  accounting summaries, and the report reads them;
* *this tree, old records*: the working tree reporting the baseline's directory: replay
  computes the totals the old records lack (reading each run's trace for span parentage).

The ratio *this tree / baseline* is what the summaries add to a report. Figures, not test
assertions: these machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

TASK = textwrap.dedent(
    """
    from autobench import Semantic

    def run_case(ctx, case):
        for index in range(case.input["calls"]):
            with ctx.span(f"llm_{index}", kind="llm") as span:
                span.metric("input_tokens", 100 + index, semantic_type=Semantic.LLM_TOKENS_INPUT)
                span.metric("output_tokens", 20 + index, semantic_type=Semantic.LLM_TOKENS_OUTPUT)
        ctx.metric("latency", 0.01 * case.input["calls"], semantic_type=Semantic.TIME_LATENCY)
        return {"ok": True}
    """
)

PRICING = textwrap.dedent(
    """\
    pricing:
      provider: demo
      models:
        demo/mini:
          input: {unit: mtok, price: 1.0}
          output: {unit: mtok, price: 5.0}
    """
)


def write_benchmark(directory: Path, runs: int, calls: int) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "bench_llm_task.py").write_text(TASK)
    (directory / "pricing.yaml").write_text(PRICING)
    lines = ["benchmark:", "  llm-usage:", "    dataset:", "      cases:"]
    for index in range(runs // 2):
        lines.append(f"        - {{id: case-{index}, input: {{calls: {calls}}}}}")
    lines += [
        "    run:",
        "      python: bench_llm_task:run_case",
        "    variants:",
        "      a: {factors: {model: {value: demo/mini, semantic: llm.model.name}}}",
        "      b: {factors: {model: {value: demo/mini, semantic: llm.model.name}}}",
        "    derive:",
        "      - kind: token_cost",
        "        pricing: file://pricing.yaml",
        "    report:",
        "      leaderboard:",
        "        show:",
        "          input_tokens: {metric: llm.tokens.input, aggregate: sum}",
        "          output_tokens: {metric: llm.tokens.output, aggregate: sum}",
        "          cost: {metric: money.cost, aggregate: sum}",
    ]
    spec = directory / "autobench.yaml"
    spec.write_text("\n".join(lines) + "\n")
    return spec


def environment(source_tree: Path | None) -> dict[str, str]:
    """The environment that runs ``source_tree``'s Autobench (the installed one for ``None``)."""
    env = dict(os.environ)
    if source_tree is not None:
        sources = sorted(
            str(p)
            for pattern in ("packages/*/src", "tests/plugins/*/src")
            for p in source_tree.glob(pattern)
        )
        env["PYTHONPATH"] = os.pathsep.join([*sources, env.get("PYTHONPATH", "")])
    return env


def autobench(args: list[str], source_tree: Path | None) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [str(BIN / "autobench"), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(source_tree),
    )
    if done.returncode != 0:
        raise RuntimeError(f"autobench {' '.join(args)} failed:\n{done.stderr}")
    return time.perf_counter() - started


def record(spec: Path, directory: Path, source_tree: Path | None) -> None:
    autobench(
        ["run", str(spec), "--record", str(directory), "--no-progress", "--runs", "none"],
        source_tree,
    )


def report_times(directory: Path, source_tree: Path | None, repeats: int) -> list[float]:
    autobench(["report", str(directory)], source_tree)  # warm the page cache once
    return [autobench(["report", str(directory)], source_tree) for _ in range(repeats)]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=3, help="LLM calls per run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--baseline",
        default="d9b75a9",
        help="git revision without run totals to compare with (default: the last one)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="autobench-bench-accounting-") as name:
        tmp = Path(name)
        base_tree = tmp / "baseline-tree"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base_tree), args.baseline],
            check=True,
            capture_output=True,
        )
        try:
            spec = write_benchmark(tmp / "bench", args.runs, args.calls)
            old_records, new_records = tmp / "old-records", tmp / "new-records"
            record(spec, old_records, base_tree)
            record(spec, new_records, None)
            rows = [
                (f"baseline {args.baseline}", report_times(old_records, base_tree, args.repeats)),
                ("this tree", report_times(new_records, None, args.repeats)),
                ("this tree, old records", report_times(old_records, None, args.repeats)),
            ]
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base_tree)],
                check=False,
                capture_output=True,
            )
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"autobench report, {args.runs:,} runs of {args.calls} LLM calls, {args.repeats} repeats")
    print(f"{'':<28} {'min':>7} {'median':>7} {'max':>7}  ratio (median / baseline)")
    baseline = statistics.median(rows[0][1])
    for label, samples in rows:
        median = statistics.median(samples)
        print(
            f"{label:<28} {min(samples):>6.2f}s {median:>6.2f}s {max(samples):>6.2f}s  "
            f"{median / baseline:.3f}"
        )


if __name__ == "__main__":
    main()
