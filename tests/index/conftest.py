"""Index tests: real benchmarks run through ``run_benchmark_spec`` and recorded into real
record directories (``record_experiment``)."""

from __future__ import annotations

import asyncio
import itertools
import sys
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from index_support import SCORING, TASK, Record

from autobench import run_benchmark_spec
from autobench.core.spec import BenchmarkSpec
from autobench.records import record_experiment

_modules = itertools.count(1)


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


@pytest.fixture(autouse=True)
def _index_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """The live index of every experiment these tests record, however small, is written by
    an index worker process (the processes they start inherit it); a test that checks the
    index written in process sets ``AUTOBENCH_INDEX_WORKER=0``."""
    monkeypatch.setenv("AUTOBENCH_INDEX_WORKER", "1")
