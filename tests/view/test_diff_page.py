"""The diff page over real record directories: two runs of one experiment (the same case
under two variants) and the same run in two experiments, through Starlette's TestClient:
the aligned span tree, tool calls, output diff, totals and scores are rendered from
``diff_runs``; the run page links to its diffs; large traces are paged; hostile ids are
escaped; bad pairs get a clear 404/422 page."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlencode

import pytest
from conftest import HOSTILE, run_into
from markupsafe import escape
from starlette.testclient import TestClient

from autobench.records import replay_experiment
from autobench.report import diff_runs
from autobench.view import create_app

TASK = """
def run(ctx, case):
    with ctx.span("agent", kind="agent"):
        for name in case.input["tools"]:
            with ctx.span(name, kind="tool", attributes={"who": case.input["text"]}):
                pass
    return {"answer": case.input["text"], "q": case.input["q"]}
"""
CASES = [
    {"id": "c1", "input": {"text": "one", "tools": ["search", "fetch"], "q": 0.5}},
    {"id": HOSTILE, "input": {"text": HOSTILE, "tools": ["search"], "q": 0.7}},
]
VARIANTS = [{"id": "a", "factors": {"model": "x"}}, {"id": "b", "factors": {"model": "y"}}]
SCORING = [{"kind": "output", "name": "quality", "path": "output.q", "semantic": "quality.score"}]
SECOND = """
def run(ctx, case):
    with ctx.span("agent", kind="agent"):
        for name in case.input["tools"][::-1] + ["extra"]:
            with ctx.span(name, kind="tool", attributes={"who": "second"}):
                pass
    return {"answer": case.input["text"] + " (second)", "q": case.input["q"] / 2}
