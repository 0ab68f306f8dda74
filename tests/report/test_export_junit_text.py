"""The JUnit export is written as text, run by run: the same bytes as ElementTree gives for
the same tree (the export's earlier implementation, kept here as the reference), on real
benchmarks with failed, errored, skipped and metric-less runs, and on text that needs every
kind of escaping."""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET

from hypothesis import given, settings
from hypothesis import strategies as st
from report_support import RunBench

from autobench.records import ExperimentResult, RunRecord, RunStatus, RunTable
from autobench.report import build_report, exporter_registry
from autobench.report._export_junit import escape_attribute, escape_text
from autobench.report._format import metric_label, value_text
from autobench.report._model import Report

_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _t(value: str) -> str:
    return _INVALID_XML.sub("\ufffd", value)


def _reference(report: Report, result: ExperimentResult) -> str:
    """The JUnit text as the export built it with an ElementTree element per run."""
    runs = result.runs
    if isinstance(runs, RunTable):
        durations = dict(zip(runs.run_ids, runs.durations, strict=True))
        records: dict[str, RunRecord] = {run.run_id: run for run in runs}
        times = list(runs.durations)
    else:
        durations = {run.run_id: run.run.duration for run in runs}
        records = {run.run_id: run for run in runs}
        times = [run.run.duration for run in runs]
    status = report.status
    root = ET.Element("testsuites", name=_t(report.experiment))
    suite = ET.SubElement(
        root,
        "testsuite",
        name=_t(report.benchmark),
        tests=str(len(report.run_rows)),
        failures=str(status.failed),
        errors=str(status.errored),
        skipped=str(status.skipped),
        time=f"{sum(d or 0.0 for d in times):.6f}",
    )
    rows = report.run_rows
    for index, run_id in enumerate(rows.run_ids):
        duration = durations.get(run_id) or 0.0
        case = ET.SubElement(
            suite,
            "testcase",
            classname=_t(f"{report.benchmark}.{rows.variant_ids[index]}"),
            name=_t(rows.case_ids[index]),
            time=f"{duration:.6f}",
        )
        reason = _t(rows.reason(index) or "")
        run_status = rows.statuses[index]
        if run_status is RunStatus.FAILED:
            ET.SubElement(case, "failure", message=reason, type="failed").text = reason
        elif run_status is RunStatus.ERRORED:
            error = records[run_id].error
            element = ET.SubElement(
                case, "error", message=reason, type=_t(error.type if error else "error")
            )
            element.text = _t((error.traceback if error else None) or reason)
        elif run_status is RunStatus.SKIPPED:
            ET.SubElement(case, "skipped", message=reason)
        lines = [f"run: {run_id}"]
        for semantic, unit in report.metric_units.items():
            value = rows.values(semantic)[index]
            lines.append(
                f"{metric_label(semantic, unit)} = {'no value' if value is None else value_text(value)}"
            )
        ET.SubElement(case, "system-out").text = _t("\n".join(lines))
    for key in ("tests", "failures", "errors", "skipped", "time"):
        root.set(key, suite.get(key, ""))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _junit(result: ExperimentResult) -> tuple[str, str]:
    report = build_report(result)
    text = exporter_registry().get("junit").export(report, result)
    assert isinstance(text, str)
    return text, _reference(report, result)


TASK = """
def run(ctx, case):
    kind = case.input["kind"]
    if kind == "boom":
        raise RuntimeError('bad <"input"> & \\tmore\\r\\nlines')
    if kind == "fail":
        ctx.check("format", False, reason='not <json> & "quoted"\\nsecond line')
    if kind == "empty":
        ctx.check("format", False)
    if kind != "bare":
        ctx.metric("latency", case.input["ms"], semantic_type="time.latency", unit="ms")
        ctx.metric("label", "a<b & c>\\"d\\"", semantic_type="llm.model.name")
    return {"q": 1}
"""

VARIANTS = [{"id": "base & <one>", "factors": {"m": "a"}}, {"id": "cand", "factors": {"m": "b"}}]


def test_junit_text_is_elementtrees_for_failed_errored_and_plain_runs(run_bench: RunBench) -> None:
    kinds = ["ok", "boom", "fail", "empty", "bare"]
    cases = [
        {"id": f"c{i}\u0001<{k}>", "input": {"kind": k, "ms": 10 * i}} for i, k in enumerate(kinds)
    ]
    result = run_bench(TASK, cases=cases, variants=VARIANTS)
    statuses = {run.status for run in result.runs}
    assert {RunStatus.PASSED, RunStatus.FAILED, RunStatus.ERRORED} <= statuses
    text, reference = _junit(result)
    assert text == reference
    assert "&lt;" in text and "&#10;" in text and "\ufffd" in text
    ET.fromstring(text)  # well formed


def test_junit_text_of_a_run_less_report_is_elementtrees(run_bench: RunBench) -> None:
    result = run_bench(
        TASK, cases=[{"id": "c", "input": {"kind": "ok", "ms": 1}}], variants=VARIANTS
    )
    empty = dataclasses.replace(result, runs=())
    report = build_report(empty)
    text = exporter_registry().get("junit").export(report, empty)
    assert text == _reference(report, empty)
    assert "<testsuite " in text and text.count("<testcase") == 0


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_escaping_is_elementtrees(text: str) -> None:
    clean = _t(text)
    element = ET.Element("e", a=clean)
    element.text = clean
    written = ET.tostring(element, encoding="unicode")
    expected = (
        f'<e a="{escape_attribute(clean)}">{escape_text(clean)}</e>'
        if clean
        else (f'<e a="{escape_attribute(clean)}" />')
    )
    assert written == expected
