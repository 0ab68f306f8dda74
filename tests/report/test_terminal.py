"""The terminal status view explains why runs did not pass."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from rich.console import Console

from autobench import BenchmarkSpec, run_benchmark_spec
from autobench.report import (
    build_report,
    exporter_registry,
    render_experiment_overview,
    render_headline,
    render_report,
    render_status_table,
)
from autobench.report._headline_text import headline_lines, item_parts
from autobench.report._model import Headline, HeadlineComparison, HeadlineItem, Verdict


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


def test_each_policy_is_its_own_verdict_in_every_view(tmp_path: Path) -> None:
    (tmp_path / "policy_task.py").write_text(
        "def run(ctx, case):\n"
        "    ctx.metric('cost', case.input['cost'], semantic_type='money.cost', unit='usd')\n"
        "    ctx.outcome(case.input['ok'])\n"
        "    return {}\n"
    )
    spec = BenchmarkSpec(
        benchmark={"id": "policies"},
        dataset={
            "cases": [
                {"id": "cheap", "input": {"cost": 0.001, "ok": True}},
                {"id": "dear", "input": {"cost": 0.5, "ok": True}},
            ]
        },
        variants=[{"id": "v"}],
        task={"target": "policy_task:run"},
        policies=[
            {"name": "must-succeed", "metric": "result.success", "must_equal": True},
            {"name": "cost-cap", "metric": "money.cost", "must_less_equal": 0.01},
        ],
        base_dir=tmp_path,
    )
    result = asyncio.run(run_benchmark_spec(spec))
    report = build_report(result)
    assert [(p.name, p.passed, p.failed) for p in report.policies] == [
        ("must-succeed", {"v": 2}, {}),
        ("cost-cap", {"v": 1}, {"v": 1}),
    ]
    assert not [line for line in report.diagnostics if "policy.result" in line]
    assert "policy.result" not in report.metric_units
    dear = next(row for row in report.run_rows if row.case_id == "dear")
    assert dear.policies == {"must-succeed": True, "cost-cap": False}
    csv_text = exporter_registry().get("csv").export(report, result)
    assert "policy:must-succeed,policy:cost-cap" in csv_text.splitlines()[0]
    assert "cost-cap" in _render(render_report(report))


def _headline_with_a_note() -> Headline:
    note = (
        "the interval leaves out 0 but Holm's adjustment over the 5 metrics tested puts the "
        "p-value above 0.05"
    )
    items = (
        HeadlineItem(
            kind="quality",
            name="quality.correctness",
            semantic_type="quality.correctness",
            fn="mean",
            delta=0.33,
            ci_low=0.083,
            ci_high=0.59,
            level=0.95,
            verdict=Verdict.NO_DIFFERENCE,
            note=note,
        ),
        HeadlineItem(
            kind="cost",
            name="cost mean",
            semantic_type="money.cost",
            fn="mean",
            unit="usd",
            baseline=0.00019,
            candidate=0.002,
            delta=0.00181,
            ratio=0.002 / 0.00019,
            ci_low=0.00181,
            ci_high=0.00181,
            level=0.95,
            verdict=Verdict.REGRESSED,
        ),
    )
    comparison = HeadlineComparison(
        baseline="gpt-4o-mini-2024-07-18",
        candidate="o4-mini-high-2025-04-16",
        paired_cases=12,
        confounded=True,
        items=items,
    )
    return Headline(comparisons=(comparison,))


@pytest.mark.parametrize("width", [120, 100, 80, 60, 40])
def test_the_headline_breaks_only_between_its_parts(width: int) -> None:
    headline = _headline_with_a_note()
    console = Console(width=width, record=True, color_system=None)
    console.print(render_headline(headline))
    text = console.export_text()
    lines = text.splitlines()
    assert lines[0] == "Headline"
    assert max(len(line) for line in lines) <= width
    assert text.split() == ["Headline", *" ".join(headline_lines(headline)).split()]
    for item in headline.comparisons[0].items:
        parts = item_parts(item)
        for part in (parts.name, parts.change, parts.interval, parts.verdict):
            assert any(part in line for line in lines), (part, lines)


def test_an_empty_headline_prints_nothing() -> None:
    assert render_headline(Headline()) is None
