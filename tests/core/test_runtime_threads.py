"""Sync tasks in worker threads: no event loop in the thread, loop hand-offs, single-thread sink."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest
from runtime_support import CollectingSink, make_spec, run, write_task_module

from autobench.core.runtime import ProgressEvent, ProgressEventKind, run_benchmark_spec
from autobench.core.runtime._tasks import resolve_task
from autobench.core.scoring import ScorerSpec, ScoringCall
from autobench.records import RunRecord, RunStatus

THREAD_TASKS = """
import asyncio, contextvars, threading, time

state = {}

def nested_loop(ctx, case):
    async def inner():
        await asyncio.sleep(0)
        with ctx.span("in_nested_loop"):
            await asyncio.sleep(0)
        return case.id
    with ctx.span("outer"):
        return asyncio.run(inner())

class Library:
    # a library with its own sync facade over an event loop of its own
    def __init__(self):
        self.loop = asyncio.new_event_loop()

    def run_sync(self, coroutine):
        return self.loop.run_until_complete(coroutine)

def library_run_sync(ctx, case):
    async def call():
        await asyncio.sleep(0)
        return case.input["n"] * 10
    library = Library()
    try:
        return library.run_sync(call())
    finally:
        library.loop.close()

def spawns_thread(ctx, case):
    seen = {}
    def child():
        with ctx.span("in_thread"):
            ctx.metric("from_thread", 1)
    with ctx.span("spawner"):
        thread = threading.Thread(target=contextvars.copy_context().run, args=(child,))
        thread.start()
        thread.join()
    return None

def returns_awaitable(ctx, case):
    async def later():
        with ctx.span("awaited_on_loop"):
            await asyncio.sleep(0)
        return {"loop_thread": threading.current_thread() is threading.main_thread()}
    return later()

def thread_name(ctx, case):
    return threading.current_thread().name

def fast(ctx, case):
    return case.id

def slow_sync(ctx, case):
    state["started"] = state.get("started", 0) + 1
    time.sleep(0.05)
    state["finished"] = state.get("finished", 0) + 1
    return case.id
"""

CASES = [{"id": f"c{n}", "input": {"n": n}} for n in range(6)]


def _by_name(record: RunRecord) -> dict[str, Any]:
    return {span.operation: span for span in record.spans}


def test_sync_task_may_call_asyncio_run_and_spans_nest(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, THREAD_TASKS)
    result = run(make_spec(tmp_path, f"{module}:nested_loop", cases=CASES), concurrency_limit=3)
    assert [r.output for r in result.runs] == [c["id"] for c in CASES]
    for record in result.runs:
        spans = _by_name(record)
        assert spans["in_nested_loop"].parent == spans["outer"].id


def test_sync_task_may_use_a_library_run_sync(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, THREAD_TASKS)
    result = run(make_spec(tmp_path, f"{module}:library_run_sync", cases=CASES))
    assert [r.output for r in result.runs] == [c["input"]["n"] * 10 for c in CASES]


def test_thread_started_with_copied_context_keeps_parentage(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, THREAD_TASKS)
    record = run(make_spec(tmp_path, f"{module}:spawns_thread"), concurrency_limit=2).runs[0]
    spans = _by_name(record)
    assert spans["in_thread"].parent == spans["spawner"].id
    assert record.observations[0].span_id == spans["in_thread"].id


def test_awaitable_returned_by_sync_task_is_awaited_on_the_loop(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, THREAD_TASKS)
    record = run(make_spec(tmp_path, f"{module}:returns_awaitable")).runs[0]
    assert record.output == {"loop_thread": True}
    spans = _by_name(record)
    assert spans["awaited_on_loop"].parent == record.trace.root_spans[0].id


def test_sync_runs_are_off_the_loop_thread(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, THREAD_TASKS)
    result = run(make_spec(tmp_path, f"{module}:thread_name", cases=CASES), concurrency_limit=4)
    assert all(r.output.startswith("autobench-run-") for r in result.runs)


class _ThreadSink(CollectingSink):
    def __init__(self) -> None:
        super().__init__()
        self.threads: set[int] = set()

    def run_finished(self, run: RunRecord, payloads: Mapping[str, Any]) -> RunRecord:
        self.threads.add(threading.get_ident())
        return super().run_finished(run, payloads)


@pytest.mark.parametrize("limit", [1, 4])
def test_sink_and_progress_run_on_the_loop_thread_in_order(tmp_path: Path, limit: int) -> None:
    module = write_task_module(tmp_path, THREAD_TASKS)
    sink = _ThreadSink()
    events: list[tuple[ProgressEvent, int]] = []
    cases = [{"id": f"c{n}"} for n in range(40)]
    result = run(
        make_spec(tmp_path, f"{module}:fast", cases=cases),
        concurrency_limit=limit,
        sink=sink,
        progress=lambda event: events.append((event, threading.get_ident())),
    )
    assert sink.threads == {threading.get_ident()}
    assert {thread for _, thread in events} == {threading.get_ident()}
    assert [r.run.index for r in result.runs] == list(range(40))
    assert sink.calls[0] == "start" and sink.calls[-1] == "finish"
    started: set[str] = set()
    finished = 0
    for event, _ in events[1:-1]:
        if event.kind is ProgressEventKind.RUN_STARTED:
            started.add(event.run_id or "")
        else:
            assert event.run_id in started
            finished += 1
            assert event.completed == finished
    assert len(started) == finished == 40


class _SuspendingScorer(ScorerSpec):
    keyword: ClassVar[str] = "rt_suspending"
    kind: Literal["rt_suspending"] = "rt_suspending"

    async def score(self, call: ScoringCall) -> Any:
        await asyncio.sleep(0.001)
        return threading.current_thread() is threading.main_thread()


def test_scorer_that_suspends_runs_on_the_loop_for_sync_tasks(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, THREAD_TASKS)
    spec = make_spec(
        tmp_path,
        f"{module}:fast",
        cases=CASES,
        scoring=[{"kind": "exact", "name": "same", "actual": "output", "expected": "case.id"}],
    )
    spec = spec.model_copy(update={"scoring": (*spec.scoring, _SuspendingScorer(name="on_loop"))})
    result = run(spec, concurrency_limit=2)
    assert all(r.status is RunStatus.PASSED for r in result.runs)
    assert [[s.value for s in r.scores] for r in result.runs] == [[1.0, True]] * len(CASES)


def test_cancelling_stops_sync_runs_from_starting(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, THREAD_TASKS)
    spec = make_spec(tmp_path, f"{module}:slow_sync", cases=CASES)
    state = sys.modules[resolve_task(spec).__module__].state

    async def main() -> None:
        experiment = asyncio.create_task(run_benchmark_spec(spec, concurrency_limit=2))
        while state.get("started", 0) < 1:
            await asyncio.sleep(0.001)
        experiment.cancel()
        with pytest.raises(asyncio.CancelledError):
            await experiment

    asyncio.run(main())
    started = state["started"]
    assert started <= 2
    threading.Event().wait(0.12)
    assert state["started"] == started == state["finished"]


def test_exception_escaping_a_sync_run_is_raised(tmp_path: Path) -> None:
    module = write_task_module(
        tmp_path,
        """
        class Stop(BaseException):
            pass

        def run_case(ctx, case):
            if case.input["n"] == 2:
                raise Stop("stop everything")
            return case.id
        """,
    )
    with pytest.raises(BaseException, match="stop everything"):
        run(make_spec(tmp_path, f"{module}:run_case", cases=CASES), concurrency_limit=2)


COUNTED = """
CALLS = []


