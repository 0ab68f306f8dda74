"""Task-local trace context: each case of the concurrency contract, at the ABP level."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from autobench.abp import (
    SpanStatus,
    Trace,
    TraceCollector,
    active_collector,
    active_span,
    bind_collector,
    start_span,
)


def _by_name(trace: Trace) -> dict[str, str | None]:
    return {span.operation: span.parent for span in trace.spans}


def _ids(trace: Trace) -> dict[str, str]:
    return {span.operation: span.id for span in trace.spans}


def test_concurrent_siblings_share_their_parent() -> None:
    async def child(name: str) -> None:
        with start_span(name):
            await asyncio.sleep(0)

    async def body() -> None:
        with start_span("parent"):
            await asyncio.gather(*(child(f"c{i}") for i in range(5)))

    collector = TraceCollector()

    async def main() -> None:
        with bind_collector(collector), start_span("root"):
            await body()

    asyncio.run(main())
    trace = collector.materialize()
    parents, ids = _by_name(trace), _ids(trace)
    assert {parents[f"c{i}"] for i in range(5)} == {ids["parent"]}


def test_a_nested_task_inherits_the_parent_active_when_it_was_created() -> None:
    collector = TraceCollector()

    async def spawned() -> None:
        await asyncio.sleep(0.005)
        with start_span("spawned"):
            pass

    async def main() -> None:
        with bind_collector(collector), start_span("root"):
            with start_span("creator"):
                task = asyncio.create_task(spawned())
            with start_span("later"):
                await task

    asyncio.run(main())
    trace = collector.materialize()
    assert _by_name(trace)["spawned"] == _ids(trace)["creator"]


def test_completing_one_sibling_leaves_the_other_sibling_s_parent_alone() -> None:
    collector = TraceCollector()

    async def main() -> None:
        done = asyncio.Event()
        seen: dict[str, str | None] = {}

        async def quick() -> None:
            with start_span("quick"):
                pass
            done.set()

        async def slow() -> None:
            with start_span("slow") as slow_span:
                await done.wait()
                current = active_span()
                seen["slow_active"] = None if current is None else current.id
                seen["slow_id"] = slow_span.id
                with start_span("slow.child"):
                    pass

        with bind_collector(collector), start_span("root"):
            await asyncio.gather(slow(), quick())
        assert seen["slow_active"] == seen["slow_id"]

    asyncio.run(main())
    trace = collector.materialize()
    assert _by_name(trace)["slow.child"] == _ids(trace)["slow"]


def test_out_of_order_completion_does_not_corrupt_later_parentage() -> None:
    collector = TraceCollector()

    async def child(name: str, delay: float) -> None:
        with start_span(name):
            await asyncio.sleep(delay)

    async def main() -> None:
        with bind_collector(collector), start_span("root"), start_span("parent"):
            # Start order a, b, c; end order c, b, a.
            await asyncio.gather(child("a", 0.03), child("b", 0.02), child("c", 0.0))
            with start_span("after"):
                pass
        with bind_collector(collector), start_span("next_root"):
            pass

    asyncio.run(main())
    trace = collector.materialize()
    parents, ids = _by_name(trace), _ids(trace)
    assert parents["after"] == ids["parent"]
    assert parents["next_root"] is None
    assert parents["parent"] == ids["root"]


def test_cancellation_closes_only_the_cancelled_branch_and_restores_its_context() -> None:
    collector = TraceCollector()
    after_cancel: dict[str, str | None] = {}

    async def main() -> None:
        started = asyncio.Event()

        async def doomed() -> None:
            with start_span("doomed"):
                started.set()
                await asyncio.sleep(10)

        async def survivor() -> None:
            with start_span("survivor"):
                await started.wait()
                await asyncio.sleep(0.01)

        with bind_collector(collector), start_span("root") as root:
            task = asyncio.create_task(doomed())
            keep = asyncio.create_task(survivor())
            await started.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            current = active_span()
            after_cancel["active"] = None if current is None else current.id
            after_cancel["root"] = root.id
            with start_span("after_cancel"):
                pass
            await keep

    asyncio.run(main())
    trace = collector.materialize()
    spans = {span.operation: span for span in trace.spans}
    assert spans["doomed"].status is SpanStatus.CANCELLED
    assert spans["doomed"].error is not None and spans["doomed"].error.type == "CancelledError"
    assert spans["survivor"].status is SpanStatus.OK
    assert spans["root"].status is SpanStatus.OK
    assert after_cancel["active"] == after_cancel["root"]
    assert spans["after_cancel"].parent == spans["root"].id
    assert not trace.partial


def test_separate_collectors_in_concurrent_tasks_and_threads_never_share_spans() -> None:
    collectors = [TraceCollector() for _ in range(4)]

    async def one_run(collector: TraceCollector) -> None:
        with bind_collector(collector), start_span("benchmark.run"):
            for index in range(3):
                await asyncio.sleep(0)
                with start_span(f"step{index}"):
                    await asyncio.sleep(0)

    async def main() -> None:
        await asyncio.gather(*(one_run(c) for c in collectors[:2]))

    def threaded(collector: TraceCollector) -> None:
        with bind_collector(collector), start_span("benchmark.run"):
            for index in range(3):
                with start_span(f"step{index}"):
                    pass

    threads = [
        threading.Thread(target=contextvars.copy_context().run, args=(threaded, c))
        for c in collectors[2:]
    ]
    for thread in threads:
        thread.start()
    asyncio.run(main())
    for thread in threads:
        thread.join()
    seen: set[str] = set()
    for collector in collectors:
        trace = collector.materialize()
        ids = {span.id for span in trace.spans}
        assert len(trace.spans) == 4 and len(trace.root_spans) == 1
        assert all(span.parent in ids for span in trace.spans if span.parent is not None)
        assert not ids & seen
        seen |= ids
    assert active_collector() is None and active_span() is None