"""


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("diff-records")
    common = {"cases": CASES, "variants": VARIANTS, "scoring": SCORING}
    run_into(root, TASK, out=root / "first", **common)  # type: ignore[arg-type]
    run_into(root, SECOND, out=root / "second", **common)  # type: ignore[arg-type]
    return root


@pytest.fixture(scope="module")
def client(workdir: Path) -> TestClient:
    return TestClient(create_app([workdir]), follow_redirects=False)


def _runs(workdir: Path, name: str) -> dict[tuple[str, str], str]:
    result = replay_experiment(workdir / name, evidence_only=True)
    return {(run.case_id, run.variant_id): run.run_id for run in result.runs}


def test_the_run_page_links_to_its_diffs(client: TestClient, workdir: Path) -> None:
    first = _runs(workdir, "first")
    page = client.get(f"/x/0/first/run/{first['c1', 'a']}")
    assert page.status_code == 200
    links = [
        unquote(h.replace("&amp;", "&"))
        for h in re.findall(r'class="diff-link" href="([^"]+)"', page.text)
    ]
    assert links == [
        f"/diff?left=0/first:{first['c1', 'a']}&right=0/first:{first['c1', 'b']}",
        f"/diff/find?left=0/first:{first['c1', 'a']}&experiment=0/second",
    ]


def test_a_diff_renders_what_diff_runs_computes(client: TestClient, workdir: Path) -> None:
    first, second = _runs(workdir, "first"), _runs(workdir, "second")
    found = client.get(
        "/diff/find", params={"left": f"0/first:{first['c1', 'a']}", "experiment": "0/second"}
    )
    assert found.status_code == 303
    page = client.get(found.headers["location"])
    assert page.status_code == 200
    left = replay_experiment(workdir / "first").runs
    right = replay_experiment(workdir / "second").runs
    lrun = next(run for run in left if run.run_id == first["c1", "a"])
    rrun = next(run for run in right if run.run_id == second["c1", "a"])
    diff = diff_runs(lrun, rrun)
    counts = diff.span_counts
    assert counts["added"] == 1 and counts["changed"] >= 2
    for status, count in counts.items():
        assert f'<span class="diff-{status}">{count} {status}</span>' in page.text
    tree = page.text.split('id="span-tree"')[1].split("</table>")[0]
    assert tree.count('<tr class="diff-') == len(diff.spans)
    assert '<tr class="diff-added">' in tree and "extra" in tree
    assert "<dt>who</dt>" in tree and "second" in tree
    # the output diff, line by line, coloured
    assert '<span class="line removed">-  &#34;answer&#34;: &#34;one&#34;,</span>' in page.text
    assert (
        '<span class="line added">+  &#34;answer&#34;: &#34;one (second)&#34;,</span>' in page.text
    )
    # tool calls side by side, and the changed score
    steps = page.text.split('id="tool-steps"')[1].split("</table>")[0]
    assert steps.count('<tr class="step-') == len(diff.tool_steps)
    assert '<tr class="diff-changed"><td>quality</td>' in page.text
    assert "1 changed of 1" in page.text


def test_two_variants_from_the_experiment_pickers(client: TestClient, workdir: Path) -> None:
    first = _runs(workdir, "first")
    page = client.get("/x/0/first")
    assert 'id="diff-variants"' in page.text and 'id="compare-variants"' in page.text
    found = client.get(
        "/diff/find",
        params={"experiment": "0/first", "case": "c1", "left_variant": "a", "right_variant": "b"},
    )
    assert found.status_code == 303
    assert unquote(found.headers["location"]) == (
        f"/diff?left=0/first:{first['c1', 'a']}&right=0/first:{first['c1', 'b']}"
    )
    by_ids = client.get(
        "/diff/find",
        params={
            "experiment": "0/first",
            "left_run": first["c1", "a"],
            "right_run": first["c1", "b"],
        },
    )
    assert by_ids.headers["location"] == found.headers["location"]
    page = client.get(found.headers["location"])
    assert page.status_code == 200
    assert "the same on both sides" in page.text  # one task, two variants: equal outputs


def test_only_differing_spans_and_paging(client: TestClient, workdir: Path) -> None:
    first, second = _runs(workdir, "first"), _runs(workdir, "second")
    url = f"/diff?left=0/first:{first['c1', 'a']}&right=0/second:{second['c1', 'a']}"
    paged = client.get(url + "&size=2&page=2")
    assert "page 2 of" in paged.text and 'rel="prev"' in paged.text
    assert paged.text.split('id="span-tree"')[1].count('<tr class="diff-') == 2
    differing = client.get(url + "&show=differing")
    assert '<tr class="diff-same">' not in differing.text
    assert '<tr class="diff-added">' in differing.text


def test_hostile_ids_are_escaped(client: TestClient, workdir: Path) -> None:
    first, second = _runs(workdir, "first"), _runs(workdir, "second")
    page = client.get(
        "/diff",
        params={
            "left": f"0/first:{first[HOSTILE, 'a']}",
            "right": f"0/second:{second[HOSTILE, 'b']}",
        },
    )
    assert page.status_code == 200
    assert HOSTILE not in page.text
    assert str(escape(HOSTILE)) in page.text
    run = client.get(f"/x/0/first/run/{first[HOSTILE, 'a']}")
    assert "<script>window" not in run.text


@pytest.mark.parametrize(
    ("url", "code", "says"),
    [
        ("/diff?left=0/first", 422, "left must name a run"),
        ("/diff?left=0/first:nope&right=0/first:nope", 404, "no such run"),
        ("/diff?left=9/none:run&right=9/none:run", 404, "no such experiment"),
        (
            "/diff/find?experiment=0/first&case=c1&left_variant=a&right_variant=zz",
            404,
            "under variant",
        ),
        ("/diff/find?experiment=0/first&left_run=x&right_run=y", 404, "no run"),
        ("/diff/find?experiment=0/first", 422, "choose two run ids"),
        (
            "/diff/find?experiment=0/first&case=c1&left_variant=a&right_variant=a",
            422,
            "both sides are the same run",
        ),
        (
            "/diff/find?"
            + urlencode(
                {
                    "experiment": "0/first",
                    "case": "c1",
                    "left_variant": "a",
                    "right_variant": HOSTILE,
                }
            ),
            404,
            "no run of case",
        ),
        ("/diff?" + urlencode({"left": HOSTILE, "right": HOSTILE}), 422, "left must name a run"),
    ],
)
def test_bad_pairs_get_a_clear_page(client: TestClient, url: str, code: int, says: str) -> None:
    page = client.get(url)
    assert page.status_code == code
    assert says in page.text
    assert "<script>window" not in page.text
