"""The run page of ``autobench view`` over a real record: a task whose model calls go through
the real OpenAI client (over an ``httpx2.MockTransport`` answering as the API does),
recorded by the OpenAI instrumentor with prompts and replies captured, with tool spans and
a cassette recorded by ``autobench run --cassette record``. Recorded text is markup
(``HOSTILE``) everywhere; the waterfall's JSON endpoints page and refuse bad requests."""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import HOSTILE
from starlette.testclient import TestClient

from autobench.abp import Trace
from autobench.cli import cli
from autobench.view import create_app
from autobench.view._run_page import RunCache
from autobench.view._waterfall import MAX_WINDOW, waterfall

ESCAPED = "&lt;script&gt;window.__pwned=1&lt;/script&gt;"

TASK = """
import json

import httpx2
import openai

HOSTILE = {hostile!r}


def _api(request):
    body = json.loads(request.content)
    question = body["messages"][-1]["content"]
    return httpx2.Response(
        200,
        json={{
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1767225600,
            "model": body["model"] + "-2026-01-15",
            "choices": [{{
                "index": 0,
                "message": {{"role": "assistant", "content": "reply to " + question}},
                "finish_reason": "stop",
            }}],
            "usage": {{
                "prompt_tokens": 40,
                "completion_tokens": 12,
                "total_tokens": 52,
                "prompt_tokens_details": {{"cached_tokens": 16}},
                "completion_tokens_details": {{"reasoning_tokens": 5}},
            }},
        }},
    )


def ask(ctx, case):
    client = openai.OpenAI(
        api_key="sk-offline", http_client=httpx2.Client(transport=httpx2.MockTransport(_api))
    )
    completion = client.chat.completions.create(
        model="acme-mini",
        messages=[{{"role": "user", "content": "question " + case.input["text"]}}],
    )
    reply = completion.choices[0].message.content
    with ctx.span("lookup " + case.input["text"], kind="tool",
                  input={{"query": case.input["text"]}}) as span:
        span.set_output({{"found": "result " + case.input["text"]}})
    with ctx.span("manual model", kind="llm", attributes={{"llm.provider": "acme"}},
                  usage={{"input_tokens": 7, "output_tokens": 3, "cost": 0.25}}):
        pass
    with ctx.span("broken tool", kind="tool", input={{"x": 1}}):
        try:
            with ctx.span("inner", kind="tool"):
                raise ValueError("tool failed " + case.input["text"])
        except ValueError:
            pass
    return {{"reply": reply}}
"""

