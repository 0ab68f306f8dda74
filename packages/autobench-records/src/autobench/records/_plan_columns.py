"""``experiment.yaml`` read with its plan as columns: :func:`experiment_record_with_plan_columns`.

A plan read as models takes about 1.5 KB and 20 us of CPU a planned run (at a million
planned runs, 1.5 GB and 20 s), where the index worker, which reads the experiment record
while the runs go on, needs only the plan's count until the end and then its columns. The
plan section the record writer writes (``autobench.records._span_text``) is one item of
four or five ``key: value`` lines a planned run::

    plan:
    - id: run_0000_case_0_a
      case: case-0
      variant: a
      path: cases/case-0/a/run.yaml
      input: f3013f...

In that layout the record is read without its plan (the section replaced by ``plan: []``;
a record that does not read is read whole, for the line and column of its error) and the
plan becomes a
:class:`~autobench.records.PlanTable` whose columns are read from the file, in one pass of
regular expressions, when first asked for. Each value is read as the YAML reader reads it:
a plain scalar that can only be a string (it starts with a letter, ``_`` or ``/``, is not
``true``, ``false`` or ``null`` in one of their spellings and holds no ``: ``, `` #`` or
trailing ``:``, YAML 1.2's core schema: https://yaml.org/spec/1.2.2/#1032-tag-resolution),
or a sha256 in hex with a letter other than ``e`` (no number or time), is taken as it is;
any other value is read by the record reader itself. A plan section in another layout is
read as models (:func:`~autobench.records.experiment_record_from_yaml`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from autobench.records._canonical import _OUTSIDE_TEXT, NOT_CANONICAL, read_canonical
from autobench.records._codec import experiment_record_from_yaml
from autobench.records._errors import RecordFormatError
from autobench.records._plan_table import PLAN_COLUMNS, PlanTable
from autobench.records._records import ExperimentRecord
from autobench.records._yaml import load_document

_START = "\nplan:\n"
_END = re.compile(r"\n(?![ -])")
"""The line break after the plan's last item line (the next line starts a top-level key)."""

_KEYS = ("- id: ", "  case: ", "  variant: ", "  path: ", "  input: ")
"""The start of each line of a planned run, in :data:`~autobench.records.PLAN_COLUMNS`
order (the ``input`` line is left out for a run recorded without one)."""
_ITEMS = re.compile(
    r"(?>- id: [^\n]*\n  case: [^\n]*\n  variant: [^\n]*\n  path: [^\n]*\n"
    r"(?:  input: [^\n]*\n)?)*+"
)
"""The writer's item lines, each item an atomic group and their repetition possessive: an
item is never matched again once matched, so the engine keeps no backtracking entry per
item (a piece of 4 MB took 34 MB with them)."""
_STRING = (
    r"(?:[ABCDEGHIJKLMOPQRSUVWXYZabcdeghijklmopqrsuvwxyz_/tTfFnN][^\n]*|[0-9e]*[a-df][0-9a-f]*)"
)
"""A plain scalar that can only be a string, save :data:`_WORD_VALUE` and the texts
:func:`_plainly_strings` rules out: a first character that starts no YAML 1.2 core-schema
pattern (``t``, ``f`` and ``n`` only ``true``, ``false`` and ``null``), or a hex text
with a letter other than ``e`` (no number or time)."""
_STRING_ITEMS = re.compile(
    f"(?>- id: {_STRING}\n  case: {_STRING}\n  variant: {_STRING}\n  path: {_STRING}\n"
    f"(?:  input: {_STRING}\n)?)*+"
)
_WORD_VALUE = re.compile(r": (?:true|True|TRUE|false|False|FALSE|null|Null|NULL)\n")
_GROUPS = re.compile(
    r"- id: ([^\n]*)\n  case: ([^\n]*)\n  variant: ([^\n]*)\n  path: ([^\n]*)\n"
    r"(?:  input: ([^\n]*)\n)?"
)
_CHUNK = 4 * 1024 * 1024
"""Bytes of the file read, and of plan lines checked or split, at a time (about 24,000
planned runs)."""
_START_BYTES = _START.encode()
_END_BYTES = re.compile(rb"\n(?![ -])")
_ITEM_BYTES = b"\n- id: "
_UNIQUE = frozenset({"id", "path"})
"""Columns whose values are each a planned run's own (the others' repeated values are
shared)."""


