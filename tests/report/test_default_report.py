"""The default report (no ``report`` section) answers the first questions: pass rate,
latency, tokens and cost per variant, the best variant of each marked; a comparison gives
deltas relative to the baseline. Built from a real run of a small benchmark whose values
are known exactly."""

from __future__ import annotations

import re

import pytest
from report_support import RunBench
from rich.console import Console

from autobench.records import Direction, ExperimentResult
from autobench.report import build_report, compare_variants, render_comparison, render_report

# small: latency 10, 20, 30, 50 ms; big: three times that. The check fails for small's
# 50 ms case only, so small passes 3 of 4 runs and big all 4. Cost is 0 for small.
USAGE_TASK = """
def run(ctx, case):
    size = ctx.factor("size")
    ctx.metric("latency", case.input["ms"] * size, semantic_type="time.latency", unit="ms")
    ctx.metric("prompt", 100 * size, semantic_type="llm.tokens.input", unit="tokens")
    ctx.metric("completion", 10 * size + case.input["extra"],
               semantic_type="llm.tokens.output", unit="tokens")
    ctx.metric("cost", 0.002 * (size - 1), semantic_type="money.cost", unit="usd")
    ctx.metric("quality", 0.25 * size, semantic_type="quality.score",
               direction="maximize", role="objective")
    ctx.check("fast_enough", case.input["ms"] < 40 or size > 1)
    return {}
"""
CASES = [
    {"id": f"c{index}", "input": {"ms": ms, "extra": index}}
    for index, ms in enumerate((10, 20, 30, 50))
]
VARIANTS = [{"id": "small", "factors": {"size": 1}}, {"id": "big", "factors": {"size": 3}}]


@pytest.fixture
def usage(run_bench: RunBench) -> ExperimentResult:
    return run_bench(USAGE_TASK, cases=CASES, variants=VARIANTS)


def _text(renderable: object, width: int = 80) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def _row(text: str, label: str) -> list[tuple[bool, float]]:
    """The cells of the first row headed ``label`` (the leaderboard's, printed before the
    comparison): (marked best, number) per variant."""
    line = next(line for line in text.splitlines() if line.strip().startswith(label))
    cells = re.findall(r"(\* )?([-+]?\d+(?:\.\d+)?)", line.strip()[len(label) :])
    return [(bool(mark), float(number)) for mark, number in cells]


def test_default_leaderboard_has_pass_rate_latency_tokens_and_cost(
    usage: ExperimentResult,
) -> None:
    board = build_report(usage).leaderboard
    rows = {row.variant: row for row in board.rows}
    assert rows["small"].pass_rate is not None and rows["big"].pass_rate is not None
    assert (rows["small"].pass_rate.value, rows["big"].pass_rate.value) == (0.75, 1.0)
    expected: dict[str, dict[str, float]] = {
        # p95: linear interpolation at rank 0.95 * (4 - 1) = 2.85 of the sorted values
        "latency median": {"small": 0.025, "big": 0.075},
        "latency p95": {"small": 0.047, "big": 0.141},
        "input tokens mean": {"small": 100, "big": 300},
        "output tokens mean": {"small": 11.5, "big": 31.5},
        "cost mean": {"small": 0.0, "big": 0.004},
        "cost total": {"small": 0.0, "big": 0.016},
    }
    for name, values in expected.items():
        for variant, value in values.items():
            assert rows[variant].metrics[name].value == pytest.approx(value), (name, variant)
    units = {column.name: column.unit for column in board.columns}
    assert units["latency p95"] == "s" and units["cost total"] == "usd"

    text = _text(render_report(build_report(usage), runs="none"))
    assert _row(text, "pass rate (%)") == [(False, 75.0), (True, 100.0)]
    assert _row(text, "latency median (ms)") == [(True, 25.0), (False, 75.0)]
    assert _row(text, "latency p95 (ms)") == [(True, 47.0), (False, 141.0)]
    assert _row(text, "output tokens mean") == [(True, 11.5), (False, 31.5)]
    assert _row(text, "cost total (USD)") == [(True, 0.0), (False, 0.016)]


