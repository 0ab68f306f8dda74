"""Viewer tests: real record directories written by running tiny benchmarks into tmp."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import os
import socket
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette

from autobench import run_benchmark_spec
from autobench.core.spec import BenchmarkSpec
from autobench.records import ExperimentResult, RecordDirectoryWriter

_modules = itertools.count(1)

HOSTILE = '<script>window.__pwned=1</script>"><img src=x onerror="window.__pwned=2">'

TASK = """
import base64

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>window.__pwned=3</script></svg>'

def run(ctx, case):
    with ctx.span("step " + case.input["text"], kind="tool", attributes={"note": case.input["text"]}):
        ctx.metric("latency", case.input["ms"] / 1000, semantic_type="time.latency", unit="s")
        ctx.metric("cost", case.input["usd"], semantic_type="money.cost", unit="USD")
    ctx.check("safe", case.input["ok"], reason="because " + case.input["text"])
    ctx.artifact("notes", "notes about " + case.input["text"], media_type="text/plain")
    ctx.artifact("blob", b"\\x00\\x01binary", media_type="application/octet-stream")
    ctx.artifact("chart", PNG, media_type="image/png")
    ctx.artifact("drawing", SVG, media_type="image/svg+xml")
    if case.input["boom"]:
        raise RuntimeError("exploded " + case.input["text"])
    return {"answer": case.input["text"], "q": case.input["q"]}
"""

CASES = [
    {
        "id": HOSTILE,
        "input": {"text": HOSTILE, "ms": 5, "usd": 0.01, "q": 0.9, "ok": True, "boom": False},
    },
    {
        "id": "plain",
        "input": {"text": "plain", "ms": 9, "usd": 0.02, "q": 0.4, "ok": False, "boom": False},
    },
    {
        "id": "boom",
        "input": {"text": "boom", "ms": 1, "usd": 0.0, "q": 0.0, "ok": True, "boom": True},
    },
]
VARIANTS = [{"id": "base", "factors": {"model": "a"}}, {"id": HOSTILE, "factors": {"model": "b"}}]
SCORING = [{"kind": "output", "name": "quality", "path": "output.q", "semantic": "quality.score"}]

RunBench = Callable[..., ExperimentResult]


def run_into(
    workdir: Path,
    source: str = TASK,
    *,
    cases: Sequence[Mapping[str, Any]] = CASES,
    variants: Sequence[Mapping[str, Any]] = VARIANTS,
    scoring: Sequence[Mapping[str, Any]] = SCORING,
    benchmark: str = "view-test",
    out: Path | None = None,
    index: bool = False,
) -> ExperimentResult:
    """Write ``source`` as a task module under ``workdir`` and run the benchmark, recording
    into ``workdir/<benchmark>`` (``out`` overrides); with ``index``, the columnar index is
    written as the runs land (as ``autobench run`` does), else the record has none."""
    module = f"view_task_{next(_modules)}"
    (workdir / f"{module}.py").write_text(textwrap.dedent(source))
    sys.path.insert(0, str(workdir))
    data: dict[str, Any] = {
        "benchmark": {"id": benchmark},
        "dataset": {"cases": list(cases)},
        "variants": list(variants),
        "scoring": list(scoring),
        "task": {"target": f"{module}:run"},
    }
    spec = BenchmarkSpec.model_validate(data).model_copy(update={"base_dir": workdir})
    switch = os.environ.pop("AUTOBENCH_NO_INDEX", None)
    if not index:
        os.environ["AUTOBENCH_NO_INDEX"] = "1"
    try:
        return asyncio.run(
            run_benchmark_spec(spec, sink=RecordDirectoryWriter(out or workdir / benchmark))
        )
    finally:
        sys.modules.pop(module, None)
        sys.path.remove(str(workdir))
        os.environ.pop("AUTOBENCH_NO_INDEX", None)
        if switch is not None:
            os.environ["AUTOBENCH_NO_INDEX"] = switch


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding one recorded experiment (the hostile fixture: markup in case and
    variant ids, span names, reasons, outputs, errors and artifacts)."""
    workdir = tmp_path_factory.mktemp("view-records")
    result = run_into(workdir)
    assert result.root_dir is not None
    return workdir


def tree_digests(root: Path) -> dict[str, str]:
    """Every file under ``root`` by its relative path, with the SHA-256 of its bytes: taken
    before and after browsing, it shows that nothing was written."""
    found = {}
    for here, _dirs, files in os.walk(root):
        for name in files:
            path = Path(here, name)
            found[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


@contextlib.contextmanager
def serving(app: Starlette) -> Iterator[str]:
    """``app`` served by uvicorn on a free loopback port in a thread, as ``autobench view``
    serves it; yields its base address (``http://127.0.0.1:PORT``)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    instance = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=instance.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60  # a safety net, not a measure
    while not instance.started:
        assert time.monotonic() < deadline, "the viewer never started"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        instance.should_exit = True
        thread.join(timeout=30)
        sock.close()
