"""Aggregates that mean their names, directions from the catalog and reliability over
repeats, on a real ``repeat: 3`` experiment whose figures are known by hand.

Five cases, two variants, three repeats each (30 runs). Every ``swift`` run costs $0.00019
and every ``sage`` run $0.002. ``sage`` passes every run; ``swift`` fails case ``hard`` in
all three repeats and case ``flaky`` in its second. So, by hand:

* swift spent 15 x 0.00019 = $0.00285 (``cost total``); one pass over the five cases costs
  5 x 0.00019 = $0.00095 (``cost per pass``); sage $0.03 and $0.01;
* per case, swift passes 3, 2, 0, 3, 3 of 3 runs: pass@3 = 1, 1, 0, 1, 1 (mean 0.8) and
  pass^3 = 1, 0, 0, 1, 1 (mean 0.6); case ``flaky`` is the one flaky case;
* the Wilson 95 % interval of 4 of 5 is [0.3755, 0.9638], of 3 of 5 [0.2307, 0.8824], of 5
  of 5 [0.5655, 1] (z = 1.959964).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.cli import cli
from autobench.records import Direction, replay_experiment
from autobench.report import build_reliability, build_report
from autobench.report._export_markdown import render_markdown
from autobench.report._export_yaml import render_sections, report_document
from autobench.report._html import render_html
from autobench.report._reliability import pass_at_k, pass_hat_k, wilson_interval

TASK = """\
COST = {"swift": 0.00019, "sage": 0.002}


def run_case(ctx, case):
    repeat = int(ctx.run_id.rsplit("_r", 1)[1]) if "_r" in ctx.run_id[-4:] else 1
    model = ctx.factor("model")
    ok = not (model == "swift" and (case.id == "hard" or (case.id == "flaky" and repeat == 2)))
    ctx.metric("cost", COST[model], semantic_type="money.cost")
    ctx.metric("correct", 1.0 if ok else 0.0, semantic_type="quality.correctness", role="objective")
    ctx.metric("ok", ok, semantic_type="result.success", role="constraint")
    return None
"""

SPEC = """\
benchmark:
  rel:
    cases:
      - {id: easy, input: 1}
      - {id: flaky, input: 2}
      - {id: hard, input: 3}
      - {id: plain, input: 4}
      - {id: calm, input: 5}
    run:
      python: rel_task:run_case
    variants:
      swift: {factors: {model: swift}}
      sage: {factors: {model: sage}}
    repeat: 3
"""

WIDE = {"COLUMNS": "200"}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The experiment's record directory and ``autobench run``'s closing output."""
    root = tmp_path_factory.mktemp("repeats")
    (root / "rel_task.py").write_text(TASK, encoding="utf-8")
    (root / "autobench.yaml").write_text(SPEC, encoding="utf-8")
    out = root / "out"
    ran = CliRunner(env=WIDE).invoke(
        cli, ["run", str(root / "autobench.yaml"), "--record", str(out), "--no-progress"]
    )
    assert ran.exit_code == 0, ran.output
    return out, ran.output


def _row(text: str, label: str) -> list[str]:
    return next(line for line in text.splitlines() if line.startswith(label)).split()


