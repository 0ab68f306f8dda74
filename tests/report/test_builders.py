"""Report builders over real tiny benchmarks: NaN scores, errored runs, units, confounding,
defaults and configuration."""

from __future__ import annotations

import pytest
from report_support import RunBench

from autobench.core.spec import ReportSpec
from autobench.records import RunStatus
from autobench.report import (
    UnknownVariantError,
    build_case_matrix,
    build_leaderboard,
    build_metric_distribution,
    build_report,
    build_run_metric_rows,
    compare_variants,
)
from autobench.report._format import number_text

QUALITY_TASK = """
def run(ctx, case):
    return {"q": case.input["q"]}
"""
QUALITY_SCORER = {
    "kind": "output",
    "name": "quality",
    "path": "output.q",
    "semantic": "quality.score",
}
TWO_VARIANTS = [
    {"id": "base", "factors": {"model": "a"}},
    {"id": "cand", "factors": {"model": "b"}},
]


def _cases(*values: float) -> list[dict[str, object]]:
    return [{"id": f"c{i}", "input": {"q": value}} for i, value in enumerate(values, 1)]


def test_nan_score_is_left_out_of_the_mean(run_bench: RunBench) -> None:
    result = run_bench(
        QUALITY_TASK, cases=_cases(0.5, float("nan"), 1.0), variants=TWO_VARIANTS,
        scoring=[QUALITY_SCORER],
    )  # fmt: skip
    report = build_report(result)
    (column,) = report.leaderboard.columns
    assert (column.semantic_type, column.fn) == ("quality.score", "mean")
    for row in report.leaderboard.rows:
        aggregate = row.metrics["quality.score"]
        assert (aggregate.value, aggregate.n, aggregate.total) == (0.75, 2, 3)
    (comparison,) = report.comparisons
    (metric,) = comparison.metrics
    assert (metric.baseline.value, metric.baseline.n, metric.delta) == (0.75, 2, 0.0)


def test_all_nan_scores_give_no_value(run_bench: RunBench) -> None:
    nan = float("nan")
    result = run_bench(
        QUALITY_TASK, cases=_cases(nan, nan, nan), variants=TWO_VARIANTS, scoring=[QUALITY_SCORER]
    )
    report = build_report(result)
    for row in report.leaderboard.rows:
        aggregate = row.metrics["quality.score"]
        assert (aggregate.value, aggregate.n, aggregate.total) == (None, 0, 3)
    comparison = compare_variants(result, "base", "cand")
    (metric,) = comparison.metrics
    assert metric.baseline.value is None and metric.candidate.value is None
    assert metric.delta is None
    assert all("quality.score" not in row.metrics for row in report.run_rows)


def test_every_function_over_no_values(run_bench: RunBench) -> None:
    nan = float("nan")
    result = run_bench(
        QUALITY_TASK, cases=_cases(nan, nan), variants=TWO_VARIANTS[:1], scoring=[QUALITY_SCORER]
    )
    functions = ("count", "mean", "sum", "min", "max", "median", "p95", "stddev", "geomean",
                 "ratio_true")  # fmt: skip
    spec = ReportSpec(
        leaderboard={
            "metrics": [
                {"name": fn, "metric": "quality.score", "aggregate": fn} for fn in functions
            ]
        }
    )
    (row,) = build_leaderboard(result, spec).rows
    for fn in functions:
        aggregate = row.metrics[fn]
        assert aggregate.n == 0 and aggregate.total == 2
        assert aggregate.value == (0 if fn == "count" else None), fn


ERRORING_TASK = """
def run(ctx, case):
    if case.id == "c2" and ctx.factor("model") == "b":
        raise RuntimeError("provider timeout")
    ctx.metric("latency", 0.1, semantic_type="time.latency", unit="s", role="objective")
    return {"q": case.input["q"]}
"""


def test_errored_run_in_matrix_and_comparison(run_bench: RunBench) -> None:
    result = run_bench(
        ERRORING_TASK, cases=_cases(0.2, 0.4, 0.6), variants=TWO_VARIANTS,
        scoring=[QUALITY_SCORER],
    )  # fmt: skip
    report = build_report(result)
    assert report.matrix is not None
    assert report.matrix.semantic_type == "time.latency"  # the first objective type recorded
    assert report.matrix.cells["c2"]["cand"].status is RunStatus.ERRORED
    matrix = build_case_matrix(result, "quality.score")
    assert matrix is not None
    cell = matrix.cells["c2"]["cand"]
    assert (cell.status, cell.value) == (RunStatus.ERRORED, None)
    assert matrix.cells["c2"]["base"].value == 0.4
    (comparison,) = report.comparisons
    assert comparison.paired_cases == ("c1", "c3")
    assert [(u.case, u.reason) for u in comparison.unpaired] == [("c2", "errored in candidate")]
    quality = next(m for m in comparison.metrics if m.semantic_type == "quality.score")
    assert quality.baseline.value == pytest.approx(0.4)  # paired cases only: (0.2 + 0.6) / 2
    assert (quality.baseline.n, quality.candidate.n, quality.candidate.total) == (2, 2, 2)
    errored = next(row for row in report.run_rows if row.status is RunStatus.ERRORED)
    assert errored.reason == "RuntimeError: provider timeout"
    assert errored.metrics == {}
    board = {row.variant: row for row in report.leaderboard.rows}
    assert board["cand"].metrics["quality.score"].n == 2
    assert board["cand"].metrics["quality.score"].total == 3


