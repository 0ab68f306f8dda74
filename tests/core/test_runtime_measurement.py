"""ctx.record_measurement / span.record_measurement: summary metrics and the samples artifact."""

from __future__ import annotations

from pathlib import Path

import pytest
from runtime_support import CollectingSink, make_spec, run, write_task_module

from autobench.core.measurement import Measurement
from autobench.core.runtime._evidence import EvidenceBuffer
from autobench.core.runtime._measurement import RecordedMeasurement, record_measurement
from autobench.records import Direction, ObservationRole, RunStatus

MEASURE_TASK = """
from autobench import measure_callable


def scripted(durations):
    durations = iter(durations)

    def timer(fn):
        fn()
        return next(durations)

    return timer


def run_case(ctx, case):
    calls = []
    m = measure_callable(lambda: calls.append(1), warmup=1, repetitions=4,
                         timer=scripted([9.0, 0.002, 0.004, 0.001, 0.003]))
    recorded = ctx.record_measurement("sort", m, include_samples_artifact=True)
    with ctx.span("inner") as span:
        single = measure_callable(lambda: None, repetitions=1, timer=scripted([0.5]))
        span.record_measurement("once", single, semantic_type="custom.wait", unit="s",
                                role="diagnostic")
    assert recorded.artifact is recorded.samples_artifact
    return {"calls": len(calls), "artifact": recorded.samples_artifact.id,
            "median": recorded.median.name, "artifact_name": recorded.samples_artifact.name}
"""


def test_summary_metrics_names_units_and_roles(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, MEASURE_TASK)
    sink = CollectingSink()
    result = run(make_spec(tmp_path, f"{module}:run_case"), sink=sink)
    (record,) = result.runs
    assert record.status is RunStatus.PASSED
    assert record.output == {
        "calls": 5,
        "artifact": "art_1",
        "median": "sort.median",
        "artifact_name": "sort.samples",
    }
    obs = {o.name: o for o in record.observations}
    expected = {
        "sort.median": (2.5, "time.latency", "ms"),
        "sort.p95": (pytest.approx(3.85), "time.latency.p95", "ms"),
        "sort.mean": (2.5, "time.latency.mean", "ms"),
        "sort.min": (1.0, "time.latency.min", "ms"),
        "sort.max": (4.0, "time.latency.max", "ms"),
        "sort.stddev": (pytest.approx(1.2909944), "time.latency.stddev", "ms"),
        "sort.repetitions": (4, "measurement.repetitions", None),
        "sort.noise": (pytest.approx(120.0), "measurement.noise.range_pct", "%"),
        "sort.timed_out": (False, "measurement.timed_out", None),
    }
    sort = {name: o for name, o in obs.items() if name.startswith("sort.")}
    assert list(sort) == list(expected)
    for name, (value, semantic, unit) in expected.items():
        assert (sort[name].value, sort[name].semantic_type, sort[name].unit) == (
            value,
            semantic,
            unit,
        ), name
    median = sort["sort.median"]
    assert (median.role, median.direction) == (ObservationRole.OBJECTIVE, Direction.MINIMIZE)
    assert all(o.role is ObservationRole.DIAGNOSTIC for n, o in sort.items() if n != "sort.median")
    root = record.trace.root_spans[0]
    assert {o.span_id for o in sort.values()} == {root.id}

    # a span links its measurement to itself; one sample: no stddev, zero noise
    once = {name: o for name, o in obs.items() if name.startswith("once.")}
    assert "once.stddev" not in once
    assert (once["once.median"].value, once["once.median"].unit) == (0.5, "s")
    assert once["once.median"].semantic_type == "custom.wait"
    assert once["once.median"].role is ObservationRole.DIAGNOSTIC
    assert once["once.noise"].value == 0.0
    inner = record.trace.children(root.id)[0]
    assert {o.span_id for o in once.values()} == {inner.id}

    (artifact,) = record.artifacts
    assert artifact.name == "sort.samples" and artifact.span_id == root.id
    payload = sink.payloads[record.run_id][artifact.id]
    assert payload["samples"] == [2.0, 4.0, 1.0, 3.0]
    assert payload["unit"] == "ms"
    assert (payload["repetitions"], payload["warmup"], payload["timed_out"]) == (4, 1, False)
    assert payload["budget"] == {
        "warmup": 1,
        "repetitions": 4,
        "min_repetitions": 1,
        "max_seconds": None,
    }
    assert payload["summary"]["median"] == 2.5


def test_semantic_type_none_and_bad_unit() -> None:
    evidence = EvidenceBuffer("c", "v")
    m = Measurement(samples_seconds=(0.001, 0.003))

    def record(unit: str) -> RecordedMeasurement:
        return record_measurement(
            evidence,
            None,
            "x",
            m,
            semantic_type=None,
            unit=unit,
            role="objective",
            direction="minimize",
            include_samples_artifact=False,
        )

    recorded = record("us")
    assert all(o.semantic_type is None for o in recorded.observations)
    assert recorded.median.value == pytest.approx(2000.0)
    assert recorded.samples_artifact is None
    with pytest.raises(ValueError, match="not a time unit"):
        record("tokens")
