"""YAML text I/O of record files: the C-accelerated *safe* ruamel.yaml path, and nothing more.

A record file is::

    # yaml-language-server: $schema=file:///home/me/.autobench/0.1.0/schemas/run.schema.json
    record:
      type: run
      version: 1

    run:
      ...

:func:`dump_record` writes that text (block style, unicode kept, lines never
folded, a blank line between top-level sections, mapping order kept, no
anchors or aliases); :func:`load_record` reads it back. Loading uses the
safe constructor plus the three tags of :mod:`autobench.records._values`
(``!decimal``, ``!frozenset``, ``!opaque``), so it never constructs an
arbitrary Python object. :func:`peek_header` reads the ``record:`` header
from the first lines of the text without parsing the rest, so a file written
by a newer Autobench is rejected before its body is interpreted.
"""

from __future__ import annotations

import io
import re
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.representer import SafeRepresenter
from ruamel.yaml.tag import Tag

from autobench.records._errors import RecordFormatError
from autobench.records._schemas import schema_url
from autobench.records._values import DECIMAL_TAG, FROZENSET_TAG, OPAQUE_TAG, OpaqueValue

_TAG_CACHE: dict[str, Tag] = {}


def _tag(name: Any) -> Any:
    """A shared, pre-decoded ``Tag`` (ruamel decodes a fresh one per node, which is slow)."""
    if not isinstance(name, str):
        return name
    tag = _TAG_CACHE.get(name)
    if tag is None:
        tag = Tag(suffix=name)
        _ = tag.trval
        _TAG_CACHE[name] = tag
    return tag


class _Representer(SafeRepresenter):  # type: ignore[misc]
    """Safe representer: insertion order, no aliases, the record value tags."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sort_base_mapping_type_on_output = False

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def represent_scalar(self, tag: Any, value: Any, style: Any = None, anchor: Any = None) -> Any:
        return super().represent_scalar(_tag(tag), value, style, anchor)

    def represent_sequence(self, tag: Any, sequence: Any, flow_style: Any = None) -> Any:
        return super().represent_sequence(_tag(tag), sequence, flow_style)

    def represent_mapping(self, tag: Any, mapping: Any, flow_style: Any = None) -> Any:
        return super().represent_mapping(_tag(tag), mapping, flow_style)

    def represent_decimal(self, data: Decimal) -> Any:
        return self.represent_scalar(DECIMAL_TAG, str(data))

    def represent_frozenset(self, data: frozenset[Any]) -> Any:
        return self.represent_sequence(FROZENSET_TAG, list(data))

    def represent_opaque(self, data: OpaqueValue) -> Any:
        return self.represent_mapping(OPAQUE_TAG, {"type": data.type, "repr": data.repr})


_Representer.add_representer(Decimal, _Representer.represent_decimal)
_Representer.add_representer(frozenset, _Representer.represent_frozenset)
_Representer.add_representer(OpaqueValue, _Representer.represent_opaque)


class _Constructor(SafeConstructor):  # type: ignore[misc]
    """Safe constructor plus the record value tags; nothing else is constructed."""

    def construct_decimal(self, node: Any) -> Decimal:
        return Decimal(self.construct_scalar(node))

    def construct_frozenset(self, node: Any) -> frozenset[Any]:
        return frozenset(self.construct_sequence(node, deep=True))

    def construct_opaque(self, node: Any) -> OpaqueValue:
        fields = self.construct_mapping(node, deep=True)
        return OpaqueValue(type=str(fields.get("type", "")), repr=str(fields.get("repr", "")))


_Constructor.add_constructor(DECIMAL_TAG, _Constructor.construct_decimal)
_Constructor.add_constructor(FROZENSET_TAG, _Constructor.construct_frozenset)
_Constructor.add_constructor(OPAQUE_TAG, _Constructor.construct_opaque)

_local = threading.local()


def _yaml() -> YAML:
    """This thread's configured ``YAML`` instance (instances are not thread-safe)."""
    yaml: YAML | None = getattr(_local, "yaml", None)
    if yaml is None:
        yaml = YAML(typ="safe", pure=False)
        yaml.Representer = _Representer
        yaml.Constructor = _Constructor
        yaml.default_flow_style = False
        yaml.allow_unicode = True
        yaml.width = 1 << 30
        _local.yaml = yaml
    return yaml


def dump_document(document: Any) -> str:
    """YAML text of one document value (no header, no section spacing)."""
    stream = io.StringIO()
    _yaml().dump(document, stream)
    return stream.getvalue()


def dump_record(record_type: str, version: int, sections: dict[str, Any]) -> str:
    """The text of a record file: schema comment, ``record:`` header, then ``sections``.

    ``sections`` holds document values (see :mod:`autobench.records._values`)
    keyed by section name, in the order they are written. Raises
    ``ruamel.yaml`` representer errors for values that are not document values.
    """
    parts = [
        f"# yaml-language-server: $schema={schema_url(record_type)}\n",
        f"record:\n  type: {record_type}\n  version: {version}\n",
    ]
    for name, value in sections.items():
        parts.append("\n")
        parts.append(dump_document({name: value}))
    return "".join(parts)


_HEADER = re.compile(
    r"\A(?:[ \t]*(?:#[^\n]*)?\n)*"
    r"record:[ \t]*(?:\n[ \t]+type:[ \t]*(?P<type>[\w.-]+)[ \t]*\n[ \t]+version:[ \t]*(?P<version>\d+)"
    r"|\{[ \t]*type:[ \t]*(?P<ftype>[\w.-]+)[ \t]*,[ \t]*version:[ \t]*(?P<fversion>\d+)[ \t]*\})"
)


def peek_header(text: str) -> tuple[str, int] | None:
    """``(type, version)`` from the leading ``record:`` header, or ``None`` when the file does
    not start with one in the usual form (the caller then checks the parsed document)."""
    match = _HEADER.match(text)
    if match is None:
        return None
    record_type = match.group("type") or match.group("ftype")
    version = match.group("version") or match.group("fversion")
    return record_type, int(version)


def load_document(text: str, *, source: Path | str | None = None) -> Any:
    """Parse YAML ``text`` into document values.

    Raises :class:`RecordFormatError` naming ``source`` (and the 1-based
    line:column when the parser located the problem) on malformed YAML,
    duplicate keys or unknown tags.
    """
    try:
        return _yaml().load(text)
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = error.problem or error.context or "malformed YAML"
        raise RecordFormatError(
            f"malformed YAML: {problem}",
            path=source,
            line=None if mark is None else mark.line + 1,
            column=None if mark is None else mark.column + 1,
        ) from error
    except (YAMLError, ValueError, TypeError) as error:
        raise RecordFormatError(f"malformed YAML: {error}", path=source) from error
