"""A large trace is stored beside its run without rendering it inline first: same record."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from autobench.abp import TraceCollector, bind_collector, emit_diagnostic, start_span
from autobench.core.runtime import run_benchmark_spec
from autobench.core.spec import load_benchmark_spec_text
from autobench.records import RecordDirectoryWriter, replay_experiment
from autobench.records._codec import render_run, run_sections, trace_to_yaml, trace_yaml_bytes
from autobench.records._directory import SURELY_LARGE_TRACE

SPEC = """\
benchmark:
  wide:
    cases: [{id: c1, input: {n: %d}}]
    run: {python: "wide_task:run"}
    variants: {v1: {factors: {mode: a}}}
"""

TASK = """\
def run(ctx, case):
    for index in range(case.input["n"]):
        with ctx.span("step", attributes={"i": index}):
            ctx.metric("i", index)
    return {"done": True}
"""


def _run(tmp_path: Path, spans: int, record: Path | None = None):  # type: ignore[no-untyped-def]
    (tmp_path / "wide_task.py").write_text(TASK)
    spec = load_benchmark_spec_text(SPEC % spans, path=tmp_path / "autobench.yaml")
    sink = None if record is None else RecordDirectoryWriter(record)
    return asyncio.run(run_benchmark_spec(spec, sink=sink))


def test_sections_with_a_summary_equal_the_inline_sections_with_the_trace_replaced(
    tmp_path: Path,
) -> None:
    run = _run(tmp_path, 50).runs[0]
    summary = {"id": "t", "spans": 52}
    fast = run_sections(run, trace=summary)
    slow = run_sections(run)
    slow["trace"] = summary
    assert list(fast) == list(slow) and fast == slow
    assert render_run(fast) == render_run(slow)


def test_a_trace_past_the_threshold_is_recorded_beside_its_run_and_replays(
    tmp_path: Path,
) -> None:
    spans = SURELY_LARGE_TRACE + 5
    record = tmp_path / "record"
    _run(tmp_path, spans, record)
    run_file = next(record.rglob("run.yaml"))
    assert "trace.yaml" in run_file.read_text()  # the summary points at the stored trace
    assert run_file.stat().st_size < 64 * 1024
    replayed = replay_experiment(record).runs[0]
    assert replayed.output == {"done": True}
    assert len(replayed.trace.spans) == spans + 1  # type: ignore[union-attr]  # and the root
    assert sum(1 for o in replayed.observations if o.name == "i") == spans


_VALUES = st.recursive(
    st.none() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


def _deep(depth: int) -> object:
    value: object = "bottom"
    for _ in range(depth):
        value = {"d": value}
    return value


@settings(max_examples=60, deadline=None)
@given(
    spans=st.lists(
        st.fixed_dictionaries(
            {
                "input": _VALUES,
                "output": _VALUES,
                "attributes": st.dictionaries(st.text(min_size=1, max_size=5), _VALUES, max_size=3),
                "fails": st.booleans(),
                "open": st.booleans(),
            }
        ),
        max_size=5,
    ),
    link=st.booleans(),
)
def test_the_trace_written_span_by_span_is_the_same_text(
    spans: list[dict[str, Any]], link: bool
) -> None:
    collector = TraceCollector()
    with bind_collector(collector), start_span("root", input=_deep(30)) as root:
        if link:
            root.add_link("follows", trace="0" * 32)
            emit_diagnostic("x.y", "a trace-level note")
        for spec in spans:
            scope = start_span("op", input=spec["input"], attributes=spec["attributes"])
            if spec["open"]:
                scope.__enter__()
                continue
            try:
                with scope as active:
                    active.set_output(spec["output"])
                    active.record_measurement("tokens", 3, unit="tokens")
                    if spec["fails"]:
                        raise ValueError("boom")
            except ValueError:
                pass
    trace = collector.materialize()
    assert trace_yaml_bytes(trace) == trace_to_yaml(trace).encode("utf-8")