@dataclass(frozen=True)
class _Layout:
    start: int
    end: int
    count: int
    plain: bool
    """Whether every value is a plain scalar that can only be a string."""


def experiment_record_with_plan_columns(path: Path | str) -> ExperimentRecord:
    """The experiment record stored at ``path`` (an ``experiment.yaml``), its plan a
    :class:`~autobench.records.PlanTable` whose columns are read from the file when first
    asked for (module docstring); a plan in another layout is read as models. Raises
    ``OSError`` when the file cannot be read and
    :class:`~autobench.records.RecordFormatError` as
    :func:`~autobench.records.experiment_record_from_yaml` does; a column read later raises
    ``OSError``, or ``ValueError`` when the file's plan no longer has ``len(plan)`` runs
    in that layout (the file changed)."""
    source = Path(path)
    stamp = _stamp(source)
    scanned = _scan(source)
    if scanned is None:
        return _whole_record(source)
    head, layout = scanned
    try:
        experiment = experiment_record_from_yaml(head, source=source)
    except RecordFormatError:  # read whole, for the line and column of the file
        return _whole_record(source)
    if experiment.plan:  # a second plan section: not the writer's layout
        return _whole_record(source)
    columns = _Columns(source, stamp, layout)
    plan = PlanTable(layout.count, columns.column, columns.chunks)
    return experiment.model_copy(update={"plan": plan})


def _whole_record(source: Path) -> ExperimentRecord:
    return experiment_record_from_yaml(source.read_text(encoding="utf-8"), source=source)


def _stamp(path: Path) -> tuple[int, int, int]:
    info = os.stat(path)
    return info.st_size, info.st_mtime_ns, info.st_ino


def _scan(source: Path) -> tuple[str, _Layout] | None:
    """Read ``source`` a block at a time: its text without the plan's items (``plan: []``)
    and where those items are (byte offsets) and what they hold, when they are in the
    writer's layout; else ``None``. Only a block's worth of the plan is held at a time."""
    with open(source, "rb") as file:
        head = bytearray()
        data = b""
        offset = 0  # the file offset of data[0]
        while True:
            block = file.read(_CHUNK)
            data += block
            at = data.find(_START_BYTES)
            if at >= 0:
                break
            if not block:
                return None
            keep = max(0, len(data) - len(_START_BYTES) + 1)
            head += data[:keep]
            data, offset = data[keep:], offset + keep
        head += data[:at] + b"\nplan: []\n"
        start = offset + at + len(_START_BYTES)
        data = data[at + len(_START_BYTES) :]
        pieces = _Pieces(start)
        ended = False
        while True:
            found = _END_BYTES.search(data)
            if found is not None and (found.end() < len(data) or ended):
                stop = found.start() + 1
                if not pieces.add(data[:stop]):
                    return None
                head += data[stop:] + file.read()
                break
            if ended:
                return None  # a file not ending in a line break
            cut = data.rfind(_ITEM_BYTES)
            if cut > 0 and len(data) > _CHUNK:
                if not pieces.add(data[: cut + 1]):
                    return None
                data = data[cut + 1 :]
            block = file.read(_CHUNK)
            ended = not block
            data += block
    if pieces.count == 0:
        return None
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text, _Layout(start, pieces.offset, pieces.count, pieces.plain)


class _Pieces:
    """The plan's item lines checked a piece of whole items at a time (:func:`_scan`)."""

    def __init__(self, start: int) -> None:
        self.offset = start  # the file offset after the pieces added
        self.count = 0
        self.plain = True

    def add(self, piece: bytes) -> bool:
        """Check ``piece`` (whole items, from the file offset :attr:`offset`); whether
        they are in the writer's layout."""
        if not piece.startswith(b"- id: "):
            return False
        try:
            text = piece.decode("utf-8")
        except UnicodeDecodeError:
            return False
        if _OUTSIDE_TEXT.search(text) is not None:
            return False
        if self.plain:
            self.plain = _STRING_ITEMS.fullmatch(text) is not None and _plainly_strings(
                text, 0, len(text)
            )
        if not self.plain and _ITEMS.fullmatch(text) is None:
            return False
        self.count += text.count("\n- id: ") + 1
        self.offset += len(piece)
        return True


