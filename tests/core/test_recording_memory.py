"""What recording an experiment holds in memory does not grow with its runs (issue 38,
point 1): a lean session with the columnar index written as runs land keeps no state per
run while it runs, and writing ``experiment.yaml`` never holds the text of the whole plan.

Measured as allocations, never as time: blocks the interpreter holds
(``sys.getallocatedblocks``) once the runs are stored, and the peak ``tracemalloc`` traces
while the plan is written, each compared between two sizes of the same real spec. The
memos of recent ids and text (``safe_segment``'s cache, the run text's line and key memos,
the writer's directories known to exist: each at most 4,096 entries) are emptied before
each count: bounded, they would otherwise show as growth while they fill.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import pytest

from autobench.core.planning import build_benchmark_plan
from autobench.core.runtime import ProgressEvent, ProgressEventKind, RunSession
from autobench.core.runtime._experiment import build_experiment_record
from autobench.core.runtime._plan_entries import PlanEntries
from autobench.core.spec import load_benchmark_spec
from autobench.records import RecordDirectoryWriter, RunTable, safe_segment
from autobench.records import _span_text as span_text
from autobench.records._yaml import dump_document

TASK = """\
def run(ctx, case):
    with ctx.span("work", kind="tool"):
        value = case.input["n"] * 2
    ctx.metric("size", case.input["n"], semantic_type="workload.size")
    return {"value": value}
"""


def _spec(root: Path, cases: int) -> Path:
    """``cases`` cases x two variants of a sync task (a span, a metric, a scorer)."""
    root.mkdir()
    (root / "memory_task.py").write_text(TASK)
    lines = ["benchmark:", "  memory:", "    cases:"]
    lines += [
        f"      - {{id: case-{n}, input: {{n: {n}}}, expected: {{value: {2 * n}}}}}"
        for n in range(cases)
    ]
    lines += [
        "    run: {python: 'memory_task:run'}",
        "    variants: {a: {}, b: {}}",
        "    score:",
        "      correct:",
        "        exact: {actual: output.value, expected: case.expected.value}",
        "        semantic: quality.correctness",
    ]
    path = root / "autobench.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _blocks(writer: RecordDirectoryWriter) -> int:
    """Blocks allocated once cyclic garbage is collected and the bounded memos are empty."""
    span_text._LINES.clear()
    span_text._KEYS.clear()
    safe_segment.cache_clear()
    writer._files._known_dirs.clear()
    gc.collect()
    return sys.getallocatedblocks()


def _held_after_running(root: Path, cases: int, *, listeners: bool) -> tuple[int, int]:
    """``(runs, blocks)``: the blocks a lean session holds once its runs are stored (at
    ``experiment_finished``, before any reading back) more than when they began."""
    spec = load_benchmark_spec(_spec(root, cases))
    session = RunSession.start(spec, experiment_id="exp_memory", record_dir=root / "record")
    counted: dict[ProgressEventKind, int] = {}
    writer = session.sink
    assert isinstance(writer, RecordDirectoryWriter)

    def progress(event: ProgressEvent) -> None:
        if event.kind in (
            ProgressEventKind.EXPERIMENT_STARTED,
            ProgressEventKind.EXPERIMENT_FINISHED,
        ):
            counted[event.kind] = _blocks(writer)

    result = asyncio.run(session.execute(progress=progress, listeners=listeners, lean=True))
    assert result.summary is not None and result.summary.status.passed == 2 * cases
    # Read back from the index when it is written as the runs land, else kept run by run.
    assert isinstance(result.runs, RunTable) is listeners
    held = (
        counted[ProgressEventKind.EXPERIMENT_FINISHED]
        - counted[ProgressEventKind.EXPERIMENT_STARTED]
    )
    return 2 * cases, held


@pytest.mark.parametrize("writer", ["process", "thread"])
def test_a_recording_session_holds_nothing_per_run_while_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer: str
) -> None:
    """With the index written as runs land, the blocks held once the runs are stored are the
    same for 600 runs and for 2,400 (well under one a run: a few lists grow in steps); a
    session without the index keeps each run's evidence, dozens of blocks a run, which the
    same measurement sees."""
    monkeypatch.setenv("AUTOBENCH_RECORD_WRITER", writer)
    monkeypatch.setenv("AUTOBENCH_INDEX_WORKER", "1")
    small, small_held = _held_after_running(tmp_path / "small", 300, listeners=True)
    large, large_held = _held_after_running(tmp_path / "large", 1_200, listeners=True)
    per_run = (large_held - small_held) / (large - small)
    assert per_run < 0.5, (small_held, large_held)

    kept_small, kept_small_held = _held_after_running(tmp_path / "kept-small", 150, listeners=False)
    kept_large, kept_large_held = _held_after_running(tmp_path / "kept-large", 450, listeners=False)
    assert (kept_large_held - kept_small_held) / (kept_large - kept_small) > 10


def _write_spec(root: Path, cases: int) -> Path:
    root.mkdir()
    lines = ["benchmark:", "  plan:", "    dataset:", "      cases:"]
    lines += [f"        - {{id: case-{n}, input: {{n: {n}}}}}" for n in range(cases)]
    lines += ["    run: {python: 'm:f'}", "    variants: {a: {}, b: {}, c: {}}"]
    path = root / "autobench.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _plan_written_peak(root: Path, cases: int) -> tuple[int, int]:
    """``(planned runs, bytes)``: the peak traced while ``experiment.yaml`` is written,
    above what was allocated before."""
    spec = load_benchmark_spec(_write_spec(root, cases))
    record = build_experiment_record(
        spec,
        build_benchmark_plan(spec),
        experiment_id="exp_plan",
        started_at=datetime(2026, 12, 7, tzinfo=UTC),
        files={},
        environment={},
    )
    assert isinstance(record.plan, PlanEntries)
    writer = RecordDirectoryWriter(root / "record")
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        writer.start(record)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        writer.close()
    size = (root / "record" / "experiment.yaml").stat().st_size
    assert size > 150 * len(record.plan)  # the whole plan is in the file
    return len(record.plan), peak - before


def test_writing_the_plan_of_a_larger_experiment_takes_no_more_memory(tmp_path: Path) -> None:
    """``experiment.yaml`` of 37,800 planned runs (about 6 MB) is written part by part: its
    peak is that of 12,600 planned runs within a few bytes a run (the whole text, its bytes
    and their copies took about 700 bytes a run). Both have more cases than
    ``safe_segment``'s cache holds (4,096 ids), which fills while the paths are made."""
    small, small_peak = _plan_written_peak(tmp_path / "small", 4_200)
    large, large_peak = _plan_written_peak(tmp_path / "large", 12_600)
    assert (large_peak - small_peak) / (large - small) < 20, (small_peak, large_peak)


def test_writing_a_document_leaves_no_cyclic_garbage() -> None:
    """A YAML dumper refers to itself; once it has written its document it holds nothing,
    so nothing is left for the collector (which ``autobench run`` freezes while the runs go
    on, and which is off while it starts up): each part of a large plan dies as written."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        texts = [dump_document({"plan": [{"id": f"run_{n}", "n": n}]}) for n in range(3)]
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()
    assert texts[2] == "plan:\n- id: run_2\n  'n': 2\n"  # YAML 1.1 would read n as false
