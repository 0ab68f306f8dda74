"""Exports (yaml, csv, markdown, junit) of real tiny benchmarks: NaN scores, errored runs,
round trips through csv, pandas, YAML and XML parsers."""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET
from typing import Any

import pandas as pd
import pytest
from report_support import RunBench
from ruamel.yaml import YAML

from autobench.records import ExperimentResult
from autobench.report import build_report, exporter_registry

QUALITY_SCORER = {
    "kind": "output",
    "name": "quality",
    "path": "output.q",
    "semantic": "quality.score",
}
TWO_VARIANTS = [
    {"id": "base", "factors": {"model": "a"}},
    {"id": "cand", "factors": {"model": "b"}},
]

TASK = """
def run(ctx, case):
    if case.id == "c2" and ctx.factor("model") == "b":
        raise RuntimeError("provider | timeout")
    ctx.metric("latency", case.input["ms"], semantic_type="time.latency", unit="ms",
               role="objective")
    ctx.check("format", True)
    ctx.metric("model", "m-" + ctx.factor("model"), semantic_type="llm.model.name")
    return {"q": case.input["q"]}
"""


def _export(fmt: str, result: ExperimentResult) -> str:
    content = exporter_registry().get(fmt).export(build_report(result), result)
    assert isinstance(content, str)
    return content


def _yaml(text: str) -> Any:
    return YAML(typ="safe").load(text)


@pytest.fixture
def errored(run_bench: RunBench) -> ExperimentResult:
    cases = [
        {"id": f"c{i}", "input": {"ms": 100 * i, "q": q}} for i, q in enumerate((0.2, 0.4, 0.6), 1)
    ]
    return run_bench(TASK, cases=cases, variants=TWO_VARIANTS, scoring=[QUALITY_SCORER])


@pytest.fixture
def all_nan(run_bench: RunBench) -> ExperimentResult:
    cases = [{"id": f"c{i}", "input": {"ms": 100, "q": float("nan")}} for i in (1, 3)]
    return run_bench(TASK, cases=cases, variants=TWO_VARIANTS, scoring=[QUALITY_SCORER])


def test_yaml_export_has_the_report_record_shape(errored: ExperimentResult) -> None:
    data = _yaml(_export("yaml", errored))
    assert data["record"] == {"type": "report", "version": 1}
    report = data["report"]
    assert report["runs"] == 6 and report["status"]["errored"] == 1
    assert report["variants"]["cand"]["factors"] == {"model": "b"}
    latency = report["leaderboard"]["cand"]["metrics"]["time.latency"]
    assert (latency["value"], latency["n"], latency["total"], latency["unit"]) == (0.2, 2, 3, "s")
    assert report["cases"]["c2"]["cand"] == {
        "status": "errored", "reason": "RuntimeError: provider | timeout", "metrics": {}
    }  # fmt: skip
    assert report["matrix"]["cases"]["c2"] == {"base": 0.2, "cand": None}
    compare = report["compare"]["base -> cand"]
    assert compare["runs"] == 2 and compare["confounded"] is False
    assert compare["unpaired"] == {"c2": "errored in candidate"}
    assert compare["changed_factors"] == {"model": {"baseline": "a", "candidate": "b"}}


def test_yaml_export_writes_no_value_as_null(all_nan: ExperimentResult) -> None:
    report = _yaml(_export("yaml", all_nan))["report"]
    quality = report["leaderboard"]["base"]["metrics"]["quality.score"]
    assert (quality["value"], quality["n"]) == (None, 0)
    metric = report["compare"]["base -> cand"]["metrics"]["quality.score"]
    assert metric["baseline"] is None and metric["candidate"] is None and metric["delta"] is None


