"""Reports over repeats: each case's repeats are reduced to one value before aggregating over
cases, and the spread between repeats is shown; without repeats nothing changes.

The task scores case ``noisy`` 0, 0, 9 over its three repeats (mean 3, standard deviation
sqrt(27) = 5.196) and case ``calm`` 1, 1, 1 (mean 1, deviation 0), under both variants
(``alt`` adds 1 to every value). By hand, for ``base``:

* median over per-case means (3, 1) = 2; over the six runs it would be 1;
* stddev over per-case means = sqrt(2) = 1.4142; over the runs it would be 3.5214;
* spread = mean of the per-case deviations (5.196, 0) = 2.598.
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.cli import cli
from autobench.core.runtime import run_benchmark_spec
from autobench.core.spec import load_benchmark_spec
from autobench.core.spec._models import MetricAggregation
from autobench.records import ExperimentResult, RecordDirectoryWriter, replay_experiment
from autobench.report import build_case_matrix, build_leaderboard, build_report, compare_variants
from autobench.report._export_yaml import render_sections, report_document

TASK = """\
NOISY = {1: 0, 2: 0, 3: 9}


def run_case(ctx, case):
    repeat = int(ctx.run_id.rsplit("_r", 1)[1]) if "_r" in ctx.run_id[-4:] else 1
    value = NOISY[repeat] if case.id == "noisy" else 1
    ctx.metric("score", value + ctx.factor("shift"), semantic_type="quality.score")
    return None
"""

SPEC = """\
benchmark:
  spread:
    cases:
      - {id: noisy, input: 1}
      - {id: calm, input: 2}
    run:
      python: spread_task:run_case
    variants:
      base: {factors: {shift: 0}}
      alt: {factors: {shift: 1}}
    report:
      leaderboard:
        show:
          med: {metric: quality.score, aggregate: median}
          sd: {metric: quality.score, aggregate: stddev}
          avg: {metric: quality.score, aggregate: mean}
          n: {metric: quality.score, aggregate: count}
"""


def report_to_yaml(result: ExperimentResult) -> str:
    return render_sections(report_document(build_report(result)))


def _record(root: Path, repeat: int) -> Path:
    (root / "spread_task.py").write_text(TASK, encoding="utf-8")
    text = SPEC if repeat == 1 else SPEC + f"    repeat: {repeat}\n"
    (root / "autobench.yaml").write_text(text, encoding="utf-8")
    out = root / "out"
    spec = load_benchmark_spec(root / "autobench.yaml")
    asyncio.run(run_benchmark_spec(spec, sink=RecordDirectoryWriter(out)))
    return out


@pytest.fixture
def repeated(tmp_path: Path) -> Path:
    return _record(tmp_path, 3)


def test_leaderboard_aggregates_per_case_first(repeated: Path) -> None:
    board = build_leaderboard(replay_experiment(repeated))
    base = next(row for row in board.rows if row.variant == "base")
    assert base.runs == 6
    assert base.metrics["med"].value == pytest.approx(2.0)
    assert (base.metrics["med"].n, base.metrics["med"].total) == (2, 2)  # cases
    assert base.metrics["sd"].value == pytest.approx(math.sqrt(2))
    assert base.metrics["avg"].value == pytest.approx(2.0)
    assert base.metrics["n"].value == 6  # count counts every run's value
    assert base.metrics["n"].spread is None
    spread = math.sqrt(27) / 2
    assert base.metrics["med"].spread == pytest.approx(spread)
    alt = next(row for row in board.rows if row.variant == "alt")
    assert alt.metrics["med"].value == pytest.approx(3.0)
    assert alt.metrics["avg"].spread == pytest.approx(spread)


def test_matrix_and_comparison_use_the_case_means(repeated: Path) -> None:
    result = replay_experiment(repeated)
    matrix = build_case_matrix(result, "quality.score")
    assert matrix is not None
    assert matrix.cells["noisy"]["base"].value == pytest.approx(3.0)
    assert matrix.cells["calm"]["alt"].value == pytest.approx(2.0)
    median = MetricAggregation(name="med", metric="quality.score", aggregate="median")
    comparison = compare_variants(result, "base", "alt", [median])
    assert comparison.paired_cases == ("noisy", "calm")
    (score,) = comparison.metrics
    assert (score.baseline.value, score.candidate.value) == (2.0, 3.0)
    assert score.delta == pytest.approx(1.0)
    assert (score.baseline.n, score.baseline.total) == (2, 2)
    assert score.baseline.spread == pytest.approx(math.sqrt(27) / 2)


def test_terminal_and_yaml_show_the_spread(repeated: Path) -> None:
    runner = CliRunner(env={"COLUMNS": "200"})
    shown = runner.invoke(cli, ["report", str(repeated)])
    assert shown.exit_code == 0, shown.output
    sd_row = next(line for line in shown.output.splitlines() if line.startswith("sd "))
    assert sd_row.split() == ["sd", "1.41", "\u00b12.60", "1.41", "\u00b12.60"]
    exported = report_to_yaml(replay_experiment(repeated))
    assert "repeat_spread: 2.598" in exported


def test_without_repeats_nothing_new(tmp_path: Path) -> None:
    out = _record(tmp_path, 1)
    board = build_leaderboard(replay_experiment(out))
    base = next(row for row in board.rows if row.variant == "base")
    assert (base.metrics["med"].value, base.metrics["med"].n, base.metrics["med"].total) == (
        0.5,
        2,
        2,
    )
    assert all(value.spread is None for value in base.metrics.values())
    shown = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["report", str(out)])
    assert shown.exit_code == 0 and "\u00b1" not in shown.output
    assert "repeat_spread" not in report_to_yaml(replay_experiment(out))
