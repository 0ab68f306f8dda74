"""The dataset section: inline cases, case files and ``file://`` globs, defaults, version, metadata.

Shape (authoring DSL and structured form alike)::

    dataset:
      id: tickets              # optional
      version: v2              # optional; an integer is read as its text
      metadata: {owner: docs}  # optional
      source: file://datasets/*.yaml   # optional: local file, file:// reference or glob
      defaults: {input, expected, metadata, tags}   # optional, see CaseDefaults
      cases: [{id, input, expected, metadata, tags, attachments}, ...] | datasets/cases.yaml

A dataset file holds ``cases: [...]`` with optional ``id``, ``version``,
``metadata`` and ``defaults`` (or the id-keyed form ``{tickets: {version, metadata,
defaults, cases}}``, under a top-level ``dataset:`` key or not, the exported shape
``{record, dataset: {...}}``, or a bare list of cases). Rules:

- ``cases`` as a string is a file reference, like ``source``. When ``cases`` is
  a list, ``source`` is kept for the record only and not read again (this is
  how a loaded, already resolved spec looks when dumped).
- Glob matches are read in sorted path order; a glob that matches nothing is an error.
- Defaults: a file's ``defaults`` apply to its own cases, then the spec's
  ``dataset.defaults`` apply to all (see :meth:`CaseDefaults.apply`: mappings
  merge recursively with the case winning, tags are concatenated defaults
  first and de-duplicated, case scalars override).
- ``version`` and ``id`` from the spec win; otherwise files must agree.
  ``metadata`` merges the files' metadata in order, then the spec's over it.
- Duplicate case ids, across files too, are errors located at the second one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autobench.core.spec._case_list import CaseList
from autobench.core.spec._checks import (
    expect_keys,
    expect_mapping,
    model_keys,
    validate_model,
)
from autobench.core.spec._errors import Location, SpecError
from autobench.core.spec._files import SpecFiles
from autobench.core.spec._models import CaseDefaults, DatasetSpec, _merge
from autobench.core.spec._yaml import Located, kind_of, note_reshaped
from autobench.core.spec._yaml_stream import DATASET_CASE_PATHS, DeferredCases, deferring
from autobench.records import Case

DATASET_KEYS = frozenset({"id", "version", "metadata", "source", "defaults", "cases"})
FILE_KEYS = frozenset({"id", "version", "metadata", "defaults", "cases"})
CASE_KEYS = model_keys(Case)


@dataclass
class _Collected:
    """Cases gathered from inline lists and files, each with the file defaults that apply to it."""

    cases: list[tuple[Iterable[Located], CaseDefaults | None]] = field(default_factory=list)
    """Runs of cases in file order: the located items of a list, or a list not read yet
    (:class:`DeferredCases`, whose items are composed one at a time)."""
    declared: dict[str, list[Located]] = field(default_factory=lambda: {"id": [], "version": []})
    metadata: dict[str, Any] = field(default_factory=dict)


def load_dataset(
    section: Located | None, cases_ref: Located | None, files: SpecFiles
) -> DatasetSpec:
    """Build the :class:`DatasetSpec` of ``section`` (the ``dataset`` mapping, if any).

    ``cases_ref`` is a benchmark-level ``cases`` entry of the authoring DSL
    (a list or a file reference). Raises :class:`SpecError` (located) for
    unknown keys, wrong types, bad references and duplicate case ids.
    """
    if section is None and cases_ref is None:
        return DatasetSpec()
    if section is not None:
        expect_mapping(section, "dataset")
        expect_keys(section, DATASET_KEYS, "dataset")
    defaults = _defaults(_entry(section, "defaults"), "dataset defaults")
    collected = _Collected()
    cases_item = _entry(section, "cases")
    if cases_item is not None and cases_ref is not None:
        raise SpecError(
            cases_ref.key_location,
            "cases are given twice (benchmark 'cases' and 'dataset.cases')",
            expected="one of them",
        )
    cases_item = cases_item or cases_ref
    source = _entry(section, "source")
    if cases_item is not None and isinstance(cases_item.value, list):
        collected.cases.append((_items(cases_item), None))
    elif cases_item is not None:
        _collect_files(files.resolve(cases_item, "cases"), cases_item, files, collected)
    elif source is not None:
        _collect_files(files.resolve(source, "dataset source"), source, files, collected)
    data: dict[str, Any] = {
        "id": _scalar_text(_entry(section, "id"), "dataset id")
        or _agreed(collected.declared["id"], "id"),
        "version": _scalar_text(_entry(section, "version"), "dataset version")
        or _agreed(collected.declared["version"], "version"),
        "source": _scalar_text(source, "dataset source") or _file_reference(cases_item),
        "metadata": _merge(
            collected.metadata, _metadata(_entry(section, "metadata"), "dataset metadata")
        ),
        "defaults": defaults,
        "cases": _cases(collected, defaults),
    }
    where = section if section is not None else cases_ref
    assert where is not None
    return validate_model(DatasetSpec, data, where, "dataset")


def _file_reference(item: Located | None) -> str | None:
    """The text of a ``cases`` file reference (kept as the dataset's source)."""
    return item.value if item is not None and isinstance(item.value, str) else None


def _entry(section: Located | None, key: str) -> Located | None:
    """The entry ``key`` of ``section``; ``None`` when the section, key or value is absent."""
    item = None if section is None else section.get(key)
    return None if item is None or item.value is None else item


def _collect_files(
    paths: list[Path], ref: Located, files: SpecFiles, collected: _Collected
) -> None:
    for path in paths:
        document = files.read(path, ref.location, parse=deferring(DATASET_CASE_PATHS))
        top = document.located
        if document.root is None:
            raise SpecError(
                top.location, "the dataset file is empty", expected="a mapping with 'cases'"
            )
        if isinstance(top.value, dict) and "dataset" in top.value:
            expect_keys(top, {"record", "dataset"}, "dataset file")
            top = top.get("dataset") or top
        keyed = _keyed_dataset(top)
        if keyed is not None:  # the id-keyed DSL form: {tickets: {version, cases, ...}}
            top, declared_id = keyed
            if top.get("id") is None:
                collected.declared["id"].append(declared_id)
        if isinstance(top.value, list):
            collected.cases.append((_items(top), None))
            continue
        expect_mapping(top, "a dataset file")
        expect_keys(top, FILE_KEYS, "dataset file")
        cases = top.get("cases")
        if cases is None or not isinstance(cases.value, list):
            where = top.location if cases is None else cases.location
            found = "no 'cases'" if cases is None else f"'cases' is {kind_of(cases.value)}"
            raise SpecError(
                where, f"a dataset file must list its cases ({found})", expected="cases: [...]"
            )
        defaults = _defaults(top.get("defaults"), "dataset file defaults")
        collected.cases.append((_items(cases), defaults))
        for key in ("id", "version"):
            item = top.get(key)
            if item is not None and item.value is not None:
                _scalar_text(item, f"dataset {key}")
                collected.declared[key].append(item)
        collected.metadata = _merge(
            collected.metadata, _metadata(top.get("metadata"), "dataset metadata")
        )


def _keyed_dataset(top: Located) -> tuple[Located, Located] | None:
    """``(body, id)`` when ``top`` is the id-keyed form, one key naming the dataset over a
    mapping that lists its cases (``{tickets: {version: v2, cases: [...]}}``), else ``None``.
    The id is located at its key."""
    if not isinstance(top.value, dict) or len(top.value) != 1:
        return None
    ((key, body),) = top.items()
    if key in FILE_KEYS or not isinstance(key, str) or not isinstance(body.value, dict):
        return None
    if "cases" not in body.value:
        return None
    return body, Located(body.doc, key, body.key_node, None, body.key_location)


def _defaults(item: Located | None, what: str) -> CaseDefaults | None:
    if item is None or item.value is None:
        return None
    expect_mapping(item, what)
    expect_keys(item, model_keys(CaseDefaults), what)
    note_reshaped(item)
    return validate_model(CaseDefaults, item.value, item, what)


def _metadata(item: Located | None, what: str) -> dict[str, Any]:
    if item is None:
        return {}
    return expect_mapping(item, what)


def _scalar_text(item: Located | None, what: str) -> str | None:
    """A string value; integers (``version: 2``) are read as their text."""
    if item is None or item.value is None:
        return None
    if isinstance(item.value, int) and not isinstance(item.value, bool):
        return str(item.value)
    if not isinstance(item.value, str):
        raise SpecError(
            item.location,
            f"{what} must be a string, not {kind_of(item.value)}",
            expected="a string",
        )
    return item.value


def _agreed(items: list[Located], key: str) -> str | None:
    first: Located | None = None
    for item in items:
        if first is None:
            first = item
        elif _scalar_text(item, key) != _scalar_text(first, key):
            raise SpecError(
                item.location,
                f"dataset files declare different {key}s ('{_scalar_text(first, key)}' at {first.location}, '{_scalar_text(item, key)}' here)",
                expected=f"one {key}, or dataset.{key} set in the spec",
            )
    return None if first is None else _scalar_text(first, key)


def _items(item: Located) -> Iterable[Located]:
    """The cases of a list value: its located items, or, for a list left unread, each item
    as it is composed."""
    value = item.value
    return value.elements() if isinstance(value, DeferredCases) else item.elements()


def _cases(collected: _Collected, defaults: CaseDefaults | None) -> CaseList:
    """Each case validated, one at a time, into a :class:`CaseList`. A duplicate id is
    located at the second one, naming where the first is (kept as a location, not the
    item: a path's number and the line and column packed in one integer)."""
    cases = CaseList()
    first_seen: dict[str, int] = {}
    paths: list[Path] = []
    for items, file_defaults in collected.cases:
        for item in items:
            raw = expect_mapping(item, "a case")
            case_id = raw.get("id")
            what = f"case '{case_id}'" if isinstance(case_id, str) else "a case"
            expect_keys(item, CASE_KEYS, what)
            note_reshaped(item)
            merged = file_defaults.apply(raw) if file_defaults is not None else raw
            merged = defaults.apply(merged) if defaults is not None else merged
            case = validate_model(Case, merged, item, what)
            id_item = item.get("id") or item
            where = id_item.location
            if case.id in first_seen:
                raise SpecError(
                    where,
                    f"duplicate case id '{case.id}' "
                    f"(first defined at {_unpack(first_seen[case.id], paths)})",
                    expected="unique case ids",
                )
            if not paths or paths[-1] != where.path:
                paths.append(where.path)
            first_seen[case.id] = _pack(len(paths) - 1, where)
            cases.append(merged, case)
    return cases


def _pack(path_index: int, where: Location) -> int:
    return (path_index << 64) | ((where.line or 0) << 32) | (where.column or 0)


def _unpack(packed: int, paths: list[Path]) -> Location:
    line, column = (packed >> 32) & 0xFFFFFFFF, packed & 0xFFFFFFFF
    return Location(paths[packed >> 64], line or None, column or None)
