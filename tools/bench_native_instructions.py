"""Native instrumentation cost in CPU instructions: repeatable on a noisy machine.

    uv run python tools/bench_native_instructions.py            # 200 calls per measurement
    uv run python tools/bench_native_instructions.py --calls 100
    uv run python tools/bench_native_instructions.py --only agent --agent-runs 20
    uv run python tools/bench_native_instructions.py --only agent --setups capability,all

Wall-clock medians of one call on this shared 2-core machine swing by more than the budgets
themselves (an OpenAI chat completion over MockTransport takes 0.7 to 1.3 ms). Instructions
do not: ``valgrind --tool=callgrind`` counts the instructions a process executes, the same
for the same work whatever else the machine does. Each workload runs in a fresh process
under callgrind twice, with 0 and with ``--calls`` calls inside one ABP trace; the
difference divided by the calls is the instructions of one call, and the instrumented
minus the plain figure is what instrumentation adds. The time figures convert that with
the plain call's own rate (its wall time over its instructions, measured in one process
without valgrind: the minimum and the median of 9 batches), so they read as "extra
microseconds at the speed this machine ran the call". Workloads: an HTTPX request (``httpx2.Client`` over ``MockTransport``) plain and with
the HTTPX instrumentor; an OpenAI chat completion plain, with the OpenAI instrumentor, and
with both; a Pydantic AI agent run (two model requests, one tool call, the agent of
``tools/bench_pydantic_ai.py``) plain, with the Pydantic AI instrumentor, and with all
four native instrumentors; ``capability`` is the plain agent run given one empty run-level
capability, Pydantic AI's own cost of the seam the Pydantic AI instrumentor uses. Budgets: HTTPX 25 us, OpenAI with both 60 us (issue: native
instrumentation I), the agent run with all four 400 us (native instrumentation II).
Figures, never test assertions.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

WORKLOAD = textwrap.dedent(
    """
    import json, sys
    import httpx2, openai
    from autobench.abp import InstrumentationManager, TraceCollector, bind_collector, start_span

    kind, setup, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
    COMPLETION = json.dumps({
        "id": "c", "object": "chat.completion", "created": 0, "model": "m-1",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
    }).encode()

    def handler(request):
        return httpx2.Response(200, content=COMPLETION, headers={"content-type": "application/json"})

    http = httpx2.Client(transport=httpx2.MockTransport(handler))
    client = openai.OpenAI(api_key="k", http_client=http)
    manager = InstrumentationManager()
    chosen = set(setup.split("+"))
    if "all" in chosen:
        chosen = {"pydantic_ai", "openai", "httpx", "openai_agents"}
    for name in sorted(chosen - {"plain", "time", "capability"}):
        module = __import__(f"autobench.instrument.{name}", fromlist=["create"])
        manager.install(module.create(None))
    if kind == "agent":  # the agent of tools/bench_pydantic_ai.py
        import asyncio
        sys.path.insert(0, sys.argv[4])
        from bench_pydantic_ai import _agent
        loop = asyncio.new_event_loop()
        agent = _agent()
        extra = {}
        if "capability" in chosen:  # Pydantic AI's own cost of one empty run-level capability
            from pydantic_ai.capabilities import AbstractCapability
            class Empty(AbstractCapability):
                pass
            extra = {"capabilities": [Empty()]}

    def once():
        if kind == "httpx":
            http.post("https://api.example.com/v1/items", json={"q": 1})
        elif kind == "agent":
            loop.run_until_complete(agent.run("I need a lamp", **extra))
        else:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])

    collector = TraceCollector()
    with bind_collector(collector), start_span("root"):
        for _ in range(20):  # warm up: imports, caches and first-call work are not counted
            once()
        if setup == "time":  # no valgrind: wall microseconds of one plain call, 9 batches
            import time
            batches = []
            for _ in range(9):
                started = time.perf_counter()
                for _ in range(calls):
                    once()
                batches.append((time.perf_counter() - started) / calls * 1e6)
            print(min(batches), sorted(batches)[4])
        else:
            for _ in range(calls):
                once()
    """
)

CONFIGS = (
    ("HTTPX request", "httpx", ("plain", "httpx"), 25.0),
    ("OpenAI chat completion", "openai", ("plain", "openai", "openai+httpx"), 60.0),
    (
        "Pydantic AI agent run (2 requests, 1 tool call)",
        "agent",
        ("plain", "capability", "pydantic_ai", "all"),
        400.0,
    ),
)
TOOLS = str(Path(__file__).resolve().parent)


def instructions(script: Path, kind: str, setup: str, calls: int) -> int:
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}/cg.out",
                sys.executable,
                str(script),
                kind,
                setup,
                str(calls),
                TOOLS,
            ],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-2000:])
        found = re.search(r"Collected : (\d+)", done.stderr)
        if found is None:
            raise RuntimeError(f"no instruction count in callgrind's output:\n{done.stderr[-500:]}")
        return int(found.group(1))


def wall_us(script: Path, kind: str, calls: int) -> tuple[float, float]:
    """``(min, median)`` wall microseconds of one plain call over 9 batches of ``calls``
    calls in one process without valgrind. The minimum is the machine's speed when nothing
    else interferes (the reading the ``timeit`` documentation recommends); the median shows
    what the shared machine gave this sitting."""
    done = subprocess.run(
        [sys.executable, str(script), kind, "time", str(calls), TOOLS],
        check=True,
        capture_output=True,
        text=True,
    )
    low, middle = (float(part) for part in done.stdout.split())
    return low, middle


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument(
        "--only",
        choices=("httpx", "openai", "agent"),
        help="measure one workload (default: all three)",
    )
    parser.add_argument(
        "--agent-runs", type=int, default=20, help="agent runs per measurement (default 20)"
    )
    parser.add_argument(
        "--setups",
        help="comma-separated setups to measure (default: each workload's; plain is always kept)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        script = Path(name) / "workload.py"
        script.write_text(WORKLOAD)
        for title, kind, setups, budget in CONFIGS:
            if args.only is not None and kind != args.only:
                continue
            calls = args.agent_runs if kind == "agent" else args.calls
            if args.setups:
                setups = ("plain", *(s for s in args.setups.split(",") if s != "plain"))
            per_call = {
                setup: (
                    instructions(script, kind, setup, calls) - instructions(script, kind, setup, 0)
                )
                / calls
                for setup in setups
            }
            plain = per_call["plain"]
            low, middle = wall_us(script, kind, 50 if kind == "agent" else max(calls, 500))
            print(
                f"{title}: {calls} calls, instructions per call (callgrind); the plain "
                f"call took {low:.1f} us (min) / {middle:.1f} us (median) of wall time here"
            )
            for setup in setups:
                extra = per_call[setup] - plain
                line = f"  {setup:<14} {per_call[setup]:>12,.0f}"
                if setup != "plain":
                    fast, typical = extra * low / plain, extra * middle / plain
                    line += (
                        f"   extra {extra:>10,.0f} ({extra / plain:.1%}) = {fast:5.1f} us at the "
                        f"min rate, {typical:5.1f} us at the median rate; budget {budget:g} us"
                    )
                print(line)


if __name__ == "__main__":
    main()