UNIT_TASK = """
def run(ctx, case):
    ctx.metric("latency", case.input["latency"], semantic_type="time.latency",
               unit=case.input["unit"], role="objective")
    ctx.metric("cost", case.input["cost"], semantic_type="money.cost",
               unit=case.input["currency"], role="objective")
    return None
"""


def test_values_are_converted_to_canonical_units(run_bench: RunBench) -> None:
    cases = [
        {"id": "fast", "input": {"latency": 500, "unit": "ms", "cost": 0.25, "currency": "usd"}},
        {"id": "slow", "input": {"latency": 1.5, "unit": "s", "cost": 0.75, "currency": "USD"}},
        {"id": "euro", "input": {"latency": 1.0, "unit": "s", "cost": 9.0, "currency": "eur"}},
    ]
    result = run_bench(UNIT_TASK, cases=cases, variants=TWO_VARIANTS[:1])
    report = build_report(result)
    (row,) = report.leaderboard.rows
    latency = row.metrics["time.latency"]
    assert latency.unit == "s"
    assert latency.value == pytest.approx((0.5 + 1.5 + 1.0) / 3)
    # the mean cost is one of the default report's cost columns, so it is shown once, there
    assert "money.cost" not in row.metrics
    cost = row.metrics["cost mean"]
    assert (cost.value, cost.n, cost.total, cost.unit) == (0.5, 2, 3, "usd")
    assert row.metrics["cost total"].value == 1.0
    (diagnostic,) = [text for text in report.diagnostics if "money.cost" in text]
    euro_run = next(run.run_id for run in result.runs if run.case_id == "euro")
    assert euro_run in diagnostic and "'eur'" in diagnostic and "'usd'" in diagnostic
    assert report.metric_units == {"time.latency": "s", "money.cost": "usd"}
    rows = {row.case_id: row for row in build_run_metric_rows(result)}
    assert rows["fast"].metrics["time.latency"] == 0.5
    assert "money.cost" not in rows["euro"].metrics


FACTOR_TASK = """
def run(ctx, case):
    return {"q": 1.0 if ctx.factor("model") == "b" else 0.5}
"""


def test_confounded_only_when_more_than_one_factor_changed(run_bench: RunBench) -> None:
    variants = [
        {"id": "base", "factors": {"model": "a", "temperature": 0}},
        {"id": "one", "factors": {"model": "b", "temperature": 0}},
        {"id": "two", "factors": {"model": "b", "temperature": 1}},
        {"id": "extra", "factors": {"model": "a", "temperature": 0, "cache": True}},
    ]
    result = run_bench(FACTOR_TASK, cases=_cases(0, 0), variants=variants, scoring=[QUALITY_SCORER])
    one = compare_variants(result, "base", "one")
    assert not one.confounded
    assert [(c.name, c.baseline, c.candidate) for c in one.changed_factors] == [("model", "a", "b")]
    assert one.metrics[0].delta == 0.5
    two = compare_variants(result, "base", "two")
    assert two.confounded
    assert [c.name for c in two.changed_factors] == ["model", "temperature"]
    extra = compare_variants(result, "base", "extra")
    assert [(c.name, c.only_in) for c in extra.changed_factors] == [("cache", "candidate")]
    assert not extra.confounded
    assert build_report(result).comparisons == ()  # four variants: no default comparison


def test_unknown_variant_names_the_known_ones(run_bench: RunBench) -> None:
    result = run_bench(
        QUALITY_TASK, cases=_cases(1.0), variants=TWO_VARIANTS, scoring=[QUALITY_SCORER]
    )
    with pytest.raises(UnknownVariantError, match=r"unknown variant 'nope'.*base, cand"):
        compare_variants(result, "base", "nope")
    assert issubclass(UnknownVariantError, ValueError)


CONFIGURED_TASK = """
def run(ctx, case):
    ctx.metric("latency", case.input["ms"], semantic_type="latency", unit="ms")
    ctx.check("format", case.input["ms"] < 300, reason="slower than 300 ms")
    return {"q": case.input["q"]}
"""


