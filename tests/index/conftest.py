"""Index tests: real benchmarks run through ``run_benchmark_spec`` and recorded into real
record directories (``record_experiment``)."""

from __future__ import annotations

import asyncio
import itertools
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from autobench import run_benchmark_spec
from autobench.core.spec import BenchmarkSpec
from autobench.records import record_experiment

_modules = itertools.count(1)

TASK = """
def run(ctx, case):
    data = case.input
    if data.get("boom"):
        raise RuntimeError("boom " + str(data["n"]))
    if data.get("llm"):
        with ctx.span("chat", kind="llm", attributes={"model": "gpt-test", "provider": "openai"},
                      usage={"input_tokens": data["n"] + 10, "output_tokens": 3}):
            pass
    with ctx.span("work", kind="tool"):
        pass
    ctx.metric("size", data["value"], semantic_type=data.get("semantic", "workload.size"),
               unit=data.get("unit"))
    ctx.check("small", data["n"] % 3 != 0)
    return {"value": data["n"] * 2, "quality": (data["n"] % 10) / 10}
"""

SCORING = [
    {
        "kind": "exact",
        "name": "correct",
        "actual": "output.value",
        "expected": "case.expected.value",
        "semantic": "quality.correctness",
    },
    {"kind": "output", "name": "quality", "path": "output.quality", "semantic": "quality.score"},
]

Record = Callable[..., Path]


@pytest.fixture(autouse=True, scope="session")
def _autobench_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("autobench-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUTOBENCH_HOME", str(home))
        yield home


def case(n: int, value: Any = None, **extra: Any) -> dict[str, Any]:
    """A case of :data:`TASK`: input ``n`` (expected ``2n``), metric ``value``."""
    return {
        "id": f"case-{n}",
        "input": {"n": n, "value": n if value is None else value, **extra},
        "expected": {"value": n * 2 if n % 4 else -1},
    }


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Record:
    """``record(cases, name=..., variants=..., repeats=...)`` runs :data:`TASK` over
    ``cases`` and writes the record directory ``tmp_path/<name>``; returns it."""
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "spec").mkdir(exist_ok=True)

    def _record(
        cases: Sequence[Mapping[str, Any]],
        *,
        name: str = "rec",
        benchmark: str = "index-test",
        variants: Sequence[Mapping[str, Any]] = (
            {"id": "a", "factors": {"mode": "a"}},
            {"id": "b", "factors": {"mode": "b"}},
        ),
        repeats: int = 1,
    ) -> Path:
        module = f"index_task_{next(_modules)}"
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(TASK))
        data: dict[str, Any] = {
            "benchmark": {"id": benchmark},
            "dataset": {"cases": list(cases)},
            "variants": list(variants),
            "scoring": SCORING,
            "task": {"target": f"{module}:run"},
        }
        if repeats > 1:
            data["repeat"] = repeats
        spec = BenchmarkSpec.model_validate(data).model_copy(update={"base_dir": tmp_path})
        try:
            result = asyncio.run(run_benchmark_spec(spec))
        finally:
            sys.modules.pop(module, None)
        target = tmp_path / name
        record_experiment(result, target)
        return target

    return _record
