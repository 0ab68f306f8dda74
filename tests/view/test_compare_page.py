"""The compare page over real record directories: two variants of an experiment, and two
experiments, shown from the very models ``autobench compare`` computes (the same
functions, the HTML report's views of them); pickers on the experiment and index pages;
hostile ids escaped; bad pairs get a clear 404/422 page."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlencode

import pytest
from conftest import HOSTILE, run_into
from markupsafe import escape
from starlette.testclient import TestClient

from autobench.records import replay_experiment
from autobench.report import build_report, compare_experiments, compare_variants_with_headline
from autobench.report._headline_text import item_text
from autobench.report._html_figures import leaderboard_formats
from autobench.report._html_views import comparison_view
from autobench.view import create_app


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("compare-records")
    run_into(root, out=root / "before")
    run_into(root, out=root / "after")
    return root


@pytest.fixture(scope="module")
def client(workdir: Path) -> TestClient:
    return TestClient(create_app([workdir]))


def _cells(html: str, section: str) -> list[list[str]]:
    body = html.split(section)[1].split("</table>")[0]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in body.split("<tr>")[1:]]
    return [row for row in rows if row]  # the header row has no td


def _expected(view: dict[str, object]) -> list[list[str]]:
    rows = view["statistics"]
    assert isinstance(rows, list) and rows
    return [
        [
            str(escape(str(row[k])))
            for k in (
                "label",
                "cases",
                "estimate",
                "estimate_of",
                "interval",
                "test",
                "p",
                "p_adjusted",
                "verdict",
                "note",
            )
        ]
        for row in rows
    ]


def test_two_variants_as_autobench_compare_computes_them(client: TestClient, workdir: Path) -> None:
    page = client.get("/x/0/before/compare", params={"baseline": "base", "candidate": HOSTILE})
    assert page.status_code == 200
    result = replay_experiment(workdir / "before", evidence_only=True)
    report = build_report(result)
    comparison, headline = compare_variants_with_headline(result, "base", HOSTILE)
    formats = leaderboard_formats(report)
    by_metric = {(c.semantic_type, c.fn): formats[c.name] for c in report.leaderboard.columns}
    assert _cells(page.text, 'class="grid statistics"') == _expected(
        comparison_view(comparison, by_metric)
    )
    for item in headline.comparisons[0].items:
        assert (
            str(escape(item_text(item)))
            in page.text.split('id="headline"')[1].split("</section>")[0]
        )
    assert f"{len(comparison.paired_cases)} paired case" in page.text
    assert HOSTILE not in page.text and str(escape(HOSTILE)) in page.text


def test_two_experiments_paired_by_case_and_variant(client: TestClient, workdir: Path) -> None:
    index = client.get("/")
    assert 'id="compare-experiments"' in index.text
    assert 'name="baseline"' in index.text and 'name="candidate"' in index.text
    page = client.get("/compare", params={"baseline": "0/before", "candidate": "0/after"})
    assert page.status_code == 200
    before = replay_experiment(workdir / "before", evidence_only=True)
    after = replay_experiment(workdir / "after", evidence_only=True)
    across = compare_experiments(before, after)
    sections = page.text.split('<section class="comparison">')[1:]
    assert len(sections) == len(across.comparisons) == 2
    for section, item in zip(sections, across.comparisons, strict=True):
        assert str(escape(item.baseline)) in section and str(escape(item.candidate)) in section
        assert f"{len(item.paired_cases)} paired case" in section
    inputs = page.text.split('id="compare-inputs"')[1].split("</table>")[0]
    assert across.changed  # each run wrote its task to a module of its own
    for item in across.changed:
        assert str(escape(item)) in inputs


def test_the_level_is_the_one_asked_for(client: TestClient) -> None:
    page = client.get(
        "/x/0/before/compare", params={"baseline": "base", "candidate": HOSTILE, "level": "0.8"}
    )
    assert page.status_code == 200
    assert "80% intervals" in page.text


@pytest.mark.parametrize(
    ("url", "code", "says"),
    [
        ("/x/0/before/compare?baseline=base&candidate=nope", 404, "nope"),
        ("/x/0/before/compare?baseline=base&candidate=base", 422, "two different variants"),
        ("/x/0/before/compare?baseline=base", 422, "choose a baseline and a candidate variant"),
        ("/x/0/before/compare?baseline=base&candidate=base&level=2", 422, "level must be"),
        ("/x/0/nowhere/compare?baseline=a&candidate=b", 404, "no such experiment"),
        ("/compare?baseline=0/before", 422, "choose a baseline and a candidate"),
        (
            "/compare?" + urlencode({"baseline": "0/before", "candidate": HOSTILE}),
            404,
            "no such experiment",
        ),
        (
            "/x/0/before/compare?" + urlencode({"baseline": "base", "candidate": HOSTILE + "x"}),
            404,
            "variant",
        ),
    ],
)
def test_bad_pairs_get_a_clear_page(client: TestClient, url: str, code: int, says: str) -> None:
    page = client.get(url)
    assert page.status_code == code
    assert says in page.text
    assert "<script>window" not in page.text
