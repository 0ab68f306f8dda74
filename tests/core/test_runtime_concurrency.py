"""The concurrency contract of spans, through real runs of task modules on disk.

Each case: concurrent siblings share their parent; a nested task inherits the
parent active at its creation; completing one sibling leaves the other's
parent alone; out-of-order completion does not corrupt later parentage;
cancellation closes only the cancelled branch and restores its context;
separate runs never share spans. Also: manual span provenance, the root span,
and a large trace stored as an artifact that replays equal.
"""

from __future__ import annotations

from pathlib import Path

from runtime_support import make_spec, run, write_task_module

from autobench import replay_experiment
from autobench.abp import SpanRecord, SpanStatus
from autobench.records import RecordDirectoryWriter, RunRecord, RunStatus, TraceSummary

TASKS = """
import asyncio

async def siblings(ctx, case):
    async def child(name):
        with ctx.span(name):
            await asyncio.sleep(0)
    with ctx.span("parent"):
        await asyncio.gather(*(child(f"c{i}") for i in range(4)))
    return None

async def inherits(ctx, case):
    async def spawned():
        await asyncio.sleep(0.005)
        with ctx.span("spawned"):
            pass
    with ctx.span("creator"):
        task = asyncio.create_task(spawned())
    with ctx.span("elsewhere"):
        await task
    return None

async def one_completes(ctx, case):
    done = asyncio.Event()
    seen = {}
    async def quick():
        with ctx.span("quick"):
            pass
        done.set()
    async def slow():
        with ctx.span("slow") as span:
            await done.wait()
            seen["slow"] = span.id
            with ctx.span("slow.child") as child:
                seen["slow.child.parent"] = child.parent_id
    await asyncio.gather(slow(), quick())
    return seen

async def out_of_order(ctx, case):
    async def child(name, delay):
        with ctx.span(name):
            await asyncio.sleep(delay)
    with ctx.span("parent"):
        await asyncio.gather(child("a", 0.02), child("b", 0.01), child("c", 0))
        with ctx.span("after"):
            pass
    with ctx.span("sibling_of_parent"):
        pass
    return None

async def cancels(ctx, case):
    started = asyncio.Event()
    async def doomed():
        with ctx.span("doomed"):
            started.set()
            await asyncio.sleep(10)
    async def survivor():
        with ctx.span("survivor"):
            await started.wait()
            await asyncio.sleep(0.01)
    with ctx.span("parent") as parent:
        task = asyncio.create_task(doomed())
        keep = asyncio.create_task(survivor())
        await started.wait()
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        with ctx.span("after_cancel") as after:
            restored = after.parent_id == parent.id
        await keep
    ctx.metric("restored", restored)
    return {"restored": restored}

async def separate(ctx, case):
    for index in range(3):
        await asyncio.sleep(0)
        with ctx.span(f"{case.id}.step{index}"):
            await asyncio.sleep(0)
    return None

def big_trace(ctx, case):
    for index in range(400):
        with ctx.span("step", kind="tool", input={"index": index, "text": "x" * 200}) as span:
            span.set_output({"index": index})
    return {"spans": 400}
"""


def _run(tmp_path: Path, name: str) -> RunRecord:
    module = write_task_module(tmp_path, TASKS)
    record = run(make_spec(tmp_path, f"{module}:{name}")).runs[0]
    assert record.status is RunStatus.PASSED, record.errors
    return record


def _spans(record: RunRecord) -> dict[str, SpanRecord]:
    return {span.operation: span for span in record.spans}


def test_concurrent_siblings_share_their_parent(tmp_path: Path) -> None:
    spans = _spans(_run(tmp_path, "siblings"))
    assert {spans[f"c{i}"].parent for i in range(4)} == {spans["parent"].id}


def test_a_nested_task_inherits_the_parent_active_at_its_creation(tmp_path: Path) -> None:
    spans = _spans(_run(tmp_path, "inherits"))
    assert spans["spawned"].parent == spans["creator"].id


def test_completing_one_sibling_does_not_change_the_other_s_parent(tmp_path: Path) -> None:
    record = _run(tmp_path, "one_completes")
    spans = _spans(record)
    assert record.output == {"slow": spans["slow"].id, "slow.child.parent": spans["slow"].id}
    assert spans["quick"].parent == spans["slow"].parent == record.trace.root_spans[0].id


def test_out_of_order_completion_does_not_corrupt_later_parentage(tmp_path: Path) -> None:
    record = _run(tmp_path, "out_of_order")
    spans = _spans(record)
    assert spans["after"].parent == spans["parent"].id
    assert spans["sibling_of_parent"].parent == record.trace.root_spans[0].id


def test_cancellation_closes_only_the_cancelled_branch(tmp_path: Path) -> None:
    record = _run(tmp_path, "cancels")
    spans = _spans(record)
    assert spans["doomed"].status is SpanStatus.CANCELLED
    assert spans["survivor"].status is SpanStatus.OK
    assert spans["parent"].status is SpanStatus.OK
    assert spans["benchmark.run"].status is SpanStatus.OK
    assert spans["after_cancel"].parent == spans["parent"].id
    assert record.output == {"restored": True}
    assert not record.trace.partial


def test_separate_runs_executed_concurrently_never_share_spans(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, TASKS)
    cases = [{"id": f"k{i}"} for i in range(8)]
    result = run(make_spec(tmp_path, f"{module}:separate", cases=cases), concurrency_limit=8)
    seen: set[str] = set()
    for record in result.runs:
        ids = {span.id for span in record.spans}
        names = {span.operation for span in record.spans}
        assert names == {"benchmark.run"} | {f"{record.case_id}.step{i}" for i in range(3)}
        assert all(span.parent in ids for span in record.spans if span.parent is not None)
        assert not ids & seen
        seen |= ids
    assert len({record.trace.id for record in result.runs}) == len(cases)


def test_manual_spans_carry_the_manual_scope_under_the_benchmark_run_root(
    tmp_path: Path,
) -> None:
    record = _run(tmp_path, "siblings")
    (root,) = record.trace.root_spans
    assert root.operation == "benchmark.run" and root.kind == "task"
    assert {span.scope for span in record.spans} == {"autobench.manual"}
    scope = record.trace.scopes["autobench.manual"]
    assert (scope.mechanism, scope.layer) == ("manual", "application")


def test_a_large_trace_goes_to_an_artifact_and_replays_equal(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, TASKS)
    root = tmp_path / "record"
    result = run(make_spec(tmp_path, f"{module}:big_trace"), sink=RecordDirectoryWriter(root))
    (record,) = result.runs
    run_file = next(root.glob("cases/*/*/run.yaml"))
    assert "artifact:" in run_file.read_text(encoding="utf-8")
    assert (root / "artifacts" / record.run_id / "trace.yaml").is_file()
    (replayed,) = replay_experiment(root).runs
    assert not isinstance(replayed.trace, TraceSummary)
    assert replayed.trace == record.trace
    assert len(replayed.spans) == 401
