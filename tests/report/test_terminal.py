"""The terminal status view explains why runs did not pass."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.console import Console

from autobench import BenchmarkSpec, run_benchmark_spec
from autobench.report import (
    build_report,
    render_experiment_overview,
    render_report,
    render_status_table,
)


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


def test_500_cases_are_summarised_and_fit_80_columns(tmp_path: Path) -> None:
    (tmp_path / "many_task.py").write_text(
        "def run(ctx, case):\n"
        "    with ctx.span('work', kind='tool'):\n"
        "        ctx.metric('size', case.input['n'], semantic_type='workload.size', role='objective')\n"
        "    ctx.check('even', case.input['n'] % 7 != 0 or ctx.factor('lenient'))\n"
        "    return {'value': case.input['n']}\n"
    )
    spec = BenchmarkSpec(
        benchmark={"id": "many"},
        dataset={
            "cases": [{"id": f"case-{index:03d}", "input": {"n": index}} for index in range(500)]
        },
        variants=[
            {"id": "strict", "factors": {"lenient": False}},
            {"id": "lenient", "factors": {"lenient": True}},
        ],
        task={"target": "many_task:run"},
        scoring=[
            {"kind": "output", "name": "value", "path": "output.value", "semantic": "quality.score"}
        ],
        base_dir=tmp_path,
    )
    result = asyncio.run(run_benchmark_spec(spec))
    console = Console(width=80, record=True, color_system=None)
    console.print(render_report(build_report(result)))
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= 80
    assert len(lines) < 400
    text = " ".join(" ".join(lines).split())
    assert "980 more runs not shown" in text
    assert "500 cases: 72 differ between variants, 20 shown" in text


def test_user_text_is_never_read_as_rich_markup(tmp_path: Path) -> None:
    (tmp_path / "markup_task.py").write_text(
        "def run(ctx, case):\n    ctx.metric('t', 5, semantic_type='time.latency', unit='ms', role='objective')\n    return {}\n"
    )
    spec = BenchmarkSpec(
        benchmark={"id": "markup"},
        dataset={"cases": [{"id": "[bold]case[/bold]"}]},
        variants=[{"id": "[red]v"}],
        task={"target": "markup_task:run"},
        base_dir=tmp_path,
    )
    result = asyncio.run(run_benchmark_spec(spec))
    text = _render(render_report(build_report(result)))
    assert "[bold]case[/bold]" in text and "[red]v" in text
    assert "time.latency [s]" in text
