"""A sync run's files are rendered in the worker thread that executed it, before that thread
takes its next run (``PreparingSink``): the files are those ``run_finished`` writes."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from runtime_support import make_spec, run, write_task_module

from autobench.records import (
    PreparingSink,
    RecordDirectoryWriter,
    RunRecord,
    run_record_from_yaml,
)
from autobench.records._directory import PreparedRun

TASK = """
import threading

def work(ctx, case):
    with ctx.span("step", attributes={"n": case.input["n"]}):
        ctx.metric("n", case.input["n"])
    return {"value": case.input["n"] * 2, "thread": threading.current_thread().name}
"""

CASES = [{"id": f"c{n}", "input": {"n": n}, "expected": {"value": 2 * n}} for n in range(6)]


class _ThreadNotingWriter(RecordDirectoryWriter):
    """The record writer, noting the thread that renders each run and the one that stores it."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.rendered_on: dict[str, str] = {}
        self.stored_on: dict[str, str] = {}

    def prepare_run(self, run: RunRecord, payloads: Mapping[str, Any]) -> PreparedRun:
        self.rendered_on[run.run_id] = threading.current_thread().name
        return super().prepare_run(run, payloads)

    def run_prepared(self, prepared: PreparedRun) -> RunRecord:
        self.stored_on[prepared.run.run_id] = threading.current_thread().name
        return super().run_prepared(prepared)


def test_a_sync_run_is_rendered_where_it_ran_and_stored_on_the_loop_thread(
    tmp_path: Path,
) -> None:
    module = write_task_module(tmp_path, TASK)
    writer = _ThreadNotingWriter(tmp_path / "record")
    assert isinstance(writer, PreparingSink)
    result = run(make_spec(tmp_path, f"{module}:work", cases=CASES), sink=writer)
    assert len(result.runs) == len(CASES)
    loop_thread = threading.current_thread().name
    for record in result.runs:
        assert writer.rendered_on[record.run_id] == record.output["thread"] != loop_thread
        assert writer.stored_on[record.run_id] == loop_thread
        path = tmp_path / "record" / "cases" / record.case_id / "v1" / "run.yaml"
        stored = run_record_from_yaml(path.read_text(encoding="utf-8"))
        assert stored.output == record.output and stored.trace == record.trace


def test_prepare_then_store_writes_what_run_finished_writes(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, TASK)
    spec = make_spec(tmp_path, f"{module}:work", cases=CASES[:2])
    result = run(spec)
    record = result.runs[0]
    texts = []
    for name, store in (
        ("finished", lambda writer: writer.run_finished(record, {})),
        ("prepared", lambda writer: writer.run_prepared(writer.prepare_run(record, {}))),
    ):
        writer = RecordDirectoryWriter(tmp_path / name)
        writer.start(result.experiment)
        store(writer)
        writer.flush()
        writer.close()
        texts.append(next((tmp_path / name).glob("cases/*/*/run.yaml")).read_bytes())
    assert texts[0] == texts[1]