def test_recorded_configuration_drives_the_report(run_bench: RunBench) -> None:
    reports = {
        "leaderboard": {"metrics": [
            {"name": "pass_rate", "metric": "quality.correctness", "aggregate": "ratio_true"},
            {"name": "p95_latency", "metric": "time.latency", "aggregate": "p95"},
        ]},
        "matrix": {"metric": "time.latency"},
        "comparisons": [{"baseline": "cand", "candidate": "base", "metrics": [
            {"name": "avg_q", "metric": "quality.score", "aggregate": "mean"}]}],
        "distributions": [{"name": "lat", "semantic_type": "time.latency",
                           "summaries": ["min", "max", "count"]}],
    }  # fmt: skip
    cases = [
        {"id": "c1", "input": {"ms": 100, "q": 0.5}},
        {"id": "c2", "input": {"ms": 400, "q": 1}},
    ]
    result = run_bench(
        CONFIGURED_TASK, cases=cases, variants=TWO_VARIANTS, scoring=[QUALITY_SCORER],
        reports=reports,
    )  # fmt: skip
    report = build_report(result)
    assert [c.name for c in report.leaderboard.columns] == ["pass_rate", "p95_latency"]
    row = report.leaderboard.rows[0]
    assert row.metrics["pass_rate"].value == 0.5
    assert row.metrics["p95_latency"].value == pytest.approx(0.1 + 0.95 * 0.3)
    assert row.metrics["p95_latency"].unit == "s" and row.metrics["pass_rate"].unit is None
    assert report.matrix is not None and report.matrix.unit == "s"
    assert report.matrix.cells["c2"]["base"].value == pytest.approx(0.4)
    (comparison,) = report.comparisons
    assert (comparison.baseline, comparison.candidate) == ("cand", "base")
    assert [m.name for m in comparison.metrics] == ["avg_q"]
    assert compare_variants(result, "cand", "base").metrics[0].name == "avg_q"
    (dist,) = report.distributions
    assert dist.variants["base"].values == pytest.approx((0.1, 0.4))
    assert dist.variants["base"].summaries["count"].value == 2
    failed = next(row for row in report.run_rows if row.status is RunStatus.FAILED)
    assert failed.reason == "constraint format failed: slower than 300 ms"
    standalone = build_metric_distribution(result, "time.latency", summaries=("max",))
    assert standalone.variants["cand"].summaries["max"].value == pytest.approx(0.4)
    matrix = build_case_matrix(result, "quality.score")
    assert matrix is not None and matrix.cells["c1"]["cand"].value == 0.5


OPTIONAL_TASK = """
def run(ctx, case):
    return {"q": 0.5}
"""


def test_optional_scorer_errors_are_not_a_reason(run_bench: RunBench) -> None:
    scoring = [
        QUALITY_SCORER,
        {"kind": "output", "name": "extra", "path": "output.missing", "optional": True},
        {"kind": "pass_fail", "name": "must", "path": "output.q"},
    ]
    result = run_bench(OPTIONAL_TASK, cases=_cases(0), variants=TWO_VARIANTS[:1], scoring=scoring)
    (row,) = build_run_metric_rows(result)
    assert row.status is RunStatus.PASSED and row.reason is None


def test_whole_numbers_read_as_integers() -> None:
    assert [number_text(v) for v in (246914.0, 10000.0, 0.000618, 1e15, 2.5)] == [
        "246914",
        "10000",
        "0.000618",
        "1e+15",
        "2.5",
    ]


def test_matrix_cells_alike_are_one_cell_and_values_keep_their_type(run_bench: RunBench) -> None:
    # Cells of the same status and value are one frozen object (a matrix of a million runs
    # holds a few cells); 1 and 1.0 and True stay apart, as they show differently.
    task = """
def run(ctx, case):
    return {"q": case.input["q"]}
"""
    result = run_bench(
        task, cases=_cases(1.0, 1.0, 1, True, 0.5, 1.0), variants=TWO_VARIANTS,
        scoring=[{**QUALITY_SCORER, "semantic": "quality.score"}],
    )  # fmt: skip
    matrix = build_case_matrix(result, "quality.score")
    assert matrix is not None
    cells = matrix.cells
    assert cells["c1"]["base"] is cells["c2"]["base"] is cells["c6"]["cand"]
    shown = {case: (type(cells[case]["base"].value), cells[case]["base"].value) for case in cells}
    assert shown == {
        "c1": (float, 1.0), "c2": (float, 1.0), "c3": (int, 1), "c4": (bool, True),
        "c5": (float, 0.5), "c6": (float, 1.0),
    }  # fmt: skip


def test_matrix_rows_of_equal_cells_are_one_row(run_bench: RunBench) -> None:
    # Cases whose runs give the same cells share one row; the cells are each run's
    # status and value, whatever the order the runs come in.
    task = """
def run(ctx, case):
    ctx.metric("size", case.input["n"] % 2, semantic_type="workload.size")
    return None
"""
    variants = [{"id": "a", "factors": {"m": 1}}, {"id": "b", "factors": {"m": 2}}]
    cases = [{"id": f"c{n}", "input": {"n": n}} for n in range(6)]
    result = run_bench(task, cases=cases, variants=variants)
    matrix = build_case_matrix(result, "workload.size")
    assert matrix is not None
    by_run = {(run.case_id, run.variant_id): run for run in result.runs}
    for case, row in matrix.cells.items():
        assert list(row) == ["a", "b"]
        for variant, cell in row.items():
            assert cell.status is by_run[case, variant].status
            assert cell.value == int(case[1:]) % 2
    assert matrix.cells["c0"] is matrix.cells["c2"] and matrix.cells["c1"] is matrix.cells["c3"]
    assert matrix.cells["c0"] is not matrix.cells["c1"]