def _plainly_strings(text: str, start: int, end: int) -> bool:
    """Whether no value of the item lines is a word YAML reads as a boolean or null, nor
    holds ``: `` or `` #``, nor ends with ``:`` or a space (the plain scalars of
    :data:`_STRING` then all read as the texts they are)."""
    lines = text.count("\n", start, end)
    return (
        text.count(": ", start, end) == lines  # each line's only one follows its key
        and text.find(" #", start, end) < 0
        and text.find(":\n", start, end) < 0
        and text.find(" \n", start, end) < 0
        and _WORD_VALUE.search(text, start, end) is None
    )


class _Columns:
    """The plan's columns read from the file at once, when the first is asked for."""

    def __init__(self, source: Path, stamp: tuple[int, int, int], layout: _Layout) -> None:
        self.source = source
        self.stamp = stamp
        self.layout = layout
        self._read: dict[str, list[str | None]] | None = None

    def column(self, name: str) -> list[str | None]:
        if self._read is None:
            self._read = self._columns()
        return self._read.pop(name)  # the table keeps it; this object keeps nothing

    def _columns(self) -> dict[str, list[str | None]]:
        columns: dict[str, list[str | None]] = {name: [] for name in PLAN_COLUMNS}
        for chunk in self.chunks():
            for name, values in chunk.items():
                columns[name].extend(values)
        return columns

    def chunks(self) -> Iterator[dict[str, Sequence[str | None]]]:
        """The columns a piece of whole items (about :data:`_CHUNK` bytes) at a time, read
        from the file: only a piece of the plan is held at a time."""
        layout = self.layout
        if _stamp(self.source) != self.stamp:  # read the layout again: the count must hold
            scanned = _scan(self.source)
            if scanned is None or scanned[1].count != layout.count:
                raise ValueError(
                    f"{self.source}: the plan changed since it was read ({layout.count} runs)"
                )
            layout = scanned[1]
        read = 0
        for text in _items(self.source, layout):
            if text.count("\n  input: ") == text.count("\n- id: ") + 1:
                lines = text.split("\n")  # five lines a run: a column is every fifth line
                found = [
                    [line[len(key) :] for line in lines[at:-1:5]] for at, key in enumerate(_KEYS)
                ]
            else:  # "" for a run without an input line
                items = _GROUPS.findall(text)
                found = [[item[at] for item in items] for at in range(5)]
            read += len(found[0])
            yield {
                name: _strings(values, plain=layout.plain, share=name not in _UNIQUE)
                for name, values in zip(PLAN_COLUMNS, found, strict=True)
            }
        if read != layout.count:
            raise ValueError(f"{self.source}: the plan's items are not whole")


def _items(source: Path, layout: _Layout) -> Iterator[str]:
    """The plan's item lines of ``source`` (at ``layout``'s byte offsets), a piece of
    whole items of about :data:`_CHUNK` bytes at a time."""
    with open(source, "rb") as file:
        file.seek(layout.start)
        left = layout.end - layout.start
        data = b""
        while left > 0 or data:
            block = file.read(min(_CHUNK, left)) if left > 0 else b""
            left -= len(block)
            data += block
            if left > 0 and block:
                cut = data.rfind(_ITEM_BYTES)
                if cut <= 0:
                    continue
                piece, data = data[: cut + 1], data[cut + 1 :]
            else:
                piece, data = data, b""
            yield piece.decode("utf-8")


def _strings(values: list[str], *, plain: bool, share: bool) -> list[str | None]:
    """The values of scalars ``values`` as the record reader reads them (an empty value,
    or a line not written, is ``None``: YAML's null); each other value must be a string.
    ``plain``: each is a plain scalar that reads as the text it is. ``share``: one string
    for each distinct value."""
    if not plain:
        return [_read(value) if value else None for value in values]
    if share:
        shared: dict[str, str] = {}
        return [shared.setdefault(value, value) if value else None for value in values]
    return [value or None for value in values]


def _read(value: str) -> str:
    """``value`` (a scalar as written after ``key: ``) read by the record reader."""
    document = read_canonical(f"key: {value}\n")
    if document is NOT_CANONICAL:
        document = load_document(f"key: {value}\n")
    read = document.get("key") if isinstance(document, dict) else None
    if not isinstance(read, str):
        raise ValueError(f"a planned run's field holds {value!r}, not a string")
    return read