SPEC = """
benchmark:
  run-page:
    dataset:
      cases:
        - id: hostile
          input: {text: %s}
        - id: plain
          input: {text: plain}
    run:
      python: run_page_task:ask
    variants:
      base: {}
    instrumentation:
      openai: {capture_input: true, capture_output: true}
      httpx: {}
"""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A record directory ``rec`` (under the directory returned) of two runs, recorded by
    the CLI with ``--cassette record``."""
    workdir = tmp_path_factory.mktemp("run-page")
    (workdir / "run_page_task.py").write_text(textwrap.dedent(TASK.format(hostile=HOSTILE)))
    (workdir / "autobench.yaml").write_text(SPEC % json.dumps(HOSTILE))
    sys.path.insert(0, str(workdir))
    before = Path.cwd()
    os.chdir(workdir)
    try:
        result = CliRunner().invoke(
            cli,
            [
                "run",
                "autobench.yaml",
                "--record",
                "rec",
                "--cassette",
                "record",
                "--no-progress",
                "--no-index",  # the pages of a record read from its YAML
            ],
            catch_exceptions=False,
            env={"COLUMNS": "200"},
        )
        assert result.exit_code == 0, result.output
    finally:
        os.chdir(before)
        sys.path.remove(str(workdir))
        sys.modules.pop("run_page_task", None)
    yield workdir


@pytest.fixture(scope="module")
def client(recorded: Path) -> TestClient:
    return TestClient(create_app([recorded]))


def _run_url(client: TestClient, case: str) -> str:
    page = client.get("/x/0/rec", params={"case": case})
    links = re.findall(r'href="(/x/[^"]+/run/[^"]+)"', page.text)
    assert len(links) == 1, page.text
    return links[0]


def _section(html: str, name: str) -> str:
    found = re.search(rf'<section id="{name}">(.*?)</section>', html, re.S)
    assert found is not None, name
    return found.group(1)


def test_llm_calls_show_the_instrumentors_facts_and_the_captured_prompt_and_reply(
    client: TestClient,
) -> None:
    html = client.get(_run_url(client, "plain")).text
    llm = _section(html, "llm-calls")
    rows = re.findall(r"<tr[^>]*><td>(.*?)</tr>", llm, re.S)
    assert len(rows) == 2
    openai_row = next(row for row in rows if row.startswith("openai.chat.completions"))
    cells = re.findall(r"<td[^>]*>(.*?)</td>", "<td>" + openai_row, re.S)
    assert cells[1:4] == ["openai", "acme-mini", "acme-mini-2026-01-15"]
    # input, output, cache read, cache write, reasoning: as the API reported them
    assert cells[4:9] == ["40", "12", "16", "", "5"]
    assert "question plain" in openai_row  # the prompt, captured
    assert "reply to question plain" in openai_row  # the reply, captured
    manual = next(row for row in rows if row.startswith("manual model"))
    cells = re.findall(r"<td[^>]*>(.*?)</td>", "<td>" + manual, re.S)
    assert cells[1] == "acme" and cells[4:6] == ["7", "3"]
    assert cells[9] == "0.25"  # the cost the span recorded, as the report reads it
    assert "not captured" in manual
    assert "2 spans of kind llm" in llm


def test_tool_calls_show_arguments_results_and_errors(client: TestClient) -> None:
    tools = _section(client.get(_run_url(client, "plain")).text, "tool-calls")
    rows = re.findall(r"<tr[^>]*>(<td>.*?)</tr>", tools, re.S)
    assert [re.match(r"<td>(.*?)</td>", row).group(1) for row in rows] == [  # type: ignore[union-attr]
        "lookup plain",
        "broken tool",
        "inner",
    ]
    assert "&#34;query&#34;: &#34;plain&#34;" in rows[0]
    assert "&#34;found&#34;: &#34;result plain&#34;" in rows[0]
    assert "ValueError: tool failed plain" in rows[2]
    assert 'class="failed"' in tools


def test_cassette_exchanges_are_shown_as_recorded(client: TestClient, recorded: Path) -> None:
    html = client.get(_run_url(client, "plain")).text
    cassettes = _section(html, "cassettes")
    assert "1 exchange<" in cassettes
    assert "POST" in cassettes and "https://api.openai.com/v1/chat/completions" in cassettes
    assert "200" in re.search(r'<span class="http-status">(\d+)</span>', cassettes).group(1)  # type: ignore[union-attr]
    assert "&#34;model&#34;: &#34;acme-mini&#34;" in cassettes  # the request body
    assert "reply to question plain" in cassettes  # the response body
    assert "sk-offline" not in html  # no request header is stored, so none is shown
    stored = next((recorded / "rec").rglob("cassette.json")).read_text()
    assert "sk-offline" not in stored


def test_hostile_text_is_escaped_in_every_new_table(client: TestClient) -> None:
    html = client.get(_run_url(client, "hostile")).text
    assert HOSTILE not in html and "<img src=x" not in html
    for name in ("llm-calls", "tool-calls", "cassettes"):
        assert ESCAPED in _section(html, name), name
    scripts = re.findall(r"<script[^>]*>", html)
    assert scripts == [
        '<script src="/static/view.js" defer>',
        '<script src="/static/waterfall.js" defer>',
    ]


def test_the_spans_endpoint_pages_the_waterfall_in_tree_order(client: TestClient) -> None:
    url = _run_url(client, "hostile")
    first = client.get(url + "/spans", params={"from": 0, "count": 2})
    assert first.status_code == 200
    assert first.headers["content-type"] == "application/json"
    assert first.headers["content-security-policy"].startswith("default-src 'none'")
    page = first.json()
    total = page["total"]
    assert len(page["rows"]) == 2 and page["from"] == 0
    rows = page["rows"] + client.get(url + "/spans", params={"from": 2, "count": 50}).json()["rows"]
    assert len(rows) == total
    # Tree order: each row's descendants follow it, one level deeper for its children.
    for index, (depth, size, *_rest) in enumerate(rows):
        inside = rows[index + 1 : index + 1 + size]
        assert all(row[0] > depth for row in inside)
        if index + 1 + size < len(rows):
            assert rows[index + 1 + size][0] <= depth
    names = [row[5] for row in rows]
    assert names.index("inner") == names.index("broken tool") + 1
    inner = rows[names.index("inner")]
    assert inner[0] == rows[names.index("broken tool")][0] + 1 and inner[4] == 1  # failed
    assert HOSTILE in " ".join(names)  # JSON carries the text as it is; the page escapes it
    tail = client.get(url + "/spans", params={"from": total, "count": 10}).json()
    assert tail["rows"] == []


def test_a_span_is_loaded_by_its_row(client: TestClient) -> None:
    url = _run_url(client, "plain")
    rows = client.get(url + "/spans", params={"count": 100}).json()["rows"]
    index = [row[5] for row in rows].index("lookup plain")
    detail = client.get(f"{url}/span/{index}")
    assert detail.status_code == 200
    span = detail.json()
    assert span["operation"] == "lookup plain" and span["kind"] == "tool"
    assert span["input"] == {"query": "plain"} and span["output"] == {"found": "result plain"}
    failed = client.get(f"{url}/span/{[row[5] for row in rows].index('inner')}").json()
    assert failed["status"] == "error" and "tool failed plain" in json.dumps(failed["error"])


@pytest.mark.parametrize(
    ("suffix", "code"),
    [
        ("/spans?from=-1", 400),
        ("/spans?from=abc", 400),
        ("/spans?from=999", 400),
        ("/spans?count=0", 400),
        (f"/spans?count={MAX_WINDOW + 1}", 400),
        ("/spans?count=1.5", 400),
        ("/span/999", 404),
        ("/span/-1", 400),
        ("/span/abc", 400),
    ],
)
def test_bad_windows_and_spans_are_refused(client: TestClient, suffix: str, code: int) -> None:
    assert client.get(_run_url(client, "plain") + suffix).status_code == code


def test_unknown_runs_have_no_spans(client: TestClient) -> None:
    assert client.get("/x/0/rec/run/run_nope/spans").status_code == 404
    assert client.get("/x/0/rec/run/run_nope/span/0").status_code == 404


def test_the_page_works_without_javascript_for_a_small_trace(client: TestClient) -> None:
    html = client.get(_run_url(client, "plain")).text
    noscript = re.search(r"<noscript>(.*?)</noscript>", html, re.S)
    assert noscript is not None
    assert "lookup plain" in noscript.group(1) and "&#34;found&#34;" in noscript.group(1)


def test_the_run_cache_keeps_a_few_runs_and_reads_a_changed_file_again(
    recorded: Path, tmp_path: Path
) -> None:
    import shutil

    copy = tmp_path / "rec"
    shutil.copytree(recorded / "rec", copy)
    files = sorted(copy.rglob("run.yaml"))
    assert len(files) == 2
    cache = RunCache(size=1)
    first = cache.get(files[0], copy)
    assert cache.get(files[0], copy) is first  # not read again
    cache.get(files[1], copy)
    assert cache.get(files[0], copy) is not first  # the other run pushed it out
    again = cache.get(files[0], copy)
    stat = files[0].stat()
    os.utime(files[0], ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert cache.get(files[0], copy) is not again  # rewritten since: read again


def test_the_waterfall_keeps_subtrees_together_under_interleaved_starts() -> None:
    trace = Trace.model_validate(
        {
            "id": "t",
            "spans": [
                {"id": "a", "operation": "a", "offset": 0.0, "duration": 5.0},
                {"id": "b", "operation": "b", "offset": 0.5, "duration": 4.0},
                {"id": "a1", "operation": "a1", "parent": "a", "offset": 1.0, "duration": 1.0},
                {"id": "b1", "operation": "b1", "parent": "b", "offset": 1.5, "duration": 1.0},
                {"id": "a2", "operation": "a2", "parent": "a", "offset": 2.0, "duration": None},
                {"id": "o", "operation": "orphan", "parent": "gone", "offset": 3.0},
                {"id": "x", "operation": "x", "parent": "y", "offset": 4.0, "duration": 1.0},
                {"id": "y", "operation": "y", "parent": "x", "offset": 4.0, "duration": 1.0},
            ],
        }
    )
    fall = waterfall(trace)
    rows = fall.rows(0, 100)
    assert [(row[5], row[0], row[1]) for row in rows] == [
        ("a", 0, 2),
        ("a1", 1, 0),
        ("a2", 1, 0),
        ("b", 0, 1),
        ("b1", 1, 0),
        ("orphan", 0, 0),
        ("x", 0, 0),  # a parent cycle: shown as roots at the end
        ("y", 0, 0),
    ]
    assert rows[2][3] is None and rows[2][4] == 2  # partial
    assert fall.detail(1)["operation"] == "a1"
    with pytest.raises(IndexError):
        fall.detail(8)
    chain = Trace.model_validate(
        {
            "id": "c",
            "spans": [
                {"id": str(i), "operation": "s", "parent": str(i - 1) if i else None}
                for i in range(20_000)
            ],
        }
    )
    deep = waterfall(chain)
    assert deep.depth[-1] == 19_999 and deep.size[0] == 19_999
