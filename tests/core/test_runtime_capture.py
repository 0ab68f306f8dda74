"""The capture policy on the run path: span payloads in the run record."""

from __future__ import annotations

from pathlib import Path

from runtime_support import CollectingSink, make_spec, run, write_task_module

from autobench.abp import REDACTED, CapturePolicy, PayloadRef

TASK = """
def run_case(ctx, case):
    with ctx.span("call", input={"prompt": "hi", "api_key": "k-123"}) as span:
        span.set_attribute("auth", "Bearer abc.def.ghi")
        span.set_output({"rows": list(range(50))})
    return {"ok": True}
"""


def test_span_secrets_are_redacted_and_clean_values_kept(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, TASK)
    record = run(make_spec(tmp_path, f"{module}:run_case")).runs[0]
    span = next(span for span in record.spans if span.operation == "call")
    assert span.input == {"prompt": "hi", "api_key": REDACTED}
    assert span.attributes == {"auth": REDACTED}
    assert span.output == {"rows": list(range(50))}


def test_payloads_over_the_threshold_become_run_artifacts(tmp_path: Path) -> None:
    policy = CapturePolicy(artifact_threshold=100)
    module = write_task_module(tmp_path, TASK)
    sink = CollectingSink()
    record = run(make_spec(tmp_path, f"{module}:run_case"), sink=sink, capture=policy).runs[0]
    span = next(span for span in record.spans if span.operation == "call")
    ref = PayloadRef.from_marker(span.output)
    assert ref is not None and ref.name == "call.output"
    (artifact,) = record.artifacts
    assert (artifact.id, artifact.span_id) == (ref.id, span.id)
    assert sink.payloads[record.run_id][ref.id] == {"rows": list(range(50))}
    assert span.references[0].id == ref.id
