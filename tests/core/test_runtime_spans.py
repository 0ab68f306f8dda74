"""Span parentage through ABP: root span, nesting, concurrent siblings, inherited parents."""

from __future__ import annotations

from pathlib import Path

from runtime_support import make_spec, run, write_task_module

from autobench.abp import SpanKind, SpanStatus
from autobench.records import RunRecord, RunStatus

PARENTAGE_TASK = """
import asyncio

async def nested(ctx, case):
    with ctx.span("outer", kind="agent") as outer:
        with ctx.span("middle") as middle:
            with ctx.span("leaf", kind="llm"):
                pass
        with ctx.span("after_middle"):
            pass
    return {"outer": outer.id, "middle": middle.id}

async def siblings(ctx, case):
    async def child(name, delay):
        with ctx.span(name):
            await asyncio.sleep(delay)
            # the other sibling has finished or not; our own grandchild must still nest under us
            with ctx.span(name + ".grandchild"):
                await asyncio.sleep(0)
    with ctx.span("parent"):
        # 'slow' starts first and ends last: out-of-order completion
        await asyncio.gather(child("slow", 0.03), child("fast", 0.0))
        with ctx.span("after_gather"):
            pass
    return None

async def inherits(ctx, case):
    with ctx.span("creator"):
        task = asyncio.create_task(worker(ctx))
    await task
    return None

async def worker(ctx):
    await asyncio.sleep(0.01)
    with ctx.span("spawned"):
        pass

def sync_nested(ctx, case):
    with ctx.span("sync_outer"):
        with ctx.span("sync_inner"):
            pass
    return None
"""


def _by_name(record: RunRecord) -> dict[str, object]:
    return {span.operation: span for span in record.spans}


def _run(tmp_path: Path, name: str, **kwargs: object) -> RunRecord:
    module = write_task_module(tmp_path, PARENTAGE_TASK)
    return run(make_spec(tmp_path, f"{module}:{name}"), **kwargs).runs[0]


def test_root_span_wraps_the_task(tmp_path: Path) -> None:
    record = _run(tmp_path, "nested")
    (root,) = record.trace.root_spans
    assert (root.operation, root.kind, root.status) == (
        "benchmark.run",
        SpanKind.TASK,
        SpanStatus.OK,
    )
    assert all(span.duration is not None and span.duration >= 0 for span in record.spans)
    assert not record.trace.partial


def test_nested_spans_point_to_their_enclosing_span(tmp_path: Path) -> None:
    record = _run(tmp_path, "nested")
    spans = _by_name(record)
    root = record.trace.root_spans[0]
    assert spans["outer"].parent == root.id
    assert spans["middle"].parent == spans["outer"].id
    assert spans["leaf"].parent == spans["middle"].id
    assert spans["after_middle"].parent == spans["outer"].id
    assert record.trace.path(spans["leaf"].id) == ("benchmark.run", "outer", "middle", "leaf")
    assert record.output == {"outer": spans["outer"].id, "middle": spans["middle"].id}


def test_concurrent_siblings_share_one_parent_and_out_of_order_completion_is_harmless(
    tmp_path: Path,
) -> None:
    record = _run(tmp_path, "siblings")
    spans = _by_name(record)
    parent = spans["parent"].id
    assert spans["slow"].parent == parent and spans["fast"].parent == parent
    assert spans["slow.grandchild"].parent == spans["slow"].id
    assert spans["fast.grandchild"].parent == spans["fast"].id
    assert spans["after_gather"].parent == parent
    assert (
        spans["fast"].offset + spans["fast"].duration
        < spans["slow"].offset + spans["slow"].duration
    )


def test_task_created_inside_a_span_inherits_it(tmp_path: Path) -> None:
    record = _run(tmp_path, "inherits")
    spans = _by_name(record)
    assert spans["spawned"].parent == spans["creator"].id


def test_sync_task_in_worker_thread_keeps_parentage(tmp_path: Path) -> None:
    record = _run(tmp_path, "sync_nested", concurrency_limit=2)
    spans = _by_name(record)
    assert spans["sync_outer"].parent == record.trace.root_spans[0].id
    assert spans["sync_inner"].parent == spans["sync_outer"].id


def test_separate_runs_never_share_spans(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, PARENTAGE_TASK)
    cases = [{"id": f"c{i}"} for i in range(6)]
    for limit in (1, 4):
        result = run(
            make_spec(tmp_path, f"{module}:siblings", cases=cases), concurrency_limit=limit
        )
        assert all(r.status is RunStatus.PASSED for r in result.runs)
        seen: set[str] = set()
        for record in result.runs:
            ids = {span.id for span in record.spans}
            assert not ids & seen
            seen |= ids
            assert len(record.trace.root_spans) == 1
            assert all(span.parent in ids for span in record.spans if span.parent is not None)
        assert len({r.trace.id for r in result.runs}) == len(result.runs)


def test_raising_task_closes_root_span_with_error(tmp_path: Path) -> None:
    module = write_task_module(
        tmp_path,
        """
        def run_case(ctx, case):
            with ctx.span("work"):
                raise LookupError("missing")
        """,
    )
    record = run(make_spec(tmp_path, f"{module}:run_case")).runs[0]
    spans = _by_name(record)
    assert spans["work"].status is SpanStatus.ERROR
    assert spans["benchmark.run"].status is SpanStatus.ERROR
    assert record.errors[0].span_id == spans["work"].id
