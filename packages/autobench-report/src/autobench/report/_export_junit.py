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
(``semantic [unit] = value``; ``no value`` for none). Characters XML 1.0 cannot
hold are replaced.

The text is written run by run, as :mod:`xml.etree.ElementTree` would serialise the
same tree after ``ET.indent`` (the same bytes: two-space indentation, attributes in
order, ``<tag ... />`` for an element without text, ElementTree's escaping), without
an element per run: at a million runs the tree alone took about a gigabyte. It is made a
thousand test cases at a time (:func:`junit_pieces`), never whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from autobench.records import ExperimentResult, RunRecord, RunStatus, RunTable
from autobench.report._format import metric_label, value_text
from autobench.report._model import Report

_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _text(value: str) -> str:
    return _INVALID_XML.sub("\ufffd", value)


def escape_text(text: str) -> str:
    """``text`` as ElementTree writes character data: ``&``, ``<`` and ``>`` escaped."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def escape_attribute(text: str) -> str:
    """``text`` as ElementTree writes an attribute value: ``&``, ``<``, ``>`` and ``"``
    escaped, carriage returns, line feeds and tabs as character references."""
    text = escape_text(text)
    if '"' in text:
        text = text.replace('"', "&quot;")
    if "\r" in text:
        text = text.replace("\r", "&#13;")
    if "\n" in text:
        text = text.replace("\n", "&#10;")
    if "\t" in text:
        text = text.replace("\t", "&#09;")
    return text


def _attributes(pairs: Sequence[tuple[str, str]]) -> str:
    return "".join(f' {key}="{escape_attribute(value)}"' for key, value in pairs)


def _leaf(write: Callable[[str], Any], indent: str, tag: str, attributes: str, text: str) -> None:
    """One element without children (a tail that is only indentation, as ``ET.indent``
    sets); ``<tag ... />`` when ``text`` is empty, as ElementTree writes it."""
    if text:
        write(f"{indent}<{tag}{attributes}>{escape_text(text)}</{tag}>\n")
    else:
        write(f"{indent}<{tag}{attributes} />\n")


_CASE = "    "
_CHILD = "      "


def _testcase(
    write: Callable[[str], Any],
    report: Report,
    index: int,
    duration: float | None,
    run: RunRecord | None,
    values: Sequence[tuple[str, Sequence[Any]]],
) -> None:
    rows = report.run_rows  # read as columns: no row model per run
    status = rows.statuses[index]
    duration = 0.0 if duration is None else duration
    head = _attributes(
        (
            ("classname", _text(f"{report.benchmark}.{rows.variant_ids[index]}")),
            ("name", _text(rows.case_ids[index])),
            ("time", f"{duration:.6f}"),
        )
    )
    write(f"{_CASE}<testcase{head}>\n")
    reason = _text(rows.reason(index) or "")
    if status is RunStatus.FAILED:
        _leaf(
            write, _CHILD, "failure", _attributes((("message", reason), ("type", "failed"))), reason
        )
    elif status is RunStatus.ERRORED:
        error = run.error if run is not None else None
        kind = _text(error.type if error else "error")
        text = _text((error.traceback if error else None) or reason)
        _leaf(write, _CHILD, "error", _attributes((("message", reason), ("type", kind))), text)
    elif status is RunStatus.SKIPPED:
        _leaf(write, _CHILD, "skipped", _attributes((("message", reason),)), "")
    lines = [f"run: {rows.run_ids[index]}"]
    for label, column in values:
        value = column[index]
        lines.append(f"{label} = {'no value' if value is None else value_text(value)}")
    _leaf(write, _CHILD, "system-out", "", _text("\n".join(lines)))
    write(f"{_CASE}</testcase>\n")


def render_junit(report: Report, result: ExperimentResult) -> str:
    """The JUnit XML text (with an XML declaration) of ``report``: :func:`junit_pieces`
    joined."""
    return "".join(junit_pieces(report, result))


CASES_PER_PIECE = 1_024
"""``<testcase>`` elements in one piece of :func:`junit_pieces` (about 250 KB of text for
the runs of a trivial benchmark)."""


def junit_pieces(report: Report, result: ExperimentResult) -> Iterator[str]:
    """The JUnit XML text of ``report`` in pieces, made as they are asked for: the
    declaration and the opening elements with the first :data:`CASES_PER_PIECE` whole
    ``<testcase>`` elements, then as many a piece, the closing elements with the last."""
    runs = result.runs
    run_ids = report.run_rows.run_ids
    duration_of: Callable[[int, str], float | None]
    if isinstance(runs, RunTable):  # whole records only for the errored runs
        errored = [i for i, status in enumerate(runs.statuses) if status is RunStatus.ERRORED]
        records = {run.run_id: run for run in runs.records(errored)}
        times: Sequence[float | None] = runs.durations
        if run_ids is runs.run_ids:  # the rows are the table's runs: by position
            duration_of = lambda index, _: times[index]  # noqa: E731
        else:
            by_id = dict(zip(runs.run_ids, runs.durations, strict=True))
            duration_of = lambda _, run_id: by_id.get(run_id)  # noqa: E731
    else:
        durations = {run.run_id: run.run.duration for run in runs}
        records = {run.run_id: run for run in runs}
        times = tuple(run.run.duration for run in runs)
        duration_of = lambda _, run_id: durations.get(run_id)  # noqa: E731
    status = report.status
    total_time = sum(duration or 0.0 for duration in times)
    counts = (
        ("tests", str(len(report.run_rows))),
        ("failures", str(status.failed)),
        ("errors", str(status.errored)),
        ("skipped", str(status.skipped)),
        ("time", f"{total_time:.6f}"),
    )
    out: list[str] = []
    write = out.append
    write("<?xml version='1.0' encoding='utf-8'?>\n")
    write(f"<testsuites{_attributes((('name', _text(report.experiment)), *counts))}>\n")
    suite = _attributes((("name", _text(report.benchmark)), *counts))
    if not run_ids:
        write(f"  <testsuite{suite} />\n</testsuites>\n")
        yield "".join(out)
        return
    write(f"  <testsuite{suite}>\n")
    values = [
        (metric_label(semantic, unit), report.run_rows.values(semantic))
        for semantic, unit in report.metric_units.items()
    ]
    for index, run_id in enumerate(run_ids):
        _testcase(write, report, index, duration_of(index, run_id), records.get(run_id), values)
        if index % CASES_PER_PIECE == CASES_PER_PIECE - 1:  # a piece ends with a </testcase>
            yield "".join(out)
            out.clear()
    write("  </testsuite>\n</testsuites>\n")
    yield "".join(out)


class JunitExporter:
    """``junit``: JUnit XML for CI (see the module docstring); ``chunks`` gives the text
    in pieces of whole ``<testcase>`` elements (:func:`junit_pieces`)."""

    name = "junit"
    extension = "xml"
    description = "JUnit XML: one test case per run, for CI systems."

    def export(self, report: Report, result: ExperimentResult) -> str:
        return render_junit(report, result)

    def chunks(self, report: Report, result: ExperimentResult) -> Iterator[str]:
        return junit_pieces(report, result)