def test_cost_total_is_what_every_run_spent(recorded: tuple[Path, str]) -> None:
    out, closing = recorded
    report = build_report(replay_experiment(out))
    rows = {row.variant: row for row in report.leaderboard.rows}
    total = rows["swift"].metrics["cost total"]
    assert total.value == pytest.approx(0.00285)
    assert (total.n, total.total) == (15, 15)  # runs, not cases
    per_pass = rows["swift"].metrics["cost per pass"]
    assert per_pass.value == pytest.approx(0.00095)
    assert (per_pass.n, per_pass.total) == (5, 5)  # cases
    assert rows["sage"].metrics["cost total"].value == pytest.approx(0.03)
    assert rows["sage"].metrics["cost per pass"].value == pytest.approx(0.01)
    # the mean per run is unchanged by the choice: every case has 3 repeats
    assert rows["swift"].metrics["cost mean"].value == pytest.approx(0.00019)

    (comparison,) = report.comparisons
    cost = next(metric for metric in comparison.metrics if metric.name == "cost total")
    assert cost.baseline.value == pytest.approx(0.00285)
    assert cost.candidate.value == pytest.approx(0.03)
    assert cost.delta == pytest.approx(0.02715)

    # every view says the same: the run's closing output, report, compare, exports
    for text in (closing, CliRunner(env=WIDE).invoke(cli, ["report", str(out)]).output):
        assert _row(text, "cost total")[-4:] == [
            "*",
            "0.00285",
            "0.03000",
        ] or "0.00285" in " ".join(_row(text, "cost total"))
        assert "0.000950" in " ".join(_row(text, "cost per pass"))
    compared = CliRunner(env=WIDE).invoke(
        cli, ["compare", str(out), "--baseline", "swift", "--candidate", "sage"]
    )
    assert compared.exit_code == 0, compared.output
    assert "0.00285" in " ".join(_row(compared.output, "cost total"))
    document = report_document(report)
    swift_metrics = document["leaderboard"]["swift"]["metrics"]
    assert swift_metrics["cost total"]["aggregate"] == "sum"
    assert (swift_metrics["cost total"]["value"], swift_metrics["cost total"]["n"]) == (
        pytest.approx(0.00285),
        15,
    )
    assert swift_metrics["cost per pass"]["aggregate"] == "per_pass"
    assert swift_metrics["cost per pass"]["value"] == pytest.approx(0.00095)
    assert "value: 0.00285\n" in render_sections(document)
    markdown = render_markdown(report)
    assert "0.00285" in markdown and "cost per pass" in markdown


def test_without_repeats_there_is_no_per_pass_column(tmp_path: Path) -> None:
    (tmp_path / "rel_task.py").write_text(TASK, encoding="utf-8")
    (tmp_path / "autobench.yaml").write_text(SPEC.replace("    repeat: 3\n", ""), encoding="utf-8")
    out = tmp_path / "out"
    ran = CliRunner().invoke(
        cli, ["run", str(tmp_path / "autobench.yaml"), "--record", str(out), "--no-progress"]
    )
    assert ran.exit_code == 0, ran.output
    report = build_report(replay_experiment(out))
    assert [column.name for column in report.leaderboard.columns][-2:] == [
        "cost mean",
        "cost total",
    ]
    swift = report.leaderboard.rows[0]
    assert swift.metrics["cost total"].value == pytest.approx(0.00095)
    assert report.reliability is None


def test_the_quality_score_gets_its_winner_from_the_catalog(recorded: tuple[Path, str]) -> None:
    out, closing = recorded
    report = build_report(replay_experiment(out))
    columns = {column.name: column for column in report.leaderboard.columns}
    # no scorer or metric says `goal`: the direction comes from the semantic catalog
    assert columns["quality.correctness"].direction is Direction.MAXIMIZE
    assert columns["result.success"].direction is Direction.MAXIMIZE
    assert columns["cost total"].direction is Direction.MINIMIZE
    assert report.leaderboard.best["quality.correctness"] == ("sage",)
    assert report.leaderboard.best["cost per pass"] == ("swift",)
    marked = " ".join(_row(closing, "mean quality.correctness"))
    assert "* 1.000" in marked and "* 0.733" not in marked  # the mark is on sage's value


