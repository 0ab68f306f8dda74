"""run_benchmark_path: a YAML spec file on disk, loaded and run end to end."""

from __future__ import annotations

import asyncio
import hashlib
import textwrap
from pathlib import Path

from runtime_support import CollectingSink, make_spec, run, write_task_module

from autobench.core.runtime import (
    ProgressEvent,
    ProgressEventKind,
    collect_benchmark_source_files,
    run_benchmark_path,
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


def test_run_benchmark_path(tmp_path: Path) -> None:
    spec_file, module = _write_benchmark(tmp_path)
    sink = CollectingSink()
    result = asyncio.run(run_benchmark_path(spec_file, sink=sink, concurrency_limit=2))
    assert [r.status for r in result.runs] == [RunStatus.PASSED, RunStatus.FAILED]
    assert result.benchmark_id == "adder"
    files = result.experiment.files
    assert files["autobench.yaml"] == hashlib.sha256(spec_file.read_bytes()).hexdigest()
    assert f"{module}.py" in files
    assert sink.calls[0] == "start" and sink.calls[-1] == "finish"


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
