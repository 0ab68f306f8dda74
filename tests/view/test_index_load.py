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

from conftest import run_into, tree_digests
from starlette.testclient import TestClient

from autobench.view import create_app

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


def test_a_fresh_index_is_read_first_and_a_stale_one_never(tmp_path: Path) -> None:
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
    assert len(rows) == 6
    # the same runs, statuses, scores, costs and errors as the replayed twin (run ids aside)
    strip = re.compile(r'href="[^"]*"')
    assert [strip.sub("", row) for row in rows] == [strip.sub("", row) for row in plain_rows]
    assert tree_digests(record) == before  # nothing written, the index included

    run_file = next(record.rglob("run.yaml"))
    run_file.write_text(run_file.read_text() + "\n")  # the index is now stale
    html = _page(client, "0/indexed", marker_present=False)
    assert len(_runs_table(html)) == 6
