"""The ``html`` export without a browser: structure, embedded data, escaping of user text,
the interval and Pareto helpers. The browser checks are in ``test_html_browser.py``."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest
from markupsafe import escape
from report_support import RunBench

from autobench.records import ExperimentResult
from autobench.report import build_report, exporter_registry
from autobench.report._html import mean_interval, pareto_front, script_json

HOSTILE = '<script>window.__pwned=1</script>"><img src=x onerror="window.__pwned=2">'

HOSTILE_TASK = """
def run(ctx, case):
    with ctx.span("step " + case.input["text"], kind="tool"):
        ctx.metric("latency", case.input["ms"], semantic_type="time.latency", unit="ms")
        ctx.metric("cost", case.input["usd"], semantic_type="cost.total", unit="USD")
    ctx.check("safe", case.input["ok"], reason="bad " + case.input["text"])
    if case.input["boom"]:
        raise RuntimeError("exploded " + case.input["text"])
    return {"answer": case.input["text"], "q": case.input["q"]}
"""


def hostile_result(run_bench: RunBench) -> ExperimentResult:
    """Two variants over cases whose ids, outputs, reasons, span names and errors hold markup."""
    cases = [
        {
            "id": HOSTILE,
            "input": {"text": HOSTILE, "ms": 5, "usd": 0.01, "q": 0.9, "ok": True, "boom": False},
        },
        {
            "id": "plain",
            "input": {"text": HOSTILE, "ms": 9, "usd": 0.02, "q": 0.4, "ok": False, "boom": False},
        },
        {
            "id": "boom",
            "input": {"text": HOSTILE, "ms": 1, "usd": 0.0, "q": 0.0, "ok": True, "boom": True},
        },
    ]
    return run_bench(
        HOSTILE_TASK,
        cases=cases,
        variants=[
            {"id": "base", "factors": {"model": "a"}},
            {"id": HOSTILE, "factors": {"model": "b"}},
        ],
        scoring=[
            {"kind": "output", "name": "quality", "path": "output.q", "semantic": "quality.score"}
        ],
        reports={
            "leaderboard": {
                "metrics": [{"name": "q", "metric": "quality.score", "aggregate": "mean"}]
            },
            "matrix": {"metric": "quality.score"},
            "comparisons": [
                {
                    "baseline": "base",
                    "candidate": HOSTILE,
                    "metrics": [{"name": "avg_q", "metric": "quality.score", "aggregate": "mean"}],
                }
            ],
        },
    )


def export_html(result: ExperimentResult) -> str:
    content = exporter_registry().get("html").export(build_report(result), result)
    assert isinstance(content, str)
    return content


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.external: list[str] = []
        self.text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "script":
            self.scripts.append(found)
            self._in_script = True
        if tag == "img":
            self.external.append(f"img {found}")
        for name in ("src", "href"):
            if found.get(name):
                self.external.append(f"{tag} {name}={found[name]}")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if not self._in_script:
            self.text.append(data)


def test_html_is_registered_like_the_other_formats() -> None:
    exporter = exporter_registry().get("html")
    assert (exporter.name, exporter.extension) == ("html", "html")


def test_page_is_self_contained_and_user_text_stays_text(run_bench: RunBench) -> None:
    page = export_html(hostile_result(run_bench))
    parsed = _Collector()
    parsed.feed(page)
    # Three scripts: the JSON data, plotly.js (basic bundle) and the page's own; nothing is loaded.
    assert [s.get("type") for s in parsed.scripts] == ["application/json", None, None]
    assert not any("src" in s for s in parsed.scripts)
    assert parsed.external == []
    assert "<script>window.__pwned" not in page
    assert "<img src=x" not in page
    # Markup in the template's text is escaped and reads back as the original text.
    assert HOSTILE in "".join(parsed.text)
    data_text = re.search(
        r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S
    )
    assert data_text is not None
    data = json.loads(data_text.group(1))
    strings = data["strings"]
    runs = [[run[0], *(strings[i] for i in run[1:4]), *run[4:]] for run in data["runs"]]
    assert {run[1] for run in runs} == {HOSTILE, "plain", "boom"}
    hostile_run = next(run for run in runs if run[1] == "plain" and run[2] == "base")
    assert hostile_run[3] == "failed" and HOSTILE in hostile_run[4]
    span_names = [strings[i] for i in hostile_run[8][::4]]  # waterfall: 4 integers per span
    assert "step " + HOSTILE in span_names
    errored = next(run for run in runs if run[1] == "boom")
    assert strings[errored[6][0][1]] == "RuntimeError" and HOSTILE in errored[6][0][2]
    # Chart labels reach plotly HTML-escaped; the matrix's script sets its text as text.
    assert "&lt;script&gt;" in json.dumps(data["figures"]["intervals"])
    assert HOSTILE in data["matrix"]["cases"] and HOSTILE in data["matrix"]["variants"]


def test_every_section_has_its_chart(run_bench: RunBench) -> None:
    page = export_html(hostile_result(run_bench))
    data = json.loads(
        re.search(r'id="report-data">(.*?)</script>', page, re.S).group(1)  # type: ignore[union-attr]
    )
    figures = data["figures"]
    assert len(figures["intervals"]) == 1
    assert {f["title"].split(":")[0] for f in figures["distributions"]} >= {
        "time.latency [ms]",
        "cost.total [USD]",
        "quality.score",
    }
    assert len(figures["scatter"]) == 1 and "cost" in figures["scatter"][0]["title"]
    assert data["matrix"]["cells"]
    (comparison,) = figures["forest"]  # mean paired delta with its interval
    assert comparison["data"][0]["error_x"]["type"] == "data"
    assert "verdict" in page and "Holm p" in page
    for kind, items in figures.items():
        for index, figure in enumerate(items):
            assert f'id="chart-{kind}-{index}"' in page
            assert str(escape(figure["title"])) in page  # shown above its chart


def test_script_json_cannot_close_its_element() -> None:
    text = script_json({"a": "</script><!-- & \u2028"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"a": "</script><!-- & \u2028"}


def test_mean_interval_is_a_student_t_interval() -> None:
    mean, low, high = mean_interval([1.0, 2.0, 3.0])  # type: ignore[misc]
    assert mean == 2.0
    # t(0.975, 2) = 4.303, sem = 1 / sqrt(3)
    assert (high - mean) == pytest.approx(4.302653 / 3**0.5, rel=1e-5)
    assert low == pytest.approx(2 * mean - high)
    assert mean_interval([5.0]) == (5.0, 5.0, 5.0)
    assert mean_interval([]) is None


def test_pareto_front_keeps_the_undominated_points() -> None:
    points = [(1.0, 0.5), (2.0, 0.9), (3.0, 0.8), (0.5, 0.2), (2.0, 0.9)]
    # (3.0, 0.8) is beaten by (2.0, 0.9); equal points both stay.
    assert pareto_front(points) == [3, 0, 1, 4]
