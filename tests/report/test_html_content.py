"""What the ``html`` export shows, read from the page's text and its embedded data: the
headline first in the shared wording, chart titles that name what they draw, delta charts
one per unit, each comparison row with its own statistics, the terminal's units, the case
matrix coloured by goal, constant metrics in one line, the embedded plotly bundle as
published, and the size of a 30-run page. The browser checks are in ``test_html_browser.py``."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import pytest
from html_fixtures import BASELINE, CANDIDATE, spec_runner, wide_result
from markupsafe import escape

from autobench.records import ExperimentResult
from autobench.report import build_report, exporter_registry
from autobench.report._headline_text import comparison_title, item_text, pareto_text
from autobench.report._model import Report
from autobench.report._plotly_bundle import PLOTLY_FILE, PLOTLY_SHA256, STATIC, plotly_js


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, ExperimentResult, str]:
    """The 30-run benchmark of ``html_fixtures``, its report and its page (run once)."""
    result = wide_result(spec_runner(tmp_path_factory.mktemp("wide")))
    report = build_report(result)
    return report, result, _page(report, result)


def _page(report: Report, result: ExperimentResult) -> str:
    content = exporter_registry().get("html").export(report, result)
    assert isinstance(content, str)
    return content


def _data(page: str) -> dict[str, Any]:
    found = re.search(r'id="report-data">(.*?)</script>', page, re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def _section(page: str, name: str) -> str:
    found = re.search(rf'<section id="{name}">(.*?)</section>', page, re.S)
    assert found is not None, name
    return found.group(1)


def _text(fragment: str) -> str:
    """The text of an HTML fragment, tags and ``<wbr>`` removed, entities left escaped."""
    return re.sub(r"<[^>]+>", "", fragment)


def test_headline_comes_first_in_the_shared_wording(
    wide: tuple[Report, ExperimentResult, str],
) -> None:
    report, _, page = wide
    headline = report.headline
    (comparison,) = headline.comparisons
    assert [item.kind for item in comparison.items] == ["quality", "cost", "latency"]
    assert page.index('<section id="headline">') < page.index('<section id="summary">')
    assert page.index('<section id="headline">') < page.index('<section id="leaderboard">')
    text = _section(page, "headline")
    level = comparison.items[0].level
    assert str(escape(comparison_title(comparison, level))) in text
    for item in comparison.items:
        assert f">{escape(item_text(item))}</li>" in text
    assert headline.pareto is not None and str(escape(pareto_text(headline.pareto))) in text
    # The wording itself: cost as a ratio with the change of a case, latency in ms.
    assert "cost x10.0 (+$0.0036 a case)" in text
    assert "latency +25 ms" in text


def test_every_chart_title_names_the_aggregate_it_draws(
    wide: tuple[Report, ExperimentResult, str],
) -> None:
    report, _, page = wide
    figures = _data(page)["figures"]
    board = report.leaderboard
    drawn = {figure["column"]: figure for figure in figures["intervals"]}
    assert set(drawn) == {column.name for column in board.columns}
    for column in board.columns:
        figure = drawn[column.name]
        assert f"{column.fn} of {column.semantic_type}" in figure["title"]
        # The bars are the leaderboard's own values (in the chart's unit), whatever the aggregate.
        factor = 1000.0 if column.semantic_type == "time.latency" else 1.0
        expected = [row.metrics[column.name].value for row in board.rows]
        assert figure["data"][0]["x"] == pytest.approx([v * factor for v in expected])  # type: ignore[operator]
        assert ("error_x" in figure["data"][0]) == (column.fn == "mean")
    total = drawn["cost total"]
    assert total["title"].startswith("cost total: sum of money.cost [USD]")
    # 15 runs a variant: the total is 15 times the mean.
    assert total["data"][0]["x"] == pytest.approx(
        [15 * x for x in drawn["cost per case"]["data"][0]["x"]]
    )
    for figure in figures["distributions"]:
        assert "distribution over runs per variant" in figure["title"]
    (scatter,) = figures["scatter"]
    assert scatter["title"].startswith("Mean quality.score against mean money.cost per variant")


def test_delta_charts_are_one_per_unit_with_each_rows_own_statistics(
    wide: tuple[Report, ExperimentResult, str],
) -> None:
    report, result, page = wide
    forests = _data(page)["figures"]["forest"]
    units = [figure["unit"] for figure in forests]
    assert sorted(units, key=str) == sorted(["USD", "ms", "tokens", None], key=str)
    for figure in forests:
        scale = f"metrics in {figure['unit']}" if figure["unit"] else "metrics without a unit"
        assert scale in figure["title"]
    by_unit = {figure["unit"]: figure["data"][0] for figure in forests}
    assert by_unit["ms"]["x"] == pytest.approx([25.0, 25.0])  # latency median and p95, in ms
    assert by_unit["tokens"]["x"] == pytest.approx([400.0, 0.0])

    # Give every tested row statistics of its own: the page shows each row's, none copied.
    (comparison,) = report.comparisons
    metrics = []
    for index, metric in enumerate(comparison.metrics):
        statistics = metric.statistics
        if statistics is not None:
            statistics = statistics.model_copy(
                update={
                    "estimate": 1000 + index,
                    "n": 100 + index,
                    "note": f"note {index}",
                    "test": "wilcoxon",  # an exact row's note says nothing its verdict does not
                }
            )
        metrics.append(metric.model_copy(update={"statistics": statistics}))
    changed = report.model_copy(
        update={"comparisons": (comparison.model_copy(update={"metrics": tuple(metrics)}),)}
    )
    table = re.search(
        r'<table class="comparison-statistics">(.*?)</table>', _page(changed, result), re.S
    )
    assert table is not None
    rows = re.findall(r"<tr>(.*?)</tr>", table.group(1), re.S)[1:]
    tested = [(i, m) for i, m in enumerate(metrics) if m.statistics is not None]
    assert len(rows) == len(tested) == 7
    for row, (index, metric) in zip(rows, tested, strict=True):
        cells = [_text(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        assert cells[0].startswith(metric.name)
        assert cells[1] == str(100 + index)
        assert cells[2].replace(",", "").startswith(f"+{1000 + index}")
        assert cells[-1].endswith(f"note {index}")


def test_values_are_in_the_terminals_units(wide: tuple[Report, ExperimentResult, str]) -> None:
    _, _, page = wide
    board = _text(_section(page, "leaderboard"))
    assert "median of time.latency, ms" in board and "sum of money.cost, USD" in board
    # Latency 40..89 ms + 25 for the candidate: the medians in whole ms, as the terminal has them.
    rows = re.findall(r"<tr><td>(.*?)</tr>", _section(page, "leaderboard"), re.S)
    cells = {
        _text(row.split("</td>")[0]): [
            _text(c) for c in re.findall(r'class="num[^"]*">(.*?)</td>', row)
        ]
        for row in rows
    }
    assert cells[BASELINE][:3] == ["15", "15/0/0", "100.0"]  # runs, counts, pass rate in %
    assert cells[BASELINE][3:6] == ["0.00600", "0.000400", "64"]  # cost total, per case, latency
    assert cells[CANDIDATE][3:6] == ["0.06000", "0.004000", "89"]
    assert "(higher is better)" in board and "(lower is better)" in board


def test_case_matrix_has_values_a_legend_and_colour_by_goal(
    wide: tuple[Report, ExperimentResult, str],
) -> None:
    _, _, page = wide
    matrix = _data(page)["matrix"]
    assert matrix["title"].startswith("Case matrix: money.cost [usd]")
    assert matrix["direction"] == "minimize" and not matrix["neutral"]
    assert "darker is better (lower is better)" in _section(page, "matrix")
    for status in ("failed", "errored", "skipped", "no run"):
        assert f"</span> {status}" in _section(page, "matrix")
    row = matrix["cells"][matrix["cases"].index("case-001")]
    # Four entries per variant: status, value, shade (1: best), run index.
    base, cand = row[0:4], row[4:8]
    assert (base[0], base[1], cand[1]) == (0, "0.000400", "0.004000")
    assert base[2] > cand[2]  # the cheaper run is the darker one
    cheapest = matrix["cells"][matrix["cases"].index("case-000")][0:4]
    assert cheapest[1] == "0.000200" and cheapest[2] == 1.0


def test_constant_metrics_get_one_line_instead_of_a_chart(
    wide: tuple[Report, ExperimentResult, str],
) -> None:
    _, _, page = wide
    figures = _data(page)["figures"]["distributions"]
    drawn = {figure["title"].split(" [")[0].split(":")[0] for figure in figures}
    assert drawn == {"time.latency", "money.cost", "quality.score"}
    lines = re.findall(r"<li>(.*?)</li>", _section(page, "distributions"))
    assert "llm.tokens.output [tokens]: 64 in every run (30 runs)" in lines
    assert (
        f"llm.tokens.input [tokens]: {BASELINE} 800, {CANDIDATE} 1200 "
        "(the same in every run of each variant)" in lines
    )


def test_plotly_is_the_published_basic_bundle_and_a_30_run_page_stays_small(
    wide: tuple[Report, ExperimentResult, str],
) -> None:
    _, result, page = wide
    bundle = (STATIC / PLOTLY_FILE).read_bytes()
    assert hashlib.sha256(bundle).hexdigest() == PLOTLY_SHA256
    assert plotly_js() in page and page.count("plotly.js (basic - minified)") == 1
    assert len(result.runs) == 30
    size = len(page.encode("utf-8"))
    print(f"30-run page: {size / 1e6:.2f} MB")
    assert size < 1_500_000
