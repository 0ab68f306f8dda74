"""Reading and writing human labels files (YAML or CSV), see :mod:`._labels_model`.

YAML::

    score: correct            # the score these labels are for (optional)
    labels:
      - run_id: 3f2a...       # or case: and variant:
        label: true           # pass/fail, an integer, or text
        labeller: ana         # optional
        note: cites the wrong policy   # optional

A YAML file may also be a bare list of labels. CSV has a header row naming the columns
``run_id``, ``case``, ``variant``, ``label``, ``labeller`` and ``note`` (any order; other
columns, such as those of an exported labelling sheet, are ignored; a row whose ``label``
cell is empty is an item nobody labelled yet). Files Autobench writes carry the
``record: {type: labels, version: 1}`` header; one typed by hand may leave it out.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from autobench.records._errors import RecordFormatError, RecordingError
from autobench.records._labels_model import LABELS_VERSION, Label, LabelsFile
from autobench.records._yaml import record_text, render_sections
from autobench.records._yaml_input import load_input

LABEL_COLUMNS = ("run_id", "case", "variant", "label", "labeller", "note")
"""The columns of a labels CSV that :func:`read_labels` reads."""


class LabelsError(RecordFormatError):
    """A labels file cannot be read: not YAML or CSV, or an item that is not a label (the
    message names the file and the 1-based item, or the CSV line)."""


def read_labels(path: Path) -> LabelsFile:
    """The labels in ``path``: CSV when its name ends in ``.csv``, YAML otherwise. Raises
    :class:`LabelsError` (located) for a malformed file, :class:`MissingRecordError`-like
    ``FileNotFoundError`` when it does not exist."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise LabelsError("no such labels file", path=path) from None
    if path.suffix.lower() == ".csv":
        return _read_csv(text, path)
    return _read_yaml(text, path)


def _read_yaml(text: str, path: Path) -> LabelsFile:
    data = load_input(text, source=path)
    if data is None:
        return LabelsFile()
    if isinstance(data, list):
        data = {"labels": data}
    if not isinstance(data, dict):
        raise LabelsError("a labels file is a mapping with `labels:` or a list", path=path)
    data = dict(data)
    header = data.pop("record", None)
    if header is not None and (not isinstance(header, dict) or header.get("type") != "labels"):
        raise LabelsError(f"not a labels file (record header {header!r})", path=path)
    version = header.get("version", LABELS_VERSION) if isinstance(header, dict) else 1
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise LabelsError(f"labels version {version!r} is not a positive integer", path=path)
    if version > LABELS_VERSION:
        raise LabelsError(
            f"labels version {version} is newer than this Autobench reads "
            f"(up to {LABELS_VERSION}); upgrade Autobench to read it",
            path=path,
        )
    items = data.get("labels") or []
    if not isinstance(items, list):
        raise LabelsError("`labels` is a list of labels", path=path)
    labels = [_label(item, path, f"label {index}") for index, item in enumerate(items, 1)]
    try:
        return LabelsFile(score=data.get("score"), labels=tuple(labels))
    except ValidationError as exc:
        raise LabelsError(_first_problem(exc), path=path) from None


def _read_csv(text: str, path: Path) -> LabelsFile:
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None or "label" not in reader.fieldnames:
        raise LabelsError("a labels CSV has a header row with a `label` column", path=path)
    labels = []
    for row in reader:
        cells = {
            column: (row.get(column) or "").strip() or None
            for column in LABEL_COLUMNS
            if column in reader.fieldnames
        }
        if cells.get("label") is None:
            continue  # an item nobody labelled yet
        labels.append(_label(cells, path, f"line {reader.line_num}"))
    return LabelsFile(labels=tuple(labels))


def _label(item: Any, path: Path, where: str) -> Label:
    try:
        return Label.model_validate(item)
    except ValidationError as exc:
        raise LabelsError(f"{where}: {_first_problem(exc)}", path=path) from None


def _first_problem(exc: ValidationError) -> str:
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error["loc"])
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{field}: {message}" if field else message


def labels_text(labels: LabelsFile) -> str:
    """The YAML text Autobench writes for ``labels`` (schema comment and ``record`` header
    first; empty fields left out)."""
    sections: dict[str, Any] = {}
    if labels.score is not None:
        sections["score"] = labels.score
    sections["labels"] = [item.model_dump(exclude_none=True) for item in labels.labels]
    return record_text("labels", LABELS_VERSION, render_sections(sections))


def write_labels(path: Path, labels: LabelsFile) -> None:
    """Write ``labels`` to ``path`` atomically: a temporary file beside it, flushed and
    fsynced, then renamed over ``path`` (a labels file is meant to grow label by label, so
    it is replaced; a crash leaves the previous version or the new one, never half of
    one). Raises :class:`RecordingError` naming the path when storage fails."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("w", encoding="utf-8", newline="\n") as handle:
            handle.write(labels_text(labels))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
        _sync_directory(path.parent)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise RecordingError(f"cannot write labels to {path}: {exc}", path=path) from exc


def _sync_directory(directory: Path) -> None:
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:  # platforms without directory descriptors
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
