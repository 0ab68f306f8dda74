"""Throughput at high concurrency: Autobench recorded and not, beside Pydantic Evals.

    uv run python tools/bench_throughput.py                                  # 2,000 x 50 ms at 200
    uv run python tools/bench_throughput.py --runs 2000 --latency-ms 0 --concurrency 64
    uv run python tools/bench_throughput.py --workload openai --repeat 5
    uv run python tools/bench_throughput.py --only cli-record,evals
    uv run python tools/bench_throughput.py --latency-ms 0 --concurrency 64 --raising --only api-record

``N`` (``--runs``) runs of an async task at concurrency ``C`` (``--concurrency``). Workloads:

``sleep``   the task awaits ``asyncio.sleep(L)`` (``--latency-ms``; 0 makes it trivial) and
            returns ``{"value": 2n}``;
``openai``  the task sends one chat completion with the real ``openai.AsyncOpenAI`` client to a
            local HTTP server (a subprocess answering after ``L`` ms), with Autobench's OpenAI
            instrumentor on (``instrumentation: {openai: {}}``).

Both score the output with one exact-match scorer (Pydantic Evals: ``EqualsExpected``).
Configurations, taking turns in every repeat so a slow spell of a busy machine hits all alike:

``cli-record``     ``autobench run SPEC --record DIR --concurrency C --no-progress --runs none``
``cli-no-record``  the same with ``--no-record``
``api-record``     ``run_benchmark_spec(spec, concurrency_limit=C, sink=RecordDirectoryWriter(DIR))``
                   then ``build_report`` and rendering, in this process
``api-no-record``  the same without a sink
``evals``          a fresh process running ``Dataset.evaluate_sync(task, max_concurrency=C,
                   progress=False)`` over the same N cases and printing its averages (not
                   its table of N rows: that alone takes about a second for 2,000 cases)

Each figure: ``wall`` (the whole process for ``cli-*`` and ``evals``; ``run_benchmark_spec``
plus the report for ``api-*``), ``ideal`` (``N * L / C``), ``wall / ideal``, runs per second
(``N / wall``), ``lag p99``: the 99th percentile of the event loop's lag measured by a ticker
on the loop that runs the tasks (a callback rescheduled every millisecond; its lateness), over
the ticks due until the last task returned (what comes after is the closing), and
``closing``: the time from the last task's return to the process's exit (``cli-*``,
``evals``) or the report's time (``api-*``). Medians over ``--repeat`` repeats are printed
with min and max; the exact commands are printed first. Figures are printed, never asserted.

Every recorded configuration writes into a new directory, and the records are removed only
after the last repeat: on ext4, a file or directory created within a minute of thousands of
deletions in the same block group costs several times more kernel time (the inode allocator
steps over each recently freed inode), so removing the last record before the next one
measured that cleanup rather than the recording (about 0.4 ms more per run here).

After the repeats, a bare loop makes as many runs' directories and files where the records
went (``file system`` line): the file system's own share of a recorded run in that sitting.

Targets (issue 36, medians on the 2-core development machine): 2,000 x 50 ms at concurrency
200 recorded, whole process, no slower than ``evals``; trivial tasks at concurrency 64 recorded:
at least 4,000 runs a second; lag p99 under 5 ms while recording; closing under 0.3 s.

The workspace's packages get their bytecode cache written first (``--no-compile`` leaves it),
as Pydantic Evals has it in site-packages: with ``PYTHONDONTWRITEBYTECODE`` set and no cache,
every ``autobench`` process compiles Autobench's sources again (0.4 s to 0.8 s of a recorded
run's wall time here).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_startup import compile_sources  # tools/bench_startup.py, beside this script

BIN = Path(sys.executable).parent
CONFIGURATIONS = ("cli-record", "cli-no-record", "api-record", "api-no-record", "evals")

TICKER = textwrap.dedent(
    '''
    import asyncio, atexit, contextvars, json, os, time

    _STATE = {"lags": [], "last_end": 0.0, "last_end_clock": 0.0, "first_start": 0.0, "loop": None}


    def _tick(loop, due):
        now = time.perf_counter()
        _STATE["lags"].append((due, now - due))
        loop.call_at(loop.time() + 0.001, _tick, loop, now + 0.001, context=contextvars.Context())


    def ticker():
        """Start the lag ticker on the running loop (once per loop)."""
        loop = asyncio.get_running_loop()
        if _STATE["loop"] is not loop:
            _STATE["loop"] = loop
            _STATE["first_start"] = time.time()
            loop.call_at(
                loop.time() + 0.001, _tick, loop, time.perf_counter() + 0.001,
                context=contextvars.Context(),
            )


    def task_ended():
        _STATE["last_end"] = time.time()
        _STATE["last_end_clock"] = time.perf_counter()


    def _dump():
        out = os.environ.get("BENCH_THROUGHPUT_OUT")
        if out:
            with open(out, "w") as stream:
                json.dump({k: v for k, v in _STATE.items() if k != "loop"}, stream)


    atexit.register(_dump)
    '''
)

SLEEP_TASK = textwrap.dedent(
    """
    import asyncio
    from bench_ticker import ticker, task_ended

    LATENCY = {latency}
    RAISING = {raising}


    async def run_case(ctx, case):
        ticker()
        if LATENCY:
            await asyncio.sleep(LATENCY)
        task_ended()
        if RAISING:
            raise ValueError(f"case {{case.id}} refused")
        return {{"value": case.input["n"] * 2}}
    """
)

OPENAI_TASK = textwrap.dedent(
    """
    import asyncio, os

    import openai

    from bench_ticker import ticker, task_ended

    _CLIENTS = {{}}


    def _client():
        loop = asyncio.get_running_loop()
        client = _CLIENTS.get(id(loop))
        if client is None:
            client = _CLIENTS[id(loop)] = openai.AsyncOpenAI(
                base_url=os.environ["BENCH_THROUGHPUT_URL"], api_key="bench", max_retries=0
            )
        return client


    async def run_case(ctx, case):
        ticker()
        reply = await _client().chat.completions.create(
            model="gpt-bench", messages=[{{"role": "user", "content": f"double {{case.input['n']}}"}}]
        )
        task_ended()
        return {{"value": case.input["n"] * 2, "text": reply.choices[0].message.content}}
    """
)

EVALS = textwrap.dedent(
    """
    import sys, time
    started = time.perf_counter()
    from pydantic_evals import Case, Dataset
    from pydantic_evals.evaluators import EqualsExpected
    from bench_task import run_case


    class _Case:
        def __init__(self, n):
            self.input = {{"n": n}}


    async def task(n):
        return await run_case(None, _Case(n))


    dataset = Dataset(
        name="throughput",
        cases=[Case(name=f"case-{{i}}", inputs=i, expected_output={{"value": 2 * i}}) for i in range({runs})],
        evaluators=[EqualsExpected()],
    )
    inside = time.perf_counter()
    report = dataset.evaluate_sync(task, max_concurrency={concurrency}, progress=False)
    inside = time.perf_counter() - inside
    print(report.averages())
    print(f"BENCH inside={{inside}}", file=sys.stderr)
    """
)

SERVER = textwrap.dedent(
    """
    import asyncio, json, sys

    DELAY = float(sys.argv[1])
    BODY = json.dumps({
        "id": "chatcmpl-bench", "object": "chat.completion", "created": 0, "model": "gpt-bench",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
    }).encode()
    HEAD = (
        "HTTP/1.1 200 OK\\r\\ncontent-type: application/json\\r\\n"
        f"content-length: {len(BODY)}\\r\\n\\r\\n"
    ).encode()


    async def serve(reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\\r\\n\\r\\n")
                length = 0
                for line in head.split(b"\\r\\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                if length:
                    await reader.readexactly(length)
                if DELAY:
                    await asyncio.sleep(DELAY)
                writer.write(HEAD + BODY)
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()


    async def main():
        server = await asyncio.start_server(serve, "127.0.0.1", 0, backlog=1024)
        print(server.sockets[0].getsockname()[1], flush=True)
        await server.serve_forever()


    asyncio.run(main())
    """
)


def write_workload(
    directory: Path,
    workload: str,
    runs: int,
    latency: float,
    concurrency: int,
    *,
    raising: bool = False,
) -> Path:
    """Write the task module, the ticker, ``autobench.yaml`` (``runs`` cases x one variant)
    and the Pydantic Evals script into ``directory``; return the spec's path. ``raising``:
    the sleep task raises once its sleep is over (every run errored, with a traceback)."""
    (directory / "bench_ticker.py").write_text(TICKER)
    if workload == "sleep":
        source = SLEEP_TASK.format(latency=latency, raising=raising)
    else:
        source = OPENAI_TASK.format()
    (directory / "bench_task.py").write_text(source)
    lines = ["benchmark:", "  throughput:", "    dataset:", "      cases:"]
    for index in range(runs):
        lines += [
            f"        - id: case-{index}",
            f"          input: {{n: {index}}}",
            f"          expected: {{value: {index * 2}}}",
        ]
    lines += [
        "    run:",
        "      python: bench_task:run_case",
        "    variants:",
        "      a: {factors: {mode: a}}",
        "    score:",
        "      correct:",
        "        exact: {actual: output.value, expected: case.expected.value}",
        "        semantic: quality.correctness",
    ]
    if workload == "openai":
        lines += ["    instrumentation:", "      openai: {}"]
    spec = directory / "autobench.yaml"
    spec.write_text("\n".join(lines) + "\n")
    (directory / "evals_bench.py").write_text(EVALS.format(runs=runs, concurrency=concurrency))
    return spec


def file_system_floor(records: Path, runs: int) -> float:
    """Seconds a bare Python loop takes to make ``runs`` runs' worth of a record's new inodes
    under ``records`` (a case directory, a variant directory and a small file each, as a
    one-variant record has): what the file system alone costs a recorded experiment here, in
    the same sitting (an ext4 block group with many recently freed inodes costs several
    times a fresh one). Nothing is flushed: the group commit's flushes are not included."""
    base = records / "floor"
    base.mkdir()
    started = time.perf_counter()
    for index in range(runs):
        run = base / f"c{index}" / "v"
        run.mkdir(parents=True)
        (run / "run.yaml").write_bytes(b"x" * 1500)
    return time.perf_counter() - started


def _running_lags(state: dict[str, Any]) -> list[float]:
    """The ticker's lags of the ticks due while the tasks ran (up to the last task's end): the
    closing (summary, index, report) comes after, and is measured by ``closing``."""
    end = state["last_end_clock"]
    return [lag for due, lag in state["lags"] if due <= end]


def _p99(lags: list[float]) -> float:
    if len(lags) < 2:
        return float("nan")
    return statistics.quantiles(lags, n=100)[98]


def _ticker_figures(path: Path, ended: float) -> tuple[float, float]:
    """``(lag p99 s, closing s)`` from the ticker file a child process wrote."""
    state = json.loads(path.read_text())
    return _p99(_running_lags(state)), ended - state["last_end"]


def run_child(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """Run ``command``; ``(wall s, lag p99 s, closing s)``."""
    out = cwd / "ticker.json"
    out.unlink(missing_ok=True)
    started = time.perf_counter()
    done = subprocess.run(
        command, cwd=cwd, env={**env, "BENCH_THROUGHPUT_OUT": str(out)}, capture_output=True
    )
    wall = time.perf_counter() - started
    ended = time.time()
    if done.returncode != 0:
        sys.stderr.write(done.stdout.decode() + done.stderr.decode())
        raise RuntimeError(f"{' '.join(command)} exited with {done.returncode}")
    lag, closing = _ticker_figures(out, ended)
    return wall, lag, closing


def run_in_process(
    spec_path: Path, concurrency: int, record: Path | None
) -> tuple[float, float, float]:
    """``run_benchmark_spec`` plus the report in this process; ``(wall, lag p99, report s)``."""
    import bench_ticker  # type: ignore[import-not-found]
    from rich.console import Console

    from autobench import load_benchmark_spec, run_benchmark_spec
    from autobench.records import RecordDirectoryWriter
    from autobench.report import build_report, render_report

    spec = load_benchmark_spec(spec_path)
    bench_ticker._STATE.update(lags=[], loop=None)
    sink = None if record is None else RecordDirectoryWriter(record)
    started = time.perf_counter()
    result = asyncio.run(run_benchmark_spec(spec, concurrency_limit=concurrency, sink=sink))
    ran = time.perf_counter()
    report = build_report(result)
    Console(file=io.StringIO(), width=120).print(render_report(report, runs="none"))
    ended = time.perf_counter()
    return ended - started, _p99(_running_lags(bench_ticker._STATE)), ended - ran


def start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(latency)], stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None
    port = int(server.stdout.readline())
    return server, f"http://127.0.0.1:{port}/v1"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", "-N", type=int, default=2000, help="runs (cases) N")
    parser.add_argument("--latency-ms", "-L", type=float, default=50.0, help="task latency L")
    parser.add_argument("--concurrency", "-C", type=int, default=200, help="concurrency C")
    parser.add_argument("--workload", choices=("sleep", "openai"), default="sleep")
    parser.add_argument(
        "--raising",
        action="store_true",
        help="sleep workload: Autobench's task raises ValueError after its sleep, so every run "
        "errors with a traceback (Pydantic Evals' task does not: leave evals out)",
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--records-in",
        type=Path,
        help="write the records under this directory (default: the temporary directory; "
        "e.g. /dev/shm to leave the disk's file system out)",
    )
    parser.add_argument(
        "--only", default=",".join(CONFIGURATIONS), help="comma-separated configurations"
    )
    parser.add_argument("--no-compile", action="store_true", help="leave the bytecode cache")
    args = parser.parse_args()
    if not args.no_compile:
        compile_sources()
    only = [name for name in args.only.split(",") if name]
    unknown = set(only) - set(CONFIGURATIONS)
    if unknown:
        parser.error(f"unknown configurations: {', '.join(sorted(unknown))}")
    latency = args.latency_ms / 1000
    with tempfile.TemporaryDirectory(prefix="autobench-throughput-") as name:
        tmp = Path(name)
        spec = write_workload(
            tmp, args.workload, args.runs, latency, args.concurrency, raising=args.raising
        )
        sys.path.insert(0, str(tmp))
        env = dict(os.environ)
        server = None
        if args.workload == "openai":
            server, url = start_server(latency)
            env["BENCH_THROUGHPUT_URL"] = os.environ["BENCH_THROUGHPUT_URL"] = url
        autobench = str(BIN / "autobench")
        common = ["--concurrency", str(args.concurrency), "--no-progress", "--runs", "none"]
        records = Path(tempfile.mkdtemp(prefix="records-", dir=args.records_in or tmp))
        serial = iter(range(1_000_000))

        def record() -> Path:
            """A new record directory (the old ones stay until the end: see the docstring)."""
            return records / f"record-{next(serial)}"

        commands: dict[str, Callable[[], tuple[float, float, float]]] = {
            "cli-record": lambda: run_child(
                [autobench, "run", str(spec), "--record", str(record()), *common], tmp, env
            ),
            "cli-no-record": lambda: run_child(
                [autobench, "run", str(spec), "--no-record", *common], tmp, env
            ),
            "api-record": lambda: run_in_process(spec, args.concurrency, record()),
            "api-no-record": lambda: run_in_process(spec, args.concurrency, None),
            "evals": lambda: run_child([sys.executable, "evals_bench.py"], tmp, env),
        }
        print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; cwd {tmp}")
        print(f"records under {records}")
        print(
            f"workload {args.workload}: N={args.runs} L={args.latency_ms:g} ms "
            f"C={args.concurrency}, {args.repeat} repeats"
        )
        print(f"  cli-record:    {autobench} run autobench.yaml --record DIR {' '.join(common)}")
        print(f"  cli-no-record: {autobench} run autobench.yaml --no-record {' '.join(common)}")
        print(f"  evals:         {sys.executable} evals_bench.py  (Dataset.evaluate_sync)")
        samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in only}
        try:
            for _ in range(args.repeat):
                for name in only:
                    samples[name].append(commands[name]())
            recorded = {"cli-record", "api-record"} & set(only)
            floor = file_system_floor(records, args.runs) if recorded else None
        finally:
            if server is not None:
                server.terminate()
                server.wait()
            shutil.rmtree(records, ignore_errors=True)
        ideal = args.runs * latency / args.concurrency
        print(
            f"{'configuration':<15} {'wall s (min-max)':>22} {'ideal':>6} {'ratio':>6} "
            f"{'runs/s':>7} {'lag p99 ms':>10} {'closing s':>9}"
        )
        for name in only:
            walls = [wall for wall, _, _ in samples[name]]
            wall = statistics.median(walls)
            lag = statistics.median(lag for _, lag, _ in samples[name])
            closing = statistics.median(closing for _, _, closing in samples[name])
            ratio = f"{wall / ideal:6.2f}" if ideal else "     -"
            print(
                f"{name:<15} {wall:7.2f} ({min(walls):.2f}-{max(walls):.2f}){'':>7} "
                f"{ideal:6.2f} {ratio} {args.runs / wall:7.0f} {lag * 1e3:10.1f} {closing:9.2f}"
            )
        if floor is not None:
            print(
                f"file system: a bare loop making {args.runs:,} runs' directories and files "
                f"where the records went took {floor:.2f} s ({floor / args.runs * 1e3:.3f} ms a "
                "run), after the last repeat"
            )


if __name__ == "__main__":
    main()