def counted(ctx, case):
    CALLS.append(case.id)  # list.append: one operation under the GIL
    return {"n": case.input["n"]}
"""


class SlowDisk(CollectingSink):
    """A durable sink whose disk stores 20 runs every 20 ms (1,000 a second), far slower
    than a trivial task runs; it notes how far the task calls got ahead of it."""

    def __init__(self, module: str) -> None:
        super().__init__()
        self.module = module
        self.waiting: list[Any] = []
        self.stored = 0
        self.most_ahead = 0

    def run_finished(self, run: RunRecord, payloads: Mapping[str, Any]) -> RunRecord:
        calls = len(sys.modules[self.module].CALLS)
        self.most_ahead = max(self.most_ahead, calls - self.stored)
        return super().run_finished(run, payloads)

    def after_stored(self, run_id: str, callback: Any) -> None:
        self.waiting.append(callback)
        if len(self.waiting) == 1:
            asyncio.get_running_loop().call_later(0.02, self._store)

    def _store(self) -> None:
        done, self.waiting = self.waiting[:20], self.waiting[20:]
        self.stored += len(done)
        for callback in done:
            callback(True)
        if self.waiting:
            asyncio.get_running_loop().call_later(0.02, self._store)


def test_sync_runs_wait_for_a_slow_sink_instead_of_piling_up(tmp_path: Path) -> None:
    # Each finished run waiting for the disk holds its record: past BACKLOG of them, the
    # threads take no new run, so memory stays bounded however long the experiment.
    from autobench.core.runtime._threads import BACKLOG

    module = write_task_module(tmp_path, COUNTED)
    cases = [{"id": f"c{index}", "input": {"n": index}} for index in range(2 * BACKLOG + 500)]
    sink = SlowDisk(module)
    result = run(make_spec(tmp_path, f"{module}:counted", cases=cases), sink=sink)

    assert len(result.runs) == len(cases) and sink.stored == len(cases)
    # Runs called and not stored: at most the backlog, and the one run each thread took
    # as the count was read.
    assert 0 < sink.most_ahead <= BACKLOG + 1, sink.most_ahead
