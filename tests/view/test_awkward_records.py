"""The viewer over awkward record directories a user really has: experiment directories
named like the viewer's own pages (``run``, ``compare``, ``live``, ``file``), runs with
enormous outputs, and several experiments that do not share cases. Real records, written by
running tiny benchmarks, through Starlette's TestClient."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import run_into
from starlette.testclient import TestClient

from autobench.view import create_app

PLAIN_CASES = [
    {
        "id": "one",
        "input": {"text": "one", "ms": 1, "usd": 0.0, "q": 1.0, "ok": True, "boom": False},
    },
]
PLAIN_VARIANTS = [{"id": "base", "factors": {"model": "a"}}]


def _links(html: str, kind: str) -> list[str]:
    return re.findall(rf'href="(/x/[^"]+/{kind}/[^"]+)"', html)


def test_experiments_in_directories_named_like_pages_are_reached(tmp_path: Path) -> None:
    names = ["run/first", "compare", "live/state", "file", "x/image"]
    for number, name in enumerate(names):
        run_into(
            tmp_path,
            out=tmp_path / "records" / name,
            benchmark=f"bench-{number}",
            cases=PLAIN_CASES,
            variants=PLAIN_VARIANTS,
        )
    client = TestClient(create_app([tmp_path / "records"]))
    links = re.findall(r'class="experiment-link" href="([^"]+)"', client.get("/").text)
    assert sorted(links) == sorted(f"/x/0/{name}" for name in names)
    for number, name in enumerate(names):
        page = client.get(f"/x/0/{name}")
        assert page.status_code == 200, name
        assert f"bench-{number}" in page.text
        runs = _links(page.text, "run")
        assert len(runs) == 1
        run = client.get(runs[0])
        assert run.status_code == 200 and "case one" in run.text
        download = _links(run.text, "file")[0]
        assert client.get(download).status_code == 200
        state = client.get(f"/x/0/{name}/live/state")
        assert state.status_code == 200 and state.json()["runs"] == 1
        compare = client.get(f"/x/0/{name}/compare", params={"baseline": "base", "candidate": "x"})
        assert compare.status_code == 404 and "x" in compare.text
    assert client.get("/x/0/run").status_code == 404
    assert client.get("/x/0/compare/nothing").status_code == 404


HUGE_TASK = """
def run(ctx, case):
    return {"answer": ctx.factor("m") + case.input["text"] * 300_000 + "END-OF-OUTPUT"}
"""


def test_a_huge_output_is_cut_on_the_pages(tmp_path: Path) -> None:
    cases = [{"id": "big", "input": {"text": "abcd"}}]
    variants = [{"id": "left", "factors": {"m": "a"}}, {"id": "right", "factors": {"m": "b"}}]
    run_into(tmp_path, HUGE_TASK, cases=cases, variants=variants, scoring=[], benchmark="huge")
    client = TestClient(create_app([tmp_path]))
    runs = _links(client.get("/x/0/huge").text, "run")
    assert len(runs) == 2
    for link in runs:
        page = client.get(link)
        assert page.status_code == 200
        assert len(page.text) < 700_000  # the 1.2-million-character value is not sent whole
        assert "more characters, not shown" in page.text
        assert "END-OF-OUTPUT" not in page.text
    pick = {"experiment": "0/huge", "case": "big", "left_variant": "left", "right_variant": "right"}
    diff = client.get("/diff/find", params=pick)
    assert diff.status_code == 200 and "unified diff" in diff.text
    assert len(diff.text) < 700_000
    assert "more characters, not shown" in diff.text and "END-OF-OUTPUT" not in diff.text


def test_diff_with_offers_only_loaded_experiments_that_hold_the_case(tmp_path: Path) -> None:
    other_cases = [dict(PLAIN_CASES[0], id="two")]
    run_into(
        tmp_path, out=tmp_path / "a", benchmark="a", cases=PLAIN_CASES, variants=PLAIN_VARIANTS
    )
    run_into(
        tmp_path, out=tmp_path / "b", benchmark="b", cases=PLAIN_CASES, variants=PLAIN_VARIANTS
    )
    run_into(
        tmp_path, out=tmp_path / "c", benchmark="c", cases=other_cases, variants=PLAIN_VARIANTS
    )
    run_into(
        tmp_path, out=tmp_path / "d", benchmark="d", cases=other_cases, variants=PLAIN_VARIANTS
    )
    client = TestClient(create_app([tmp_path]))
    for key in ("0/a", "0/b", "0/c"):  # loaded; 0/d is not opened, so not loaded yet
        assert client.get(f"/x/{key}").status_code == 200
    run = client.get(_links(client.get("/x/0/a").text, "run")[0])
    offered = re.findall(r'class="diff-link" href="([^"]+)">([^<]+)<', run.text)
    assert [label.rsplit("/", 1)[1] for _href, label in offered] == ["b", "d"]
    diff = client.get(offered[0][0].replace("&amp;", "&"))
    assert diff.status_code == 200 and "the same on both sides" in diff.text