def test_reliability_over_repeats(recorded: tuple[Path, str]) -> None:
    out, _ = recorded
    report = build_report(replay_experiment(out))
    reliability = report.reliability
    assert reliability is not None and reliability.k == 3 and reliability.level == 0.95
    swift, sage = reliability.variants
    assert (swift.variant, swift.cases) == ("swift", 5)
    assert swift.pass_at_k == pytest.approx(0.8)
    assert (swift.pass_at_k_low, swift.pass_at_k_high) == pytest.approx((0.3755, 0.9638), abs=1e-4)
    assert swift.pass_hat_k == pytest.approx(0.6)
    assert (swift.pass_hat_k_low, swift.pass_hat_k_high) == pytest.approx(
        (0.2307, 0.8824), abs=1e-4
    )
    assert swift.flaky == ("flaky",) and swift.short == ()
    by_case = {case.case: case for case in swift.by_case}
    assert (by_case["flaky"].passed, by_case["flaky"].runs) == (2, 3)
    assert (by_case["flaky"].pass_at_k, by_case["flaky"].pass_hat_k) == (1.0, 0.0)
    assert (by_case["hard"].pass_at_k, by_case["hard"].pass_hat_k, by_case["hard"].flaky) == (
        0.0,
        0.0,
        False,
    )
    assert (sage.pass_at_k, sage.pass_hat_k, sage.flaky) == (1.0, 1.0, ())
    assert sage.pass_hat_k_low == pytest.approx(0.5655, abs=1e-4)

    shown = CliRunner(env=WIDE).invoke(cli, ["report", str(out), "--runs", "none"]).output
    assert "Reliability over repeats (k = 3; 95% Wilson intervals over cases)" in shown
    section = shown.split("Reliability over repeats")[1]
    assert _row(section, "swift ")[:6] == ["swift", "5", "0.800", "[0.376,", "0.964]", "0.600"]
    assert "swift: flaky (passed in some repeats, not in others): flaky" in shown
    assert _row(shown, "flaky   swift")[2:5] == ["2", "of", "3"]

    markdown = render_markdown(report)
    assert "| swift | 5 | 0.800 | [0.376, 0.964] | 0.600 | [0.231, 0.882] |" in markdown
    exported = render_sections(report_document(report))
    assert "reliability:" in exported and "flaky:\n" in exported
    assert "- flaky" in exported

    page = render_html(report, replay_experiment(out))
    section = page.split('<section id="reliability">')[1].split("</section>")[0]
    cells = [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td[^>]*>.*?</td>", section)]
    assert cells[:6] == ["swift", "5", "0.800", "[0.376, 0.964]", "0.600", "[0.231, 0.882]"]
    assert "swift: flaky (passed in some repeats, not in others): flaky" in section
    assert page.index('id="headline"') < page.index('id="reliability"')


def test_fail_on_pass_hat_k(recorded: tuple[Path, str]) -> None:
    out, _ = recorded
    runner = CliRunner(env=WIDE)
    tripped = runner.invoke(cli, ["report", str(out), "--runs", "none", "--fail-on", "pass^k<0.9"])
    assert tripped.exit_code == 3
    assert "swift: pass^3 0.600 < 0.9" in tripped.output and "sage:" not in tripped.output
    held = runner.invoke(cli, ["report", str(out), "--runs", "none", "--fail-on", "pass^k<0.6"])
    assert held.exit_code == 0, held.output  # 0.6 is not below 0.6
    both = runner.invoke(
        cli, ["report", str(out), "--runs", "none", "--fail-on", "errored, pass^k < 0.5"]
    )
    assert both.exit_code == 0, both.output
    for wrong in ("pass^k<2", "pass^k<x", "pass^k>0.9"):
        refused = runner.invoke(cli, ["report", str(out), "--fail-on", wrong])
        assert refused.exit_code == 2, (wrong, refused.output)
    assert "pass^k<FLOOR" in runner.invoke(cli, ["report", "--help"]).output


def test_fail_on_pass_hat_k_on_run(tmp_path: Path) -> None:
    (tmp_path / "rel_task.py").write_text(TASK, encoding="utf-8")
    (tmp_path / "autobench.yaml").write_text(SPEC, encoding="utf-8")
    ran = CliRunner(env=WIDE).invoke(
        cli,
        [
            *("run", str(tmp_path / "autobench.yaml"), "--no-record", "--no-progress"),
            *("--fail-on", "pass^k<0.9"),
        ],
    )
    assert ran.exit_code == 3, ran.output
    assert "swift: pass^3 0.600 < 0.9" in ran.output


def test_estimators_by_hand() -> None:
    # Chen et al. 2021: 1 - C(n - c, k) / C(n, k)
    assert pass_at_k(5, 2, 3) == pytest.approx(1 - 1 / 10)
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(3, 0, 3) == 0.0 and pass_at_k(3, 1, 3) == 1.0
    # Yao et al. 2024: C(c, k) / C(n, k)
    assert pass_hat_k(5, 4, 3) == pytest.approx(4 / 10)
    assert pass_hat_k(5, 2, 3) == 0.0 and pass_hat_k(3, 3, 3) == 1.0
    assert pass_hat_k(10, 7, 1) == pytest.approx(0.7)
    with pytest.raises(ValueError, match="k <= n"):
        pass_at_k(2, 1, 3)
    # Wilson 1927: 0 of 10 -> [0, z^2 / (n + z^2)]
    z2 = 1.959964**2
    assert wilson_interval(0, 10) == pytest.approx((0.0, z2 / (10 + z2)), abs=1e-6)
    low, high = wilson_interval(4, 5)
    assert (low, high) == pytest.approx((0.3755, 0.9638), abs=1e-4)
    assert wilson_interval(4, 5, 0.99)[0] < low  # a higher level, a wider interval
    with pytest.raises(ValueError):
        wilson_interval(6, 5)


def test_a_smaller_k_uses_the_unbiased_estimators(recorded: tuple[Path, str]) -> None:
    out, _ = recorded
    swift = build_reliability(replay_experiment(out), k=2).variants[0]
    by_case = {case.case: case for case in swift.by_case}
    # flaky: 2 of 3 passed; pass^2 = C(2,2)/C(3,2) = 1/3; pass@2 = 1 - C(1,2)/C(3,2) = 1
    assert by_case["flaky"].pass_hat_k == pytest.approx(1 / 3)
    assert by_case["flaky"].pass_at_k == 1.0
    assert swift.pass_hat_k == pytest.approx((3 + 1 / 3) / 5)
    assert math.isclose(swift.pass_at_k or 0, 0.8)


def test_the_terminal_caps_long_case_lists(tmp_path: Path) -> None:
    """25 cases, every one flaky under ``swift``: the terminal shows 20 and says how many
    more; the YAML export keeps them all."""
    (tmp_path / "rel_task.py").write_text(
        TASK.replace('case.id == "flaky" and ', ""), encoding="utf-8"
    )
    cases = "".join(f"      - {{id: c{index:02d}, input: {index}}}\n" for index in range(25))
    spec = (
        SPEC.split("      - {id: easy")[0] + cases + SPEC.split("      - {id: calm, input: 5}\n")[1]
    )
    (tmp_path / "autobench.yaml").write_text(spec, encoding="utf-8")
    out = tmp_path / "out"
    ran = CliRunner(env=WIDE).invoke(
        cli, ["run", str(tmp_path / "autobench.yaml"), "--record", str(out), "--no-progress"]
    )
    assert ran.exit_code == 0, ran.output
    section = ran.output.split("Cases that did not pass every repeat")[1].split("Run metrics")[0]
    listed = [
        line.split()[0]
        for line in section.splitlines()
        if line.startswith("c") and " swift " in line
    ]
    assert listed == [f"c{index:02d}" for index in range(20)]
    assert "5 more not shown" in section
    assert "c19 and 5 more" in ran.output
    report = build_report(replay_experiment(out))
    assert report.reliability is not None
    assert len(report.reliability.variants[0].flaky) == 25
