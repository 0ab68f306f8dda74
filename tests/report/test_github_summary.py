"""``autobench export DIR --format github``: the compact summary for a step summary or a
pull-request comment, over real records written by ``autobench run``: regressions first,
deltas with intervals, cost and latency, policies, flaky cases, failed runs, artifact names;
the comparison form against a baseline record; valid tables and the size limit on a
10,000-run record with many metrics."""

from __future__ import annotations

import dataclasses
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from markdown_tables import check_tables
from report_support import RunBench, scaled

from autobench.cli import cli
from autobench.report import build_report, exporter_registry
from autobench.report._export_github import SUMMARY_LIMIT

# Twelve cases, two variants, two repeats. `cand` scores 0.4 lower on every case, costs four
# times as much and errors on c5; `base` fails c7 in its second repeat only (the flaky case).
TASK = """
QUALITY = {quality}


def run_case(ctx, case):
    repeat = int(ctx.run_id.rsplit("_r", 1)[1]) if "_r" in ctx.run_id[-4:] else 1
    model = ctx.factor("model")
    index = case.input
    if model == "cand" and index == 5:
        raise RuntimeError("upstream | timeout\\nafter 30 s")
    quality = QUALITY - (0.4 if model == "cand" else 0.0) + (index % 3) / 100
    ctx.metric("quality", quality, semantic_type="quality.score", role="objective")
    ctx.metric("cost", 0.001 if model == "base" else 0.004, semantic_type="money.cost", unit="usd")
    ctx.metric("latency", 100 + index, semantic_type="time.latency", unit="ms")
    ok = not (model == "base" and index == 7 and repeat == 2)
    ctx.metric("ok", ok, semantic_type="result.success", role="constraint")
    return {{"quality": quality}}
"""

SPEC = """\
benchmark:
  summary-demo:
    cases:
{cases}
    run:
      python: {module}:run_case
    variants:
      base: {{factors: {{model: base}}}}
      cand: {{factors: {{model: cand}}}}
    repeat: 2
    policies:
      - name: quality-floor
        metric: quality.score
        must_greater_equal: 0.6
    report:
      compare:
        base -> cand:
          show:
            quality: {{metric: quality.score, aggregate: mean}}
            cost: {{metric: money.cost, aggregate: mean}}
"""


