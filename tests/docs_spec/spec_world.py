"""What the spec's Python snippets assume around them: a small benchmark on disk, a recorded
experiment, a run in progress (``ctx`` and ``case``), user modules they import.

Nothing here stands in for Autobench: the benchmark is real YAML, the records are written by
real runs, and ``ctx`` is the :class:`RunContext` of a real run.
"""

from __future__ import annotations

import ast
import asyncio
import traceback
import warnings
from pathlib import Path
from types import CodeType
from typing import Any

from autobench import Benchmark, Case, Variant, load_benchmark_spec, run_benchmark_spec
from autobench.records import RecordDirectoryWriter

DEMO_YAML = """\
benchmark:
  demo:
    description: The benchmark the spec's snippets run against.
    dataset:
      cases:
        - id: case_1
          input: {message: refund please, items: [3, 1, 2], query: 2}
          expected: {queue: billing, answer: ok}
        - id: case_2
          input: {message: where is my parcel, items: [5, 4], query: 4}
          expected: {queue: shipping, answer: ok}
    run:
      python: demo_tasks:run_case
    variants:
      variant_1:
        factors:
          prompt_version: {value: v1, semantic: prompt.version}
      variant_2:
        factors:
          prompt_version: {value: v2, semantic: prompt.version}
    score:
      queue_correct:
        exact: {actual: output.queue, expected: case.expected.queue}
        semantic: quality.correctness
      success:
        pass: output.success
        semantic: result.success
"""

DEMO_TASKS = """\
from autobench import SpanKind


def run_case(ctx, case):
    with ctx.span("route", kind=SpanKind.WORKFLOW) as workflow:
        with ctx.span("llm_call", kind=SpanKind.LLM) as llm:
            llm.set_usage({"input_tokens": 120, "output_tokens": 30, "requests": 1})
        workflow.set_output({"queue": "billing"})
    ctx.metric("cost", 0.002, semantic_type="money.cost", unit="usd")
    return {"queue": "billing", "success": True, "answer": "ok"}
"""

PRICING_YAML = """\
pricing:
  provider: openrouter
  source: manual
  models:
    openai/gpt-5.6-luna:
      input: {unit: mtok, price: 0.4}
      output: {unit: mtok, price: 1.6}
"""


def write_demo(where: Path) -> Path:
    """``autobench.yaml`` and its task module ``demo_tasks.py`` in ``where``; returns the spec."""
    (where / "demo_tasks.py").write_text(DEMO_TASKS)
    spec = where / "autobench.yaml"
    spec.write_text(DEMO_YAML)
    return spec


def run_demo(where: Path, record: str | None = None) -> Any:
    """Run the demo benchmark of ``where`` (written if missing) and return its result,
    recorded in ``where / record`` when given."""
    spec_path = where / "autobench.yaml"
    if not spec_path.exists():
        write_demo(where)
    spec = load_benchmark_spec(spec_path)
    sink = None if record is None else RecordDirectoryWriter(where / record)
    return asyncio.run(run_benchmark_spec(spec, sink=sink))


def write_module(where: Path, dotted: str, source: str) -> None:
    """A user module ``dotted`` (packages included) under ``where`` holding ``source``."""
    parts = dotted.split(".")
    folder = where.joinpath(*parts[:-1])
    folder.mkdir(parents=True, exist_ok=True)
    for depth in range(1, len(parts)):
        init = where.joinpath(*parts[:depth], "__init__.py")
        if not init.exists():
            init.write_text("")
    (folder / f"{parts[-1]}.py").write_text(source)


def write_file(where: Path, name: str, text: str) -> None:
    path = where / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# -- running a snippet inside a task ---------------------------------------------------------

_current: tuple[CodeType, dict[str, Any]] | None = None
failures: list[str] = []


def run_snippet(ctx: Any, case: Any) -> dict[str, Any]:
    """The task of :func:`run_in_task`: runs the snippet with ``ctx`` and ``case`` bound."""
    assert _current is not None
    code, namespace = _current
    namespace.update(ctx=ctx, case=case)
    try:
        exec(code, namespace)
    except BaseException:  # reported by run_in_task, with the snippet's own frame
        failures.append(traceback.format_exc())
    finally:
        _close_thread_loop()
    return {"queue": "billing", "success": True, "answer": "ok"}


def _close_thread_loop() -> None:
    """Close the event loop an SDK left set in this worker thread (Pydantic AI's
    ``run_sync`` makes one per thread and keeps it open), as the reader's process would at
    exit; the test run treats an unclosed loop as an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:
            return
    if not loop.is_running():
        loop.close()
        asyncio.set_event_loop(None)


def run_in_task(code: CodeType, namespace: dict[str, Any]) -> str | None:
    """Run ``code`` as the body of a task of a real one-run benchmark; the traceback of what
    it raised, or ``None``."""
    global _current
    _current = (code, namespace)
    failures.clear()
    try:
        result = (
            Benchmark("snippet")
            .dataset(
                [
                    Case(
                        id="case_1",
                        input={
                            "message": "refund please",
                            "prompt": "hi",
                            "items": [3, 1, 2],
                            "query": 2,
                        },
                        expected={"queue": "billing", "answer": "ok"},
                    )
                ]
            )
            .variants([Variant(id="variant_1")])
            .task(run_snippet)
            .run()
        )
    finally:
        _current = None
    if failures:
        return failures[0]
    errors = [error for run in result.runs for error in run.errors]
    return None if not errors else repr(errors)


def run_awaiting(source: str, filename: str, namespace: dict[str, Any]) -> None:
    """Run ``source`` as an asyncio REPL (or notebook) runs a cell: top-level ``await`` allowed."""
    code = compile(source, filename, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)

    async def cell() -> None:
        awaitable = eval(code, namespace)
        if awaitable is not None:
            await awaitable

    asyncio.run(cell())


# -- the user code and data files some snippets import or read -------------------------------

APP_REPLY = """\
from types import SimpleNamespace


def generate_reply(prompt, model, tone):
    usage = SimpleNamespace(input_tokens=12, output_tokens=8, total_tokens=20)
    return SimpleNamespace(output=f"Thanks, we will process your refund ({tone}).", usage=usage)
"""

CLIENT_INSTRUMENTOR = """
from autobench import (
    AbstractionLayer, CaptureMechanism, Compatibility, InstrumentationHandle,
    InstrumentationRuntime, InstrumentorInfo,
)


class ClientInstrumentor:
    info = InstrumentorInfo(
        id="example.client",
        version="1.0.0",
        target_distribution="example-client",
        supported_versions=">=2,<3",
        mechanism=CaptureMechanism.HOOK,
        layer=AbstractionLayer.CLIENT,
        span_kinds=("client.request",),
        semantic_families=("request", "response"),
    )

    def check(self) -> Compatibility:
        return Compatibility.compatible()

    def install(self, runtime: InstrumentationRuntime) -> InstrumentationHandle:
        return InstrumentationHandle(lambda: None, info=self.info)
"""

LLM_PRICES = Path(__file__).resolve().parents[1] / "fixtures" / "llm-prices" / "openai.json"


GENAI_PRICES = """\
[
  {
    "id": "openai",
    "name": "OpenAI",
    "models": [
      {
        "id": "gpt-demo",
        "name": "GPT demo",
        "match": {"or": [{"equals": "gpt-demo"}, {"equals": "gpt-demo-latest"}]},
        "prices": {"input_mtok": 1.25, "output_mtok": 10}
      }
    ]
  }
]
"""
"""A genai-prices JSON file (the shape of the project's published ``data.json``)."""
