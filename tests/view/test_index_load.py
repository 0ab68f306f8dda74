"""``autobench view`` over a record that holds a columnar index (``autobench index``): the
first load reads the fresh index instead of the run files, says so on the page, shows what a
replay shows, writes nothing; once a run file changes, the index is stale and the record's
files are read again."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_into, tree_digests
from starlette.testclient import TestClient

from autobench.view import _live, create_app

SAFETY_NET = 120.0


def _runs_table(html: str) -> list[str]:
    body = html.split('id="runs-table"', 1)[1].split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return re.findall(r"<tr[^>]*>.*?</tr>", body, re.S)


def _page(client: TestClient, key: str, marker_present: bool) -> str:
    deadline = time.monotonic() + SAFETY_NET  # a safety net, not a measure
    while True:
        html = client.get(f"/x/{key}").text
        if 'id="runs-table"' in html and ('id="from-index"' in html) == marker_present:
            return html
        assert time.monotonic() < deadline, "the experiment never showed the expected load"
        time.sleep(0.1)


def test_a_fresh_index_is_read_first_and_a_stale_one_never(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_live, "INDEX_HINT_RUNS", 1)  # every finished experiment counts as large
    indexed_dir, plain_dir = tmp_path / "indexed", tmp_path / "plain"
    indexed_dir.mkdir()
    plain_dir.mkdir()
    run_into(indexed_dir, benchmark="indexed")
    run_into(plain_dir, benchmark="indexed")
    record = indexed_dir / "indexed"
    built = subprocess.run(
        [sys.executable, "-m", "autobench.cli", "index", str(record)],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    assert (record / "index").is_dir()
    before = tree_digests(record)

    client = TestClient(create_app([indexed_dir]))
    html = _page(client, "0/indexed", marker_present=True)
    plain = _page(TestClient(create_app([plain_dir])), "0/indexed", marker_present=False)
    rows, plain_rows = _runs_table(html), _runs_table(plain)
    assert 'id="index-hint"' not in html  # read from the index: nothing to suggest
    assert f"<code>autobench index {(plain_dir / 'indexed').resolve()}</code>" in plain
    assert len(rows) == 6
    # the same runs, statuses, scores, costs and errors as the replayed twin (run ids aside)
    strip = re.compile(r'href="[^"]*"')
    assert [strip.sub("", row) for row in rows] == [strip.sub("", row) for row in plain_rows]
    deadline = time.monotonic() + SAFETY_NET  # a safety net, not a measure
    while not (state := client.get("/x/0/indexed/live/state").json())["report"]:
        assert time.monotonic() < deadline, "the report never came"
        time.sleep(0.05)
    # Two loads served: the runs table on its own, then with the headline and leaderboard.
    assert state["generation"] == 2 and state["runs"] == 6 and state["problem"] is None
    assert 'id="headline"' in client.get("/x/0/indexed").text
    assert tree_digests(record) == before  # nothing written, the index included

    run_file = next(record.rglob("run.yaml"))
    run_file.write_text(run_file.read_text() + "\n")  # the index is now stale
    html = _page(client, "0/indexed", marker_present=False)
    assert len(_runs_table(html)) == 6


FUTURE_REPORT = "report:\n  timeline:\n    bins: 10\n"
"""A report configuration this autobench cannot read (an option of a later version)."""


def test_the_runs_table_is_served_whole_without_the_headline(tmp_path: Path) -> None:
    """A first load serves the runs table (every run, its counts and filters) as soon as
    its rows exist, before the report is built: a record whose report cannot be built
    shows that table, from its index or from its run files, and says why the headline and
    leaderboard are missing."""
    for name, index in (("indexed", True), ("plain", False)):
        run_into(tmp_path, benchmark="later", out=tmp_path / name / "later")
        record = tmp_path / name / "later"
        with (record / "experiment.yaml").open("a", encoding="utf-8") as file:
            file.write(FUTURE_REPORT)
        if index:
            built = subprocess.run(
                [sys.executable, "-m", "autobench.cli", "index", str(record)],
                capture_output=True,
                text=True,
            )
            assert built.returncode == 0, built.stderr
        before = tree_digests(record)
        client = TestClient(create_app([tmp_path / name]))
        page = client.get("/x/0/later")
        assert page.status_code == 200, page.text
        html = page.text
        assert len(_runs_table(html)) == 6 and "6 shown of 6" in html
        assert "6 of 6 planned runs recorded" in html
        assert "passed 2, failed 2, errored 2" in html  # counted from the rows
        assert ('id="from-index"' in html) == index
        assert 'id="headline"' not in html and 'id="leaderboard"' not in html
        assert "the headline and leaderboard cannot be built" in html
        assert 'id="report-waiting"' not in html  # not "in a moment": it cannot be built
        assert "timeline" in html  # the report configuration's problem, said
        state = client.get("/x/0/later/live/state").json()
        assert state["runs"] == 6 and state["planned"] == 6 and state["report"] is False
        assert "timeline" in state["problem"]
        assert state["problem_line"].startswith("The runs are shown, but the headline")
        filtered = client.get("/x/0/later", params={"status": "errored"}).text
        assert len(_runs_table(filtered)) == 2
        run = client.get(re.findall(r'href="(/x/0/later/run/[^"]+)"', html)[0])
        assert run.status_code == 200  # a run opens; comparing variants needs the report
        assert client.get("/x/0/later/run/no-such-run").status_code == 404
        compare = client.get("/x/0/later/compare", params={"baseline": "base"})
        assert compare.status_code == 422
        assert tree_digests(record) == before