def test_csv_export_reads_back(errored: ExperimentResult) -> None:
    text = _export("csv", errored)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 6
    assert list(rows[0])[:6] == [
        "run",
        "case",
        "variant",
        "status",
        "task_status",
        "evaluation_status",
    ]
    assert {"time.latency [s]", "quality.score", "quality.correctness", "llm.model.name"} <= set(
        rows[0]
    )
    failed = next(row for row in rows if row["status"] == "errored")
    assert (failed["case"], failed["variant"]) == ("c2", "cand")
    assert failed["time.latency [s]"] == "" and failed["quality.score"] == ""
    assert failed["reason"] == "RuntimeError: provider | timeout"
    assert rows[0]["time.latency [s]"] == "0.1"


def test_csv_dtypes_in_pandas(run_bench: RunBench, errored: ExperimentResult) -> None:
    frame = pd.read_csv(io.StringIO(_export("csv", errored)))
    assert frame["time.latency [s]"].dtype == "float64"  # with a gap for the errored run
    assert frame["quality.score"].dtype == "float64"
    assert pd.api.types.is_string_dtype(frame["llm.model.name"])  # object (pandas 2) or str (3)
    assert frame["status"].tolist().count("errored") == 1
    cases = [{"id": f"c{i}", "input": {"ms": 100, "q": 0.5}} for i in (1, 2)]
    clean = run_bench(TASK.replace('case.id == "c2"', "False"), cases=cases, variants=TWO_VARIANTS)
    frame = pd.read_csv(io.StringIO(_export("csv", clean)))
    assert frame["quality.correctness"].dtype == "bool"
    assert frame["quality.correctness"].all()


def test_csv_all_nan_is_empty(all_nan: ExperimentResult) -> None:
    rows = list(csv.DictReader(io.StringIO(_export("csv", all_nan))))
    assert len(rows) == 4
    assert all(row["quality.score"] == "" for row in rows)


def test_markdown_export(errored: ExperimentResult, all_nan: ExperimentResult) -> None:
    text = _export("markdown", errored)
    assert "## Leaderboard" in text and "## Case matrix: time.latency [s]" in text
    assert "| c2 | 0.2 | errored |" in text
    assert "0.2 (n=2/3)" in text
    assert "RuntimeError: provider \\| timeout" in text  # the pipe is escaped
    assert "| c2 | errored in candidate |" in text
    for line in text.splitlines():
        if line.startswith("|"):
            cells = line.replace("\\|", "").count("|")
            assert cells >= 3, line
    assert "cause" in text and "caused" not in text
    nan_text = _export("markdown", all_nan)
    assert "no value (n=0/2)" in nan_text


def test_junit_export(errored: ExperimentResult, all_nan: ExperimentResult) -> None:
    root = ET.fromstring(_export("junit", errored))
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("6", "0", "1")
    cases = suite.findall("testcase")
    assert len(cases) == 6
    errored_case = next(c for c in cases if c.find("error") is not None)
    assert (errored_case.get("classname"), errored_case.get("name")) == ("report-test.cand", "c2")
    error = errored_case.find("error")
    assert error is not None and error.get("message") == "RuntimeError: provider | timeout"
    assert "Traceback" in (error.text or "")
    nan_root = ET.fromstring(_export("junit", all_nan))
    nan_cases = nan_root.findall("./testsuite/testcase")
    assert len(nan_cases) == 4
    assert all("quality.score = no value" in (c.findtext("system-out") or "") for c in nan_cases)


FAILING_TASK = """
def run(ctx, case):
    if case.id == "c2":
        ctx.check("format", False, reason="not json")
    return {"q": 1}
"""


def test_junit_failure_carries_the_reason(run_bench: RunBench) -> None:
    cases = [{"id": "c1"}, {"id": "c2"}]
    result = run_bench(FAILING_TASK, cases=cases, variants=TWO_VARIANTS[:1])
    root = ET.fromstring(_export("junit", result))
    assert root.get("failures") == "1"
    failure = root.find("./testsuite/testcase[@name='c2']/failure")
    assert failure is not None
    assert failure.get("message") == "constraint format failed: not json"
