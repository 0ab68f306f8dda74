"""Rate-limit accuracy: calls started per minute against the configured ``requests_per_minute``.

Run::

    .venv/bin/python tools/bench_rate_limit.py

Budget: the measured rate is within 5% of the configured one. Two measurements:

1. **One simulated minute** (virtual time): :class:`LocalLimits` on an event loop whose
   clock is virtual (a selector that, instead of blocking for ``timeout`` seconds, moves
   the loop's clock forward by ``timeout``), so a minute of load takes milliseconds and
   does not depend on the machine's speed. 256 clients (enough to exceed every limit
   below) call in a loop (acquire, a call
   of 0.05 to 2 virtual seconds, release, charge 50 tokens) for 60 virtual seconds; the
   figure is the calls started in ``[0, 60)``. Limits: 60, 600 and 6000 per minute, and
   600 per minute with ``max_concurrency: 64`` (64 calls of 1.025 s on average allow
   about 3,700 a minute) and ``tokens_per_minute`` high enough not to bind, so the rate
   is what binds while the other budgets are checked on every call.
2. **A real window, scaled**: a benchmark of 240 runs through the real runtime
   (``run_benchmark_spec``, a sync task in worker threads and an async one, 16 at once)
   under ``requests_per_minute: 6000`` (one call per 10 ms): the rate is
   ``60 * (calls - 1) / (last start - first start)`` from the task's own timestamps,
   a window of about 2.4 s standing for a minute 25 times slower.

Prints one line per measurement and exits 1 when one is outside the budget.
"""

from __future__ import annotations

import asyncio
import random
import selectors
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

from autobench.core.runtime import run_benchmark_spec
from autobench.core.runtime._limits import LocalLimits
from autobench.core.spec import load_benchmark_spec
from autobench.core.spec._models import LimitSpec

BUDGET = 0.05


class _VirtualSelector(selectors.DefaultSelector):
    """A selector whose waits move its loop's virtual clock instead of blocking."""

    loop: _VirtualLoop

    def select(self, timeout: float | None = None) -> list[Any]:
        ready = super().select(0)
        if not ready and timeout is not None and timeout > 0:
            self.loop.now += timeout
        return ready


class _VirtualLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        selector = _VirtualSelector()
        super().__init__(selector)
        selector.loop = self
        self.now = 0.0

    def time(self) -> float:
        return self.now


async def _simulated_minute(limit: LimitSpec, clients: int = 256) -> int:
    loop = asyncio.get_running_loop()
    limits = LocalLimits({"model": limit}, clock=loop.time)
    key = ("model", "m")
    starts: list[float] = []
    rng = random.Random(7)
    end = loop.time() + 60.0

    async def client() -> None:
        while loop.time() < end:
            await limits.acquire(key)
            starts.append(loop.time())
            await asyncio.sleep(rng.uniform(0.05, 2.0))
            await limits.release(key)
            await limits.charge(key, 50)

    tasks = [asyncio.create_task(client()) for _ in range(clients)]
    await asyncio.sleep(60.0)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return sum(1 for start in starts if start < end)


TASK = """\
import time

stamps = []


def run_sync(ctx, case):
    stamps.append(time.monotonic())


async def run_async(ctx, case):
    stamps.append(time.monotonic())
"""


def _real_window(target: str, runs: int = 240, rpm: float = 6000.0) -> float:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        module = f"bench_rl_{target}"
        (root / f"{module}.py").write_text(TASK, encoding="utf-8")
        cases = ", ".join(f"{{id: c{index}, input: {index}}}" for index in range(runs))
        (root / "autobench.yaml").write_text(
            textwrap.dedent(
                f"""
                benchmark:
                  rate:
                    cases: [{cases}]
                    run: {{python: "{module}:{target}"}}
                    variants: {{v: {{factors: {{model: m}}}}}}
                    limits: {{model: {{requests_per_minute: {rpm}}}}}
                """
            ),
            encoding="utf-8",
        )
        spec = load_benchmark_spec(root / "autobench.yaml")
        asyncio.run(run_benchmark_spec(spec, concurrency_limit=16))
        stamps = sorted(sys.modules[module].stamps)
    return 60 * (len(stamps) - 1) / (stamps[-1] - stamps[0])


def main() -> int:
    failed = False
    for label, limit in (
        ("60/min", LimitSpec(requests_per_minute=60)),
        ("600/min", LimitSpec(requests_per_minute=600)),
        ("6000/min", LimitSpec(requests_per_minute=6000)),
        (
            "600/min, max_concurrency 64, 10M tokens/min",
            LimitSpec(requests_per_minute=600, max_concurrency=64, tokens_per_minute=10_000_000),
        ),
    ):
        loop = _VirtualLoop()
        started = time.perf_counter()
        try:
            count = loop.run_until_complete(_simulated_minute(limit))
        finally:
            loop.close()
        configured = limit.requests_per_minute or 0.0
        error = count / configured - 1
        failed |= abs(error) > BUDGET
        print(
            f"simulated minute, {label:<42} {count:6d} calls started "
            f"({error:+.2%} of {configured:g}; {time.perf_counter() - started:.2f} s wall)"
        )
    for target in ("run_sync", "run_async"):
        measured = _real_window(target)
        error = measured / 6000 - 1
        failed |= abs(error) > BUDGET
        print(
            f"real window (runtime, {target}), 6000/min configured: "
            f"{measured:8.1f}/min measured ({error:+.2%})"
        )
    print(f"budget: within {BUDGET:.0%} of the configured rate: {'FAIL' if failed else 'ok'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