def test_columns_without_recorded_values_are_left_out(run_bench: RunBench) -> None:
    result = run_bench(
        "def run(ctx, case):\n    ctx.check('ok', True)\n    return {}\n",
        cases=CASES[:2],
        variants=VARIANTS,
    )
    board = build_report(result).leaderboard
    assert [column.name for column in board.columns] == ["quality.correctness"]
    text = _text(render_report(build_report(result), runs="none"))
    for absent in ("latency", "tokens", "cost"):
        assert absent not in text
    # every variant passed everything: nothing stands out, so nothing is marked
    assert board.best == {} and board.best_pass_rate == ()
    assert "best variant" not in text


def test_best_follows_the_direction_of_each_metric(usage: ExperimentResult) -> None:
    board = build_report(usage).leaderboard
    directions = {column.name: column.direction for column in board.columns}
    assert directions["latency p95"] is Direction.MINIMIZE  # built in for time.latency
    assert directions["quality.score"] is Direction.MAXIMIZE  # declared by the metric
    assert board.best_pass_rate == ("big",)
    assert board.best["quality.score"] == ("big",)  # higher is better
    assert board.best["latency median"] == ("small",)  # lower is better
    assert board.best["cost mean"] == ("small",)
    assert board.best["input tokens mean"] == ("small",)
    text = _text(render_report(build_report(usage), runs="none"))
    assert _row(text, "mean quality.score") == [(False, 0.25), (True, 0.75)]
    legend = " ".join(text[text.index("* best variant per metric") :].split())
    assert "higher is better: pass rate, quality.score, quality.correctness;" in legend
    assert (
        "lower is better: latency median, latency p95, input tokens mean, output tokens mean, cost mean, cost total"
        in legend
    )


def test_compare_shows_relative_deltas_and_n_a_for_a_zero_baseline(
    usage: ExperimentResult,
) -> None:
    comparison = compare_variants(usage, "small", "big")
    metrics = {metric.name: metric for metric in comparison.metrics}
    assert metrics["latency median"].delta == pytest.approx(0.05)
    assert metrics["latency median"].relative == pytest.approx(2.0)
    assert metrics["cost mean"].delta == pytest.approx(0.004)
    assert metrics["cost mean"].relative is None  # the baseline cost is 0
    text = _text(render_comparison(comparison))
    assert re.search(r"latency median \(ms\)\s+25\s+75\s+\+50\s+\+200\.0%", text)
    assert re.search(r"cost mean \(USD\)\s+0\.00000\s+0\.00400\s+\+0\.00400\s+n/a", text)
    assert re.search(r"output tokens mean\s+11\.5\s+31\.5\s+\+20\.0\s+\+173\.9%", text)
    backwards = _text(render_comparison(compare_variants(usage, "big", "small")))
    assert re.search(r"latency median \(ms\)\s+75\s+25\s+-50\s+-66\.7%", backwards)
    assert re.search(r"cost mean \(USD\)\s+0\.00400\s+0\.00000\s+-0\.00400\s+-100\.0%", backwards)


def test_a_column_keeps_one_notation() -> None:
    from autobench.report._display import number_format

    shown = number_format([3.185e-05, 0.0003343, 0.002572], "usd")
    assert shown.unit == "USD"
    texts = [shown.text(value) for value in (3.185e-05, 0.0003343, 0.002572)]
    assert texts == ["0.0000319", "0.0003343", "0.0025720"]
    seconds = number_format([0.2594, 2.659], "s")
    assert (seconds.unit, seconds.text(0.2594), seconds.text(2.659)) == ("s", "0.259", "2.659")
    millis = number_format([0.0121, 0.5], "s")
    assert (millis.unit, millis.text(0.0121), millis.text(0.5)) == ("ms", "12.1", "500.0")
