"""Report tests: real tiny benchmarks run through ``run_benchmark_spec`` with task modules
written to a temporary directory."""

from __future__ import annotations

import asyncio
import itertools
import sys
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from report_support import RunBench

from autobench import run_benchmark_spec
from autobench.core.spec import BenchmarkSpec
from autobench.records import ExperimentResult

_modules = itertools.count(1)


@pytest.fixture
def run_bench(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> RunBench:
    """``run_bench(task_source, cases=..., variants=..., scoring=..., reports=...)`` writes
    ``task_source`` (defining ``run(ctx, case)``) as a module and runs the benchmark."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def _run(
        source: str,
        *,
        cases: Sequence[Mapping[str, Any]],
        variants: Sequence[Mapping[str, Any]],
        scoring: Sequence[Mapping[str, Any]] = (),
        reports: Mapping[str, Any] | None = None,
    ) -> ExperimentResult:
        module = f"report_task_{next(_modules)}"
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
        data: dict[str, Any] = {
            "benchmark": {"id": "report-test"},
            "dataset": {"cases": list(cases)},
            "variants": list(variants),
            "scoring": list(scoring),
            "task": {"target": f"{module}:run"},
        }
        if reports is not None:
            data["reports"] = dict(reports)
        spec = BenchmarkSpec.model_validate(data).model_copy(update={"base_dir": tmp_path})
        try:
            return asyncio.run(run_benchmark_spec(spec))
        finally:
            sys.modules.pop(module, None)

    return _run