def _cli(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def _record(where: Path, name: str, quality: float) -> Path:
    """Write the benchmark with ``QUALITY = quality`` into ``where`` and record it in
    ``where / name``."""
    module = "summary_task"
    source = where / f"{name}-src"
    source.mkdir()
    (source / f"{module}.py").write_text(TASK.format(quality=quality))
    cases = "\n".join(f"      - {{id: c{i}, input: {i}}}" for i in range(12))
    spec = source / "autobench.yaml"
    spec.write_text(SPEC.format(cases=cases, module=module))
    try:
        _cli("run", str(spec), "--record", str(where / name), "--no-progress")
    finally:
        sys.modules.pop(module, None)
    return where / name


def _summary(record: Path, *options: str) -> str:
    target = record.parent / f"{record.name}-summary.md"
    args = [f"--export-option={item}" for item in options]
    _cli("export", str(record), "--format", "github", "--path", str(target), *args)
    return target.read_text()


@pytest.fixture
def main_record(tmp_path: Path) -> Path:
    return _record(tmp_path, "main", 0.9)


def test_regressions_come_first_then_deltas_cost_latency_policies_flaky_and_failures(
    main_record: Path,
) -> None:
    text = _summary(main_record)
    assert check_tables(text) >= 4
    lines = text.splitlines()
    assert lines[0] == "## :x: summary-demo"
    assert "**48** of 48 planned runs: 23 passed, 23 failed, 2 errored, 0 skipped" in text
    sections = [line for line in lines if line.startswith("### ")]
    assert sections == [
        "### :warning: 2 regressions",
        "### Headline",
        "### Deltas",
        "### Cost and latency",
        "### Policies",
        "### Flaky cases (1)",
        "### Runs that did not pass (25)",
    ]
    start = lines.index("### :warning: 2 regressions")
    assert lines[start + 2].startswith("- base -\\> cand: quality regressed (")
    assert lines[start + 3].startswith("- base -\\> cand: cost regressed (")
    deltas = lines[lines.index("### Deltas") + 4 :]
    first = deltas[2].split(" | ")
    assert first[:2] == ["| base -> cand", "quality.score (mean)"]
    assert first[4:] == ["-0.4 (-44.0%)", "exact", "-", "REGRESSED (regressed (exact)) |"]
    cost = lines[lines.index("### Cost and latency") + 4 : lines.index("### Cost and latency") + 6]
    assert cost == [
        "| base | 24 | 96% | 0.024 | 0.001 | 0.1055 | 0.1109 |",
        "| cand | 24 | 0% | 0.088 | 0.004 | 0.106 | 0.111 |",
    ]
    assert "| quality-floor | 24/24 | 0/22 |" in text
    assert "- `c7` on `base`: passed 1 of 2 repeats" in text
    failures = lines.index("### Runs that did not pass (25)")
    assert lines[failures + 4] == (
        "| c5 | cand | errored | 2 | RuntimeError: upstream \\| timeout<br>after 30 s |"
    )
    assert lines[failures + 5] == (
        "| c0 | cand | failed | 2 | constraint quality-floor failed: quality.score = 0.5, "
        "expected >= 0.6 |"
    )
    assert "| c7 | base | failed | 1 | constraint ok failed |" in lines
    assert lines[-1] == (
        "Full report: artifact `autobench-report`; record: artifact `autobench-record` of this "
        "workflow run. `autobench report DIR` shows the record again."
    )


def test_artifact_names_and_link_are_options(main_record: Path) -> None:
    text = _summary(
        main_record,
        "html-artifact=bench-html",
        "record-artifact=bench-record",
        "artifacts-url=https://github.com/o/r/actions/runs/1",
    )
    assert text.splitlines()[-1].startswith(
        "Full report: artifact `bench-html`; record: artifact `bench-record` of "
        "[this workflow run](<https://github.com/o/r/actions/runs/1>)."
    )


def test_against_a_baseline_record_the_pull_request_regression_is_named(
    main_record: Path,
) -> None:
    candidate = _record(main_record.parent, "pr", 0.5)
    text = _summary(candidate, f"baseline={main_record}")
    check_tables(text)
    lines = text.splitlines()
    assert "### Against the baseline" in lines
    start = lines.index("### :warning: 2 regressions")
    found = lines[start + 2 : lines.index("", start + 2)]
    # base and cand both lost 0.4 against main; that cand still trails base within the
    # run is the spec's own comparison, shown in the deltas, not a regression of the change
    assert [line.split(":")[0] for line in found] == [
        "- baseline/base -\\> candidate/base",
        "- baseline/cand -\\> candidate/cand",
    ]
    assert "Changed since the baseline: `summary_task.py`." in lines
    headline = lines[lines.index("### Headline") + 2 : lines.index("### Deltas") - 1]
    assert headline[:2] == [
        "- **baseline/base -\\> candidate/base (12 paired cases, 95% intervals)**: "
        "quality.score -0.40 on every case regressed",
        "- **baseline/base -\\> candidate/base (12 paired cases, 95% intervals)**: "
        "no change on any case in result.success, cost, latency",
    ]


def test_a_missing_baseline_and_unknown_options_are_refused(main_record: Path) -> None:
    target = main_record.parent / "s.md"
    base = ["export", str(main_record), "--path", str(target)]
    unknown = CliRunner().invoke(cli, [*base, "--format", "github", "--export-option", "colour=1"])
    assert unknown.exit_code == 2
    assert "has no option colour; it takes artifacts-url, baseline, html-artifact" in " ".join(
        unknown.output.split()
    )
    none = CliRunner().invoke(cli, [*base, "--format", "markdown", "--export-option", "a=b"])
    assert none.exit_code == 2 and "takes no export options" in none.output
    missing = CliRunner().invoke(
        cli, [*base, "--format", "github", "--export-option", f"baseline={target.parent / 'x'}"]
    )
    # The panel wraps the message where the temporary path's length puts the line ends.
    unwrapped = " ".join(missing.output.replace("│", " ").split())
    assert missing.exit_code == 1 and "is not a record directory" in unwrapped
    assert not target.exists()


MANY_METRICS = 40

WIDE_TASK = f"""
def run(ctx, case):
    i = case.input["i"]
    shift = 0.3 if ctx.factor("model") == "b" else 0.0
    for m in range({MANY_METRICS}):
        ctx.metric(f"m{{m}}", (i * (m + 1)) % 17 / 17 + shift, semantic_type=f"quality.m{{m:02d}}",
                   direction="maximize", role="objective")
    ctx.metric("cost", 0.001, semantic_type="money.cost", unit="usd")
    ctx.metric("latency", 120 + i, semantic_type="time.latency", unit="ms")
    if i % 5 == 0:
        raise ValueError("bad | row " * 40)
    return {{}}
"""


def test_ten_thousand_runs_with_forty_metrics_stay_under_the_limit(run_bench: RunBench) -> None:
    cases = [{"id": f"c{i}", "input": {"i": i}} for i in range(40)]
    variants = [{"id": "a", "factors": {"model": "a"}}, {"id": "b", "factors": {"model": "b"}}]
    reports = {"comparisons": [{"baseline": "a", "candidate": "b"}]}
    small = run_bench(textwrap.dedent(WIDE_TASK), cases=cases, variants=variants, reports=reports)
    result = scaled(small, 10_000)
    report = build_report(result)
    text = exporter_registry().get("github").export(report, result)
    assert isinstance(text, str)
    assert len(text) <= SUMMARY_LIMIT
    check_tables(text)
    assert "### Runs that did not pass (2,000)" in text
    assert "_1,975 more rows are in the HTML report._" in text  # one row per run: no repeats
    # every metric improved by 0.3: the deltas table is full and says how many more
    assert "more rows are in the HTML report._" in text.split("### Deltas")[1].split("###")[0]
    small_limit = dataclasses.replace(
        exporter_registry().get("github").settings,  # type: ignore[attr-defined]
        limit=4_000,
    )
    from autobench.report._export_github import render_github

    short = render_github(report, result, small_limit)
    assert len(short) <= 4_000
    check_tables(short)
    assert short.splitlines()[-1].startswith("Full report: artifact `autobench-report`")
