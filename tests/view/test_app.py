"""``autobench view``'s pages over a real record directory, through Starlette's TestClient:
the index finds experiments recursively, the experiment page shows the report's headline
and leaderboard, the runs table filters, sorts and pages on the server, a run page shows
inputs, outputs, scores, errors, artifacts and spans; recorded text is escaped; the server
writes nothing and serves nothing outside the directories it was given."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import HOSTILE, run_into, tree_digests
from markupsafe import escape
from starlette.testclient import TestClient

from autobench.records import replay_experiment
from autobench.report import build_report
from autobench.view import create_app, is_loopback
from autobench.view._app import CSP
from autobench.view._runs import Query, run_rows, select

KEY = "0/view-test"


@pytest.fixture(scope="module")
def client(records: Path) -> TestClient:
    return TestClient(create_app([records]))


def _run_links(html: str) -> list[str]:
    return re.findall(r'href="(/x/[^"]+/run/[^"]+)"', html)


def test_index_finds_experiments_recursively(tmp_path: Path) -> None:
    run_into(tmp_path, out=tmp_path / "a" / "deep" / "one", benchmark="first")
    run_into(tmp_path, out=tmp_path / "b" / "two", benchmark="second")
    page = TestClient(create_app([tmp_path])).get("/")
    assert page.status_code == 200
    links = re.findall(r'class="experiment-link" href="([^"]+)"', page.text)
    assert links == ["/x/0/a/deep/one", "/x/0/b/two"]


def test_the_index_reads_an_experiment_again_once_its_experiment_yaml_changed(
    tmp_path: Path,
) -> None:
    run_into(tmp_path, out=tmp_path / "one", benchmark="first")
    client = TestClient(create_app([tmp_path]))
    assert "<td>first</td>" in client.get("/").text
    plan = tmp_path / "one" / "experiment.yaml"
    text = plan.read_text(encoding="utf-8")
    assert "  benchmark: first\n" in text
    plan.write_text(text.replace("  benchmark: first\n", "  benchmark: renamed\n"), "utf-8")
    page = client.get("/").text  # what the index keeps is keyed by the file's size and time
    assert "<td>renamed</td>" in page and "<td>first</td>" not in page
    plan.write_text("record: {type: experiment, version: 1}\nexperiment: [\n", "utf-8")
    assert 'class="error"' in client.get("/").text


def test_experiment_page_renders_the_reports_headline_and_leaderboard(
    client: TestClient, records: Path
) -> None:
    page = client.get(f"/x/{KEY}")
    assert page.status_code == 200
    report = build_report(replay_experiment(records / "view-test", evidence_only=True))
    for row in report.leaderboard.rows:
        assert f"<td>{escape(row.variant)}</td>" in page.text
    assert "Leaderboard" in page.text and "Headline" in page.text
    assert f"{report.runs} of {report.planned} planned runs" in page.text
    assert len(_run_links(page.text)) == 6


def test_runs_filter_sort_and_page_on_the_server(client: TestClient) -> None:
    failed = client.get(f"/x/{KEY}", params={"status": "errored"})
    assert len(_run_links(failed.text)) == 2
    assert all("boom" in link for link in _run_links(failed.text))
    by_cost = client.get(f"/x/{KEY}", params={"sort": "cost", "order": "desc", "variant": "base"})
    links = _run_links(by_cost.text)
    assert [link.rsplit("_", 2)[-2] for link in links][:1] == ["plain"]
    paged = client.get(f"/x/{KEY}", params={"size": "4", "page": "2"})
    assert len(_run_links(paged.text)) == 2
    assert "page 2 of 2" in paged.text
    assert 'rel="prev"' in paged.text and 'rel="next"' not in paged.text


def test_select_sorts_missing_values_last_and_clamps_pages(records: Path) -> None:
    result = replay_experiment(records / "view-test", evidence_only=True)
    rows = run_rows(result, build_report(result).run_rows)
    by_quality = select(rows, Query(sort="score:quality", descending=True))
    values = [row.scores.get("quality") for row in by_quality.rows]
    assert values[0] == 0.9 and values[-1] is None  # the errored runs have no quality score
    assert select(rows, Query(page=99, size=4)).page == 2
    assert select(rows, Query(error="RuntimeError")).total == 2
    assert select(rows, Query(repeat="1")).total == 6


def test_runs_are_filtered_by_a_range_of_any_number(client: TestClient, records: Path) -> None:
    # cost per case: hostile 0.01, plain 0.02, boom 0.0; quality: 0.9, 0.4, none (errored)
    def cases(**params: str) -> list[str]:
        page = client.get(f"/x/{KEY}", params=params).text
        body = page.split('id="runs-table"', 1)[1]
        return sorted(re.findall(r"<td>(plain|boom)</td>", body))

    assert cases(where="cost", min="0.015") == ["plain", "plain"]
    assert cases(where="cost", max="0.005") == ["boom", "boom"]
    assert cases(where="score:quality", min="0.3", max="0.5") == ["plain", "plain"]
    assert cases(where="score:quality", min="-1") == ["plain", "plain"]  # + the hostile case
    page = client.get(f"/x/{KEY}", params={"where": "score:quality", "min": "-1"}).text
    assert "4 shown of 6" in page  # the errored runs have no quality, so no value in range
    ignored = client.get(f"/x/{KEY}", params={"where": "cost", "min": "x"}).text
    assert "6 shown of 6" in ignored
    assert "min &#39;x&#39; is not a number: the range filter does not use it" in ignored
    assert "6 shown of 6" in client.get(f"/x/{KEY}", params={"where": "nope", "min": "1"}).text
    result = replay_experiment(records / "view-test", evidence_only=True)
    rows = run_rows(result, build_report(result).run_rows)
    assert select(rows, Query(where="latency", low=0.002, high=0.006)).total == 2
    assert select(rows, Query(where="repeat", low=2)).total == 0


def test_run_page_shows_what_the_run_recorded(client: TestClient) -> None:
    links = _run_links(client.get(f"/x/{KEY}", params={"case": "boom", "variant": "base"}).text)
    assert len(links) == 1
    page = client.get(links[0])
    assert page.status_code == 200
    text = page.text
    assert "RuntimeError" in text and "Traceback (most recent call last)" in text
    assert "exploded boom" in text
    assert "because boom" in text  # the check's reason
    assert "notes about boom" in text  # a text artifact shown inline
    assert re.search(r'href="[^"]+/file/artifacts/[^"]+/blob\.bin" download', text)
    assert "step boom" in text and "&#34;note&#34;: &#34;boom&#34;" in text  # span, attributes
    plain = client.get(_run_links(client.get(f"/x/{KEY}", params={"case": "plain"}).text)[0])
    assert "&#34;answer&#34;: &#34;plain&#34;" in plain.text  # the output


def test_artifact_download_and_headers(client: TestClient, records: Path) -> None:
    page = client.get(_run_links(client.get(f"/x/{KEY}", params={"case": "plain"}).text)[0])
    href = re.search(r'href="([^"]+/blob\.bin)"', page.text)
    assert href is not None
    blob = client.get(href.group(1))
    assert blob.status_code == 200 and blob.content == b"\x00\x01binary"
    assert blob.headers["content-disposition"] == "attachment"
    assert blob.headers["x-content-type-options"] == "nosniff"
    assert page.headers["content-security-policy"] == CSP
    assert "default-src 'none'" in CSP and "http" not in CSP


def test_recorded_text_is_escaped_everywhere(client: TestClient) -> None:
    pages = [client.get("/"), client.get(f"/x/{KEY}"), client.get(f"/x/{KEY}/live/body")]
    pages += [client.get(link) for link in _run_links(pages[1].text)]
    for page in pages:
        assert page.status_code == 200
        assert HOSTILE not in page.text
        assert "<script>window" not in page.text
        assert "<img src=x" not in page.text
        # The only scripts are the viewer's own files.
        scripts = re.findall(r"<script[^>]*>", page.text)
        assert set(scripts) <= {
            f'<script src="/static/{name}.js" defer>' for name in ("view", "waterfall", "live")
        }, scripts
    hostile_run = client.get(_run_links(pages[1].text)[0]).text
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in hostile_run


@pytest.mark.parametrize(
    "path",
    [
        "../../etc/passwd",
        "..%2F..%2Fetc%2Fpasswd",
        "%2e%2e/%2e%2e/etc/passwd",
        "%252e%252e%252f%252e%252e%252fetc%252fpasswd",
        "/etc/passwd",
        "%2Fetc%2Fpasswd",
        "artifacts/../../outside.txt",
        "artifacts",
        "escape-link",
        "escape-dir/secret.txt",
    ],
)
def test_files_outside_the_record_are_never_served(
    tmp_path: Path, records: Path, path: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    root = tmp_path / "root"
    run_into(tmp_path, out=root / "view-test", benchmark="view-test")
    (root / "view-test" / "escape-link").symlink_to(outside / "secret.txt")
    (root / "view-test" / "escape-dir").symlink_to(outside, target_is_directory=True)
    (tmp_path / "root" / "outside.txt").write_text("secret")
    client = TestClient(create_app([root]))
    response = client.get(f"/x/{KEY}/file/{path}")
    assert response.status_code == 404
    assert "secret" not in response.text and "root:" not in response.text


def test_a_symlinked_experiment_outside_the_roots_is_not_found(tmp_path: Path) -> None:
    run_into(tmp_path, out=tmp_path / "elsewhere" / "exp", benchmark="elsewhere")
    root = tmp_path / "root"
    root.mkdir()
    (root / "link").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    client = TestClient(create_app([root]))
    assert "experiment-link" not in client.get("/").text
    assert client.get("/x/0/link/exp").status_code == 404


def test_viewing_writes_nothing_and_only_get_is_routed(client: TestClient, records: Path) -> None:
    before = tree_digests(records)
    pages = [client.get(f"/x/{KEY}", params={"sort": "latency"})]
    for link in _run_links(pages[0].text):
        client.get(link)
    assert client.post(f"/x/{KEY}").status_code == 405
    assert client.delete(f"/x/{KEY}/file/experiment.yaml").status_code == 405
    assert tree_digests(records) == before


def test_new_runs_appear_without_a_restart(tmp_path: Path) -> None:
    client = TestClient(create_app([tmp_path]))
    assert "experiment-link" not in client.get("/").text
    run_into(tmp_path, out=tmp_path / "late", benchmark="late")
    assert "/x/0/late" in client.get("/").text
    assert len(_run_links(client.get("/x/0/late").text)) == 6


def test_unknown_pages_are_404(client: TestClient) -> None:
    assert client.get("/x/0/nothing").status_code == 404
    assert client.get(f"/x/{KEY}/run/run_9999").status_code == 404
    assert client.get("/static/../_app.py").status_code == 404


def test_loopback_hosts() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert is_loopback("127.8.0.1") and is_loopback("[::1]")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.1")
    assert not is_loopback("example.org")


def test_the_waterfall_starts_at_the_earliest_span() -> None:
    from autobench.abp import Trace
    from autobench.view._waterfall import waterfall

    trace = Trace.model_validate(
        {
            "id": "t",
            "spans": [
                {"id": "a", "operation": "root", "offset": 2.0, "duration": 4.0},
                {"id": "b", "operation": "child", "parent": "a", "offset": 3.0, "duration": 1.0},
            ],
        }
    )
    fall = waterfall(trace)
    assert fall.rows(0, 10) == [
        [0, 1, 0.0, 4000.0, 0, "root", "custom"],
        [1, 0, 1000.0, 1000.0, 0, "child", "custom"],
    ]
    assert fall.total == 2 and fall.extent == 4.0


def test_a_damaged_record_is_a_located_message_not_a_crash(tmp_path: Path) -> None:
    run_into(tmp_path, out=tmp_path / "good", benchmark="good")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "experiment.yaml").write_text("record: {type: experiment, version: 1}\nexperiment: [\n")
    client = TestClient(create_app([tmp_path]))
    index = client.get("/")
    assert index.status_code == 200
    assert 'class="error"' in index.text and "experiment.yaml" in index.text
    assert ">good<" in index.text  # the good experiment's benchmark id
    broken = client.get("/x/0/bad")
    assert broken.status_code == 422
    assert "this record cannot be read" in broken.text


def test_raster_images_are_shown_and_svg_only_downloaded(client: TestClient) -> None:
    page = client.get(_run_links(client.get(f"/x/{KEY}", params={"case": "plain"}).text)[0])
    images = re.findall(r'<img class="artifact-image" src="([^"]+)"', page.text)
    assert len(images) == 1 and images[0].endswith("/chart.png")
    shown = client.get(images[0])
    assert shown.status_code == 200
    assert shown.headers["content-type"] == "image/png"
    assert shown.content.startswith(b"\x89PNG")
    svg = re.search(r'href="([^"]+/drawing\.svg)" download', page.text)
    assert svg is not None
    assert client.get(svg.group(1).replace("/file/", "/image/")).status_code == 404
    assert client.get(svg.group(1)).headers["content-disposition"] == "attachment"


def test_pages_use_the_last_walk_and_an_experiment_recorded_since_is_found(tmp_path: Path) -> None:
    """An experiment's pages (polled many times a second) do not walk the roots: the last
    walk is used, and a key it does not hold is looked for again before a 404; the list of
    experiments walks afresh."""
    run_into(tmp_path, out=tmp_path / "first", benchmark="first")
    app = create_app([tmp_path])
    client = TestClient(app)
    assert client.get("/x/0/first").status_code == 200
    shutil.copytree(tmp_path / "first", tmp_path / "second")
    assert [found.key for found in app.state.viewer.experiments()] == ["0/first"]  # the last walk
    assert client.get("/x/0/second").status_code == 200  # found by a walk when asked for
    assert [found.key for found in app.state.viewer.experiments()] == ["0/first", "0/second"]
    shutil.copytree(tmp_path / "first", tmp_path / "third")
    assert "/x/0/third" in client.get("/").text
    assert client.get("/x/0/fourth").status_code == 404


STRUCTURED = """
def run(ctx, case):
    ctx.artifact("decision", {"route": "<b>billing</b>", "scores": [1, 2]})
    ctx.artifact("raw", "route: billing\\n", media_type="application/yaml")
    return {"q": 1.0}
"""


def test_a_structured_artifact_is_shown_as_its_payload(tmp_path: Path) -> None:
    """A value that is not text is stored as a YAML payload file with a record header; the
    run page shows the payload (as JSON), not the file's header; a user's own YAML text is
    shown as written."""
    cases = [{"id": "c", "input": {}}]
    run_into(tmp_path, STRUCTURED, cases=cases, variants=[{"id": "v"}], benchmark="art")
    client = TestClient(create_app([tmp_path]))
    runs = _run_links(client.get("/x/0/art").text)
    page = client.get(runs[0]).text
    assert "artifact_payload" not in page
    assert "&#34;route&#34;: &#34;&lt;b&gt;billing&lt;/b&gt;&#34;" in page
    assert "route: billing" in page
