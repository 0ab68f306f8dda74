"""Exports made in pieces (``Exporter.chunks``): the pieces of csv, junit and parquet join to
the whole export, end where a row or a test case ends, and are redacted one by one, so a
secret where a fixed-size cut would fall (across two writes of ``write_export``) is redacted
all the same; an exporter that only defines ``export`` is written as before."""

from __future__ import annotations

import csv
import io
import itertools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from report_support import RunBench

from autobench.abp import extend_redaction
from autobench.records import ExperimentResult
from autobench.report import (
    Report,
    StreamingExporter,
    _export_csv,
    _export_junit,
    _files,
    build_report,
    export_chunks,
    export_content,
    exporter_registry,
    redact_text,
    write_export,
)

SECRET = r"s8piece{tag}-[0-9]{{12}}\n[0-9]{{12}}"
"""The shape of a secret over two lines (as a PEM key is: a cut at a line end would leave
two parts no pattern recognises), with a tag of its own per test: redaction additions hold
for the whole process, and a later test's runs must record the secret as it is."""

_tags = itertools.count()

TASK = """
def run(ctx, case):
    ctx.metric("note", case.input["note"], semantic_type="test.note")
    if case.input["fail"]:
        raise RuntimeError("refused: " + case.input["note"])
    return {"ok": True}
"""


@dataclass
class Noted:
    result: ExperimentResult
    pattern: str


@pytest.fixture
def noted(run_bench: RunBench) -> Noted:
    """Twelve runs, each noting a text; runs 5 and 9 note a secret (and run 9 errors with it
    in its message). The secret's pattern is made known after the runs were recorded, as a
    record read by a program that names more secrets than the one that wrote it."""
    tag = f"{next(_tags)}x{os.getpid()}"

    def note(i: int) -> str:
        return f"s8piece{tag}-{i:012d}\n{i * 7:012d}" if i in (5, 9) else f"plain {i}"

    cases = [{"id": f"c{i:02d}", "input": {"note": note(i), "fail": i == 9}} for i in range(12)]
    result = run_bench(TASK, cases=cases, variants=[{"id": "only", "factors": {}}])
    pattern = SECRET.format(tag=tag)
    extend_redaction(patterns=[pattern])
    return Noted(result, pattern)


def _pieces(fmt: str, report: Report, result: ExperimentResult) -> list[str | bytes]:
    exporter = exporter_registry().get(fmt)
    assert isinstance(exporter, StreamingExporter)
    return list(exporter.chunks(report, result))


@pytest.mark.parametrize("fmt", ["csv", "junit"])
def test_text_pieces_join_to_the_export_and_end_with_a_row(
    fmt: str, noted: Noted, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_export_csv, "ROWS_PER_PIECE", 2)
    monkeypatch.setattr(_export_junit, "CASES_PER_PIECE", 2)
    report = build_report(noted.result)
    pieces = _pieces(fmt, report, noted.result)
    assert len(pieces) == 6 + (fmt == "junit")  # header with the first rows; closing tags
    assert "".join(map(str, pieces)) == exporter_registry().get(fmt).export(report, noted.result)
    if fmt == "csv":  # each piece holds whole rows, a two-line cell with its row
        rows = [list(csv.reader(io.StringIO(str(piece)))) for piece in pieces]
        assert [len(found) for found in rows] == [3, 2, 2, 2, 2, 2]
    else:  # each piece after the first starts a test case and ends one
        assert all(str(piece).startswith("    <testcase ") for piece in pieces[1:-1])
        assert all(str(piece).endswith("    </testcase>\n") for piece in pieces[:-1])


@pytest.mark.parametrize("fmt", ["csv", "junit"])
def test_a_secret_where_a_write_is_cut_is_redacted(
    fmt: str, noted: Noted, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_export_csv, "ROWS_PER_PIECE", 1)
    monkeypatch.setattr(_export_junit, "CASES_PER_PIECE", 1)
    report = build_report(noted.result)
    exporter = exporter_registry().get(fmt)
    raw = exporter.export(report, noted.result)
    assert isinstance(raw, str)
    # the record holds the secret (raw export); write_export's chunk of characters is set
    # to end in the middle of its first occurrence, between its two lines
    where = re.search(noted.pattern, raw)
    assert where is not None
    cut = where.start() + 20
    halves = redact_text(raw[:cut]) + redact_text(raw[cut:])
    assert "s8piece" in halves  # text redacted on either side of the cut keeps the secret
    monkeypatch.setattr(_files, "_CHUNK", cut)
    target = tmp_path / f"out.{exporter.extension}"
    write_export(target, export_chunks(exporter, report, noted.result))
    written = target.read_bytes().decode("utf-8")
    assert "s8piece-" not in written and "[redacted]" in written
    assert written == export_content(exporter, report, noted.result)  # as the whole text redacted


def test_parquet_row_groups_hold_the_same_table(
    noted: Noted, monkeypatch: pytest.MonkeyPatch
) -> None:
    from autobench.index import _export

    report = build_report(noted.result)
    whole = b"".join(_pieces("parquet", report, noted.result))
    monkeypatch.setattr(_export, "ROWS_PER_GROUP", 5)
    pieces = _pieces("parquet", report, noted.result)
    assert len(pieces) == 4  # three row groups of at most 5 runs, then the footer
    grouped = pq.ParquetFile(io.BytesIO(b"".join(pieces)))
    assert grouped.metadata.num_row_groups == 3
    one = pq.read_table(io.BytesIO(whole))
    assert pq.read_table(io.BytesIO(b"".join(pieces))).equals(one)
    assert grouped.schema_arrow.equals(one.schema, check_metadata=True)
    assert one.num_rows == 12


class _WholeText:
    """An exporter that defines ``export`` only (as third-party formats may)."""

    name = "whole"
    extension = "txt"
    description = "every note"

    def export(self, report: Report, result: ExperimentResult) -> str:
        return "".join(f"{value}\n" for value in report.run_rows.values("test.note"))


class _OddPieces(_WholeText):
    def chunks(self, report: Report, result: ExperimentResult) -> Iterator[object]:
        yield "fine\n"
        yield 42


def test_an_export_only_format_is_one_redacted_piece(noted: Noted) -> None:
    report = build_report(noted.result)
    pieces = list(export_chunks(_WholeText(), report, noted.result))
    assert len(pieces) == 1 and pieces[0] == export_content(_WholeText(), report, noted.result)
    assert "s8piece-" not in str(pieces[0]) and "[redacted]" in str(pieces[0])


def test_a_piece_that_is_not_text_or_bytes_is_refused(noted: Noted) -> None:
    report = build_report(noted.result)
    with pytest.raises(TypeError, match="'whole' made a piece of type int"):
        list(export_chunks(_OddPieces(), report, noted.result))
