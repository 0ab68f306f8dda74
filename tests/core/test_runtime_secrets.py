"""Secrets quoted by exceptions, events and tags never reach the records."""

from __future__ import annotations

from pathlib import Path

from runtime_support import make_spec, run, write_task_module

from autobench.abp import CapturePolicy

SECRET = "sk-abcdefghijklmnopqrstuvwxyz0123456789"


def test_exception_messages_events_and_tags_are_redacted(tmp_path: Path) -> None:
    module = write_task_module(
        tmp_path,
        f"""
        def run(ctx, case):
            ctx.event("login", {{"api_key": "{SECRET}", "user": "ada"}})
            ctx.metric("m", 1, tags={{"authorization": "Bearer abcdefghijklmnop"}})
            with ctx.span("call"):
                raise RuntimeError("connect failed: Authorization: Bearer abcdefghijklmnop key={SECRET}")
        """,
    )
    (record,) = run(make_spec(tmp_path, f"{module}:run")).runs
    assert record.status.value == "errored"
    text = repr(record.model_dump())
    assert SECRET not in text and "abcdefghijklmnop" not in text
    assert "[redacted]" in record.errors[0].message
    failing = next(span for span in record.spans if span.operation == "call")
    assert failing.error is not None and SECRET not in failing.error.message
    event = next(o for o in record.observations if o.name == "login")
    assert event.value == {"api_key": "[redacted]", "user": "ada"}


def test_a_benchmark_can_choose_its_capture_policy(tmp_path: Path) -> None:
    module = write_task_module(
        tmp_path,
        """
        def run(ctx, case):
            with ctx.span("lookup", input={"customer": "ada@example.com", "plan": "pro"}):
                pass
            return {}
        """,
    )
    spec = make_spec(tmp_path, f"{module}:run")
    (record,) = run(spec, capture=CapturePolicy(hash_keys=frozenset({"customer"}))).runs
    lookup = next(span for span in record.spans if span.operation == "lookup")
    assert lookup.input["plan"] == "pro" and lookup.input["customer"].startswith("sha256:")
