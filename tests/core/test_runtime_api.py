"""run_benchmark_path (plain) and run_benchmark_path_async: a YAML spec file on disk, loaded and
run end to end."""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import textwrap
from pathlib import Path

import pytest
from runtime_support import CollectingSink, make_spec, run, write_task_module

from autobench import Benchmark
from autobench.core.runtime import (
    ProgressEvent,
    ProgressEventKind,
    RunningLoopError,
    collect_benchmark_source_files,
    run_benchmark_path,
    run_benchmark_path_async,
)
from autobench.records import RecordDirectoryWriter, RunStatus, run_record_path


def _write_benchmark(tmp_path: Path) -> tuple[Path, str]:
    module = write_task_module(
        tmp_path,
        """
        def run_case(ctx, case):
            with ctx.span("add"):
                total = case.input["a"] + case.input["b"]
            return {"result": total if ctx.factor("mode") == "right" else total + 1}
        """,
    )
    spec_file = tmp_path / "autobench.yaml"
    spec_file.write_text(
        textwrap.dedent(
            f"""
            benchmark:
              adder:
                dataset:
                  cases:
                    - id: one
                      input: {{a: 1, b: 2}}
                      expected: {{result: 3}}
                run:
                  python: {module}:run_case
                variants:
                  right: {{factors: {{mode: right}}}}
                  wrong: {{factors: {{mode: wrong}}}}
                score:
                  correct:
                    exact: {{actual: output.result, expected: case.expected.result}}
                    semantic: quality.correctness
                    role: constraint
            """
        )
    )
    return spec_file, module


def test_run_benchmark_path_is_a_plain_function_returning_the_result(tmp_path: Path) -> None:
    spec_file, module = _write_benchmark(tmp_path)
    sink = CollectingSink()
    assert not inspect.iscoroutinefunction(run_benchmark_path)
    result = run_benchmark_path(spec_file, sink=sink, concurrency_limit=2)
    assert [r.status for r in result.runs] == [RunStatus.PASSED, RunStatus.FAILED]
    assert result.benchmark_id == "adder"
    files = result.experiment.files
    assert files["autobench.yaml"] == hashlib.sha256(spec_file.read_bytes()).hexdigest()
    assert f"{module}.py" in files
    assert sink.calls[0] == "start" and sink.calls[-1] == "finish"


def test_the_async_twin_is_awaited_and_gives_the_same_runs(tmp_path: Path) -> None:
    spec_file, _ = _write_benchmark(tmp_path)
    assert inspect.iscoroutinefunction(run_benchmark_path_async)
    result = asyncio.run(run_benchmark_path_async(str(spec_file), concurrency_limit=2))
    assert [r.status for r in result.runs] == [RunStatus.PASSED, RunStatus.FAILED]
    plain = run_benchmark_path(spec_file)
    assert [r.run_id for r in plain.runs] == [r.run_id for r in result.runs]


def test_the_plain_form_refuses_inside_a_running_loop_and_names_the_twin(tmp_path: Path) -> None:
    spec_file, _ = _write_benchmark(tmp_path)
    root = tmp_path / "rec"

    async def from_async_code() -> None:
        run_benchmark_path(spec_file, sink=RecordDirectoryWriter(root))

    with pytest.raises(RunningLoopError, match=r"await run_benchmark_path_async\(") as caught:
        asyncio.run(from_async_code())
    assert isinstance(caught.value, RuntimeError)
    assert not root.exists()  # refused before anything was loaded, run or written

    builder = Benchmark("adder").dataset([{"id": "one"}]).task("nowhere:run")

    async def builder_from_async_code() -> None:
        builder.run()

    with pytest.raises(RunningLoopError, match=r"Benchmark.run\(\).*await benchmark.run_async"):
        asyncio.run(builder_from_async_code())


def test_collect_source_files_from_a_path(tmp_path: Path) -> None:
    spec_file, module = _write_benchmark(tmp_path)
    assert set(collect_benchmark_source_files(spec_file)) == {"autobench.yaml", f"{module}.py"}


def test_a_run_is_reported_finished_only_once_its_record_is_on_disk(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, "def run(ctx, case):\n    return {'n': case.input['n']}\n")
    cases = [{"id": f"c{index}", "input": {"n": index}} for index in range(30)]
    spec = make_spec(tmp_path, f"{module}:run", cases=cases)
    root = tmp_path / "rec"
    on_disk_when_reported: list[bool] = []

    def progress(event: ProgressEvent) -> None:
        if event.kind is ProgressEventKind.RUN_FINISHED:
            assert event.case_id is not None and event.variant_id is not None
            path = root / run_record_path(event.case_id, event.variant_id)
            on_disk_when_reported.append(path.is_file())

    result = run(spec, sink=RecordDirectoryWriter(root), progress=progress, concurrency_limit=4)
    assert len(result.runs) == 30
    assert on_disk_when_reported == [True] * 30
