"""The ``junit`` export: JUnit XML for CI systems, one ``<testcase>`` per run.

``<testsuites>`` holds one ``<testsuite name=<benchmark>>`` with the counts
``tests``, ``failures`` (failed runs), ``errors`` (errored runs), ``skipped``
and ``time`` (sum of run durations, seconds). Each run is a
``<testcase classname="<benchmark>.<variant>" name="<case>" time=...>`` with

* ``<failure message=<reason>>`` for a failed run (the failing constraint or
  reported error);
* ``<error message=<error> type=<type>>`` with the traceback for an errored run;
* ``<skipped>`` for a skipped run;

and ``<system-out>`` listing the run id and its projected metrics
(``semantic [unit] = value``; ``no value`` for none). Built with
:mod:`xml.etree.ElementTree`; characters XML 1.0 cannot hold are replaced.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from autobench.records import ExperimentResult, RunRecord, RunStatus, RunTable
from autobench.report._format import metric_label, value_text
from autobench.report._model import Report

_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _text(value: str) -> str:
    return _INVALID_XML.sub("\ufffd", value)


def _testcase(
    suite: ET.Element,
    report: Report,
    index: int,
    duration: float | None,
    run: RunRecord | None,
) -> None:
    rows = report.run_rows  # read as columns: no row model per run
    status = rows.statuses[index]
    duration = 0.0 if duration is None else duration
    case = ET.SubElement(
        suite,
        "testcase",
        classname=_text(f"{report.benchmark}.{rows.variant_ids[index]}"),
        name=_text(rows.case_ids[index]),
        time=f"{duration:.6f}",
    )
    reason = _text(rows.reason(index) or "")
    if status is RunStatus.FAILED:
        ET.SubElement(case, "failure", message=reason, type="failed").text = reason
    elif status is RunStatus.ERRORED:
        error = run.error if run is not None else None
        element = ET.SubElement(
            case, "error", message=reason, type=_text(error.type if error else "error")
        )
        element.text = _text((error.traceback if error else None) or reason)
    elif status is RunStatus.SKIPPED:
        ET.SubElement(case, "skipped", message=reason)
    lines = [f"run: {rows.run_ids[index]}"]
    for semantic, unit in report.metric_units.items():
        value = rows.values(semantic)[index]
        shown = "no value" if value is None else value_text(value)
        lines.append(f"{metric_label(semantic, unit)} = {shown}")
    ET.SubElement(case, "system-out").text = _text("\n".join(lines))


def render_junit(report: Report, result: ExperimentResult) -> str:
    """The JUnit XML text (with an XML declaration) of ``report``."""
    runs = result.runs
    if isinstance(runs, RunTable):  # whole records only for the errored runs
        durations = dict(zip(runs.run_ids, runs.durations, strict=True))
        errored = [i for i, status in enumerate(runs.statuses) if status is RunStatus.ERRORED]
        records = {run.run_id: run for run in runs.records(errored)}
        times = runs.durations
    else:
        durations = {run.run_id: run.run.duration for run in runs}
        records = {run.run_id: run for run in runs}
        times = tuple(run.run.duration for run in runs)
    status = report.status
    total_time = sum(duration or 0.0 for duration in times)
    root = ET.Element("testsuites", name=_text(report.experiment))
    suite = ET.SubElement(
        root,
        "testsuite",
        name=_text(report.benchmark),
        tests=str(len(report.run_rows)),
        failures=str(status.failed),
        errors=str(status.errored),
        skipped=str(status.skipped),
        time=f"{total_time:.6f}",
    )
    for index, run_id in enumerate(report.run_rows.run_ids):
        _testcase(suite, report, index, durations.get(run_id), records.get(run_id))
    for key in ("tests", "failures", "errors", "skipped", "time"):
        root.set(key, suite.get(key, ""))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


class JunitExporter:
    """``junit``: JUnit XML for CI (see the module docstring)."""

    name = "junit"
    extension = "xml"
    description = "JUnit XML: one test case per run, for CI systems."

    def export(self, report: Report, result: ExperimentResult) -> str:
        return render_junit(report, result)
