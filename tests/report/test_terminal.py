"""The terminal status view explains why runs did not pass."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.console import Console

from autobench import BenchmarkSpec, run_benchmark_spec
from autobench.report import render_experiment_overview, render_status_table


def _render(renderable: object) -> str:
    console = Console(width=200, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_the_reason_is_the_failing_check_not_an_optional_scorer(tmp_path: Path) -> None:
    (tmp_path / "why_task.py").write_text(
        "def run(ctx, case):\n"
        "    if case.id == 'bad':\n"
        "        ctx.check('must', False, reason='it was wrong')\n"
        "    if case.id == 'boom':\n"
        "        raise RuntimeError('exploded')\n"
        "    return {}\n"
    )
    spec = BenchmarkSpec(
        benchmark={"id": "why"},
        dataset={"cases": [{"id": "good"}, {"id": "bad"}, {"id": "boom"}]},
        variants=[{"id": "v"}],
        task={"target": "why_task:run"},
        scoring=[{"kind": "output", "name": "opt", "path": "output.missing", "optional": True}],
        base_dir=tmp_path,
    )
    result = asyncio.run(run_benchmark_spec(spec))
    text = _render(render_status_table(result))
    assert "must: it was wrong" in text
    assert "task: RuntimeError: exploded" in text
    assert "MissingPathError" not in text
    overview = _render(render_experiment_overview(result))
    assert "passed 1  failed 1  errored 1  skipped 0" in overview
