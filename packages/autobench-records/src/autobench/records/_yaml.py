"""YAML text I/O of record files: ruamel.yaml's C-accelerated *safe* path, and nothing more.

A record file is::

    # yaml-language-server: $schema=urn:autobench:schemas/0.1.0/run.schema.json
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

The parts are those ``YAML(typ="safe", pure=False)`` combines (libyaml's
``CParser``/``CEmitter``, ``SafeConstructor``/``SafeRepresenter``, the YAML
1.2 core resolver), composed once into a loader and a dumper class instead
of through the ``YAML`` facade, which builds a new class on every call and
resolves scalars through the per-document versioned resolver: that halves
the cost of a small record. Scalar tags are shared ``Tag`` objects, and the
common node types (plain strings, mappings, sequences) take a fast path;
everything else goes through the safe constructor and representer.
"""

from __future__ import annotations

import datetime as dt
import io
import math
import re
import warnings
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from ruamel.yaml.composer import Composer, MaxDepthExceededError
from ruamel.yaml.constructor import ConstructorError, SafeConstructor
from ruamel.yaml.cyaml import CEmitter, CParser
from ruamel.yaml.error import MarkedYAMLError, ReusedAnchorWarning, YAMLError
from ruamel.yaml.events import (
    MappingEndEvent,
    MappingStartEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from ruamel.yaml.parser import Parser
from ruamel.yaml.reader import Reader
from ruamel.yaml.representer import SafeRepresenter
from ruamel.yaml.resolver import Resolver
from ruamel.yaml.scanner import Scanner
from ruamel.yaml.tag import Tag

from autobench.records._errors import RecordFormatError
from autobench.records._schemas import schema_url
from autobench.records._values import (
    DECIMAL_TAG,
    FROZENSET_TAG,
    OPAQUE_TAG,
    OpaqueValue,
    scrub_text,
)
from autobench.records._yaml_limits import (
    C_PARSER_SAFE_DEPTH,
    MAX_RECORD_NESTING,
    YamlLimitError,
    check_document,
    nesting_bound,
    too_deep_error,
)

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


_STR = _tag("tag:yaml.org,2002:str")
_SEQ = _tag("tag:yaml.org,2002:seq")
_MAP = _tag("tag:yaml.org,2002:map")
_BOOL = _tag("tag:yaml.org,2002:bool")
_INT = _tag("tag:yaml.org,2002:int")
_NULL = _tag("tag:yaml.org,2002:null")
_FLOAT = _tag("tag:yaml.org,2002:float")


def _float_text(value: float) -> str:
    """``repr`` of a float in YAML form: ``.nan``, ``.inf``, ``-.inf``, and a mantissa that
    always has a dot (``1.0e-05``, not ``1e-05``, which YAML 1.1 readers take for a string)."""
    if value != value:
        return ".nan"
    if value in (math.inf, -math.inf):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    if "e" in text and "." not in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return text


_YAML11_RETYPED = re.compile(
    r"""^(?:[yYnN]|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|=|<<
    |[-+]?0[0-7_]+|[-+]?0b[01_]+|[-+]?0x[0-9a-fA-F_]+
    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?
    |[-+]?(?:[0-9][0-9_]*)?\.?[0-9_]*(?:[eE][-+]?[0-9]+)?
    |\d{4}-\d\d?-\d\d?(?:[Tt ].*)?)$""",
    re.VERBOSE,
)
"""Plain scalars a YAML 1.1 reader (PyYAML, many other tools) would not read back as the same
string: 1.1 booleans, octal/binary/sexagesimal and underscore numbers, timestamps. They are
written single-quoted, so records mean the same to 1.1 and 1.2 readers."""


_BREAKS = frozenset("\r\n\x85\u2028\u2029")
"""Characters libyaml treats as line breaks when it chooses a block scalar's chomping."""


class _Representer(SafeRepresenter):
    """Safe representer: insertion order, no aliases, the record value tags."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sort_base_mapping_type_on_output = False

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def represent_data(self, data: Any) -> Any:
        # Fast path for the JSON-like bulk of a record; other types use the safe representers.
        kind = type(data)
        if kind is str:
            if "\n" in data:
                if data[-1] in _BREAKS and (len(data) == 1 or data[-2] in _BREAKS):
                    # A literal block would need keep chomping (``|+``), which also keeps
                    # the blank line render_sections puts after a section: quote instead.
                    return ScalarNode(_STR, data, style='"')
                return ScalarNode(_STR, data, style="|")
            if len(data) < 40 and _YAML11_RETYPED.match(data):
                return ScalarNode(_STR, data, style="'")
            return ScalarNode(_STR, data)
        if kind is dict:
            return MappingNode(
                _MAP,
                [
                    (self.represent_data(key), self.represent_data(item))
                    for key, item in data.items()
                ],
                flow_style=False,
            )
        if kind is list:
            return SequenceNode(
                _SEQ, [self.represent_data(item) for item in data], flow_style=False
            )
        if kind is bool:
            return ScalarNode(_BOOL, "true" if data else "false")
        if kind is int:
            return ScalarNode(_INT, str(data))
        if data is None:
            return ScalarNode(_NULL, "null")
        if kind is float:
            return ScalarNode(_FLOAT, _float_text(data))
        return super().represent_data(data)

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


class _Constructor(SafeConstructor):
    """Safe constructor plus the record value tags; nothing else is constructed."""

    def construct_timestamp(self, node: Any) -> Any:
        # The timestamps Autobench writes are ISO 8601, which datetime parses directly; ruamel's
        # general YAML timestamp path is far slower. Anything else takes that general path.
        text = node.value
        try:
            if len(text) == 10:
                return dt.date.fromisoformat(text)
            return dt.datetime.fromisoformat(text)
        except ValueError:
            return self.construct_yaml_timestamp(node)

    def construct_decimal(self, node: Any) -> Decimal:
        return Decimal(self.construct_scalar(node))

    def construct_frozenset(self, node: Any) -> frozenset[Any]:
        return frozenset(self.construct_sequence(node, deep=True))

    def construct_opaque(self, node: Any) -> OpaqueValue:
        fields = self.construct_mapping(node, deep=True)
        return OpaqueValue(type=str(fields.get("type", "")), repr=str(fields.get("repr", "")))

    names_as_text = False
    """Whether a plain mapping key, and the plain value of an ``id`` key, are built as the
    text written (a file people type: see :mod:`autobench.records._yaml_input`)."""

    def construct_document(self, node: Any) -> Any:
        return self._build(node)

    def _build(self, node: Any) -> Any:
        tag = node.ctag
        if type(node) is ScalarNode:
            if tag is _STR:
                if node.style == '"' and _SURROGATE.search(node.value):
                    return _paired(node.value)
                return node.value
            scalar = _plain_scalar(tag, node.value)
            if scalar is not _UNKNOWN:
                return scalar
            return self._slow(node)
        if tag is _MAP and type(node) is MappingNode:
            result: dict[Any, Any] = {}
            names_as_text = self.names_as_text
            for key_node, value_node in node.value:
                if key_node.ctag is _MERGE:
                    return self._slow(node)
                key: Any = written_text(key_node) if names_as_text else None
                if key is None:
                    key = self._build(key_node)
                    if isinstance(key, list):
                        key = tuple(key)
                try:
                    duplicate = key in result
                except TypeError:
                    raise ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        "found an unhashable key",
                        key_node.start_mark,
                    ) from None
                if duplicate:
                    raise ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        f'found duplicate key "{key}"',
                        key_node.start_mark,
                    )
                value = written_text(value_node) if names_as_text and key == "id" else None
                result[key] = self._build(value_node) if value is None else value
            return result
        if tag is _SEQ and type(node) is SequenceNode:
            return [self._build(item) for item in node.value]
        return self._slow(node)

    def _slow(self, node: Any) -> Any:
        data = self.construct_object(node, deep=True)
        self.constructed_objects = {}
        self.recursive_objects = {}
        return data


_Constructor.add_constructor(DECIMAL_TAG, _Constructor.construct_decimal)
_Constructor.add_constructor("tag:yaml.org,2002:timestamp", _Constructor.construct_timestamp)
_Constructor.add_constructor(FROZENSET_TAG, _Constructor.construct_frozenset)
_Constructor.add_constructor(OPAQUE_TAG, _Constructor.construct_opaque)


class _Resolver(Resolver):
    """The YAML 1.2 core-schema resolver, returning shared tags (no per-document version
    lookup: records are always YAML 1.2)."""

    def __init__(self, version: Any = None, loader: Any = None, loadumper: Any = None) -> None:
        super().__init__(loadumper=loadumper if loadumper is not None else loader)

    _implicit: dict[str, tuple[tuple[Any, re.Pattern[str]], ...]] | None = None

    def _implicit_table(self) -> dict[str, tuple[tuple[Any, re.Pattern[str]], ...]]:
        # ruamel keeps its patterns behind lazy proxies whose every attribute access costs a
        # Python call; resolve them (and the tags) once per process.
        table = type(self)._implicit
        if table is None:
            table = {
                first: tuple(
                    (_tag(tag), re.compile(regexp.pattern, regexp.flags)) for tag, regexp in entries
                )
                for first, entries in self.yaml_implicit_resolvers.items()
            }
            type(self)._implicit = table
        return table

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is ScalarNode:
            if implicit[0]:
                for tag, pattern in self._implicit_table().get(value[:1], ()):
                    if pattern.match(value):
                        return tag
            return _STR
        if kind is SequenceNode:
            return _SEQ
        if kind is MappingNode:
            return _MAP
        return super().resolve(kind, value, implicit)


_MERGE = _tag("tag:yaml.org,2002:merge")
_TEXT_TAGS = (_INT, _FLOAT, _BOOL)


def written_text(node: Any) -> str | None:
    """The written text of a plain scalar the core schema reads as a number or a boolean;
    ``None`` for anything else (which is built as usual)."""
    if type(node) is ScalarNode and not node.style and node.ctag in _TEXT_TAGS:
        text: str = node.value
        return text
    return None


_SURROGATE = re.compile("[\ud800-\udfff]")


def _paired(text: str) -> str:
    """``text`` with each pair of surrogate escapes (``"\\ud83d\\ude00"``, as JSON writes a
    character outside the BMP) joined into its character; a lone surrogate stays."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")


_UNKNOWN = object()
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_SPECIAL_FLOATS = {".inf": math.inf, "+.inf": math.inf, "-.inf": -math.inf, ".nan": math.nan}


def _plain_scalar(tag: Any, text: str) -> Any:
    """The value of a resolved core-schema scalar written the way Autobench writes them
    (``null``, ``true``, ``42``, ``1.5e-05``, ``.inf``), without the general constructor;
    :data:`_UNKNOWN` for any other spelling, which then takes the general path."""
    try:
        if tag is _INT:
            return int(text)
        if tag is _FLOAT:
            special = _SPECIAL_FLOATS.get(text.lower())
            return special if special is not None else float(text)
        if tag is _NULL and text in _NULLS:
            return None
        if tag is _BOOL:
            return _BOOLS.get(text, _UNKNOWN)
    except ValueError:
        return _UNKNOWN
    return _UNKNOWN


class _Dumper(CEmitter, _Representer, _Resolver):
    """libyaml emitter + record representer: block style, unicode kept, lines never folded."""

    def __init__(self, stream: Any) -> None:
        CEmitter.__init__(self, stream, width=1 << 30, allow_unicode=True)
        self._emitter = self._serializer = self._representer = self
        _Representer.__init__(self, default_flow_style=False)
        _Resolver.__init__(self, loadumper=self)


class _Loader(CParser, _Constructor, _Resolver):
    """libyaml parser + record constructor (safe tags and the record value tags only)."""

    def __init__(self, stream: Any) -> None:
        CParser.__init__(self, stream)
        self._parser = self._composer = self
        _Constructor.__init__(self, loader=self)
        _Resolver.__init__(self, loadumper=self)


class _PureLoader(Reader, Scanner, Parser, Composer, _Constructor, _Resolver):
    """ruamel's own YAML 1.2 parser + the same constructor, for text libyaml refuses.

    libyaml is stricter than YAML 1.2 in a few places: a plain scalar holding a colon in
    a flow collection (``aliases: [openai:gpt-demo, gpt-demo]``) is one of them. Its
    verdict on such text is not final: this loader's is (:func:`load_document`).
    """

    def __init__(self, stream: Any) -> None:
        self.comment_handling = None
        self.max_depth = None  # what a ruamel YAML() object would set (no nesting limit)
        Reader.__init__(self, stream, loader=self)
        Scanner.__init__(self, loader=self)
        Parser.__init__(self, loader=self)
        Composer.__init__(self, loader=self)
        _Constructor.__init__(self, loader=self)
        _Resolver.__init__(self, loadumper=self)  # the class's own resolver table (subclasses)

    processing_version = (1, 2)
    """The YAML version the pure parser applies (the records are YAML 1.2)."""


def dump_document(document: Any, *, dumper: type[Any] | None = None) -> str:
    """YAML text of one document value (no header, no section spacing).

    A string that is not valid Unicode (a lone surrogate) cannot be written as
    UTF-8: the document is then written with such strings replaced by
    :class:`OpaqueValue` (see :func:`scrub_text`), never failing the record.
    """
    try:
        return _dump(document, dumper or _Dumper)
    except UnicodeEncodeError:
        return _dump(scrub_text(document), dumper or _Dumper)


def _dump(document: Any, kind: type[Any]) -> str:
    stream = io.StringIO()
    dumper = kind(stream)
    try:
        dumper.open()
        dumper.represent(document)
        dumper.close()
        return stream.getvalue()
    finally:
        # A dumper refers to itself (as its emitter, representer and resolver): left so, it
        # is cyclic garbage holding its stream's text until a collection finds it, never
        # when the collector is off or has frozen it alive (``autobench run``), so the
        # parts of a million-run plan piled up. Its attributes dropped, it dies here.
        dumper.__dict__.clear()


def render_sections(sections: dict[str, Any], *, dumper: type[Any] | None = None) -> str:
    """The YAML text of top-level ``sections`` (document values), in order, with a blank
    line before each. Only a top-level key starts a line with ``<name>:`` at column 0:
    continuation lines of scalars are always indented, and sequence items start with ``-``.
    """
    text = dump_document(sections, dumper=dumper) if sections else ""
    lines = text.splitlines(keepends=True)
    expected = iter(sections)
    upcoming = next(expected, None)
    parts: list[str] = []
    for line in lines:
        if upcoming is not None and line.startswith(f"{upcoming}:"):
            parts.append("\n")
            upcoming = next(expected, None)
        parts.append(line)
    return "".join(parts)


def record_text(record_type: str, version: int, body: str) -> str:
    """A record file: schema comment, ``record:`` header, then ``body`` (from
    :func:`render_sections`)."""
    return (
        f"# yaml-language-server: $schema={schema_url(record_type)}\n"
        f"record:\n  type: {record_type}\n  version: {version}\n{body}"
    )


def dump_record(record_type: str, version: int, sections: dict[str, Any]) -> str:
    """The text of a record file whose ``sections`` (document values keyed by section name)
    are written in order. Raises ``ruamel.yaml`` representer errors for non-document values."""
    return record_text(record_type, version, render_sections(sections))


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


class _Builder(_Constructor, _Resolver):
    """The loaders' constructor on its own, for node trees composed by :func:`compose_yaml`."""

    def __init__(self) -> None:
        _Constructor.__init__(self, loader=self)
        _Resolver.__init__(self, loadumper=self)


def compose_yaml(text: str) -> Any:
    """The node tree of the one YAML document in ``text`` (``None`` for an empty text).

    Every YAML input Autobench reads (specs, datasets, pricing files, records) goes through
    this parser: libyaml first, and for text libyaml refuses, ruamel's own YAML 1.2 parser,
    whose verdict stands; scalars are resolved by the YAML 1.2 core schema. Each node keeps
    its ``start_mark`` (0-based line and column). The document is bounded
    (:mod:`autobench.records._yaml_limits`: nesting at most
    :data:`~autobench.records._yaml_limits.MAX_RECORD_NESTING` levels, aliases neither
    recursive nor expanding past a million values). Raises ``ruamel.yaml``'s
    ``MarkedYAMLError`` (syntax, several documents, a bound passed:
    :class:`~autobench.records._yaml_limits.YamlLimitError`) and ``ReaderError`` (a
    character YAML does not allow); the callers turn them into located errors of their own.
    """
    return compose_with(text, _Loader, _PureLoader, max_nesting=MAX_RECORD_NESTING)


def compose_with(
    text: str, fast: type[Any], pure: type[Any], *, max_nesting: int = MAX_RECORD_NESTING
) -> Any:
    """:func:`compose_yaml` with other loader classes (another resolver): ``fast`` on
    libyaml, ``pure`` on ruamel's YAML 1.2 parser for the text libyaml refuses or that
    could nest too deeply for it; collections nest at most ``max_nesting`` levels.

    An anchor defined twice is valid YAML (an alias refers to the latest definition);
    ruamel warns about it, which a program running with warnings as errors would get as an
    exception instead of the document, so that warning is not given."""
    if "&" not in text:
        return _compose(text, fast, pure, max_nesting)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ReusedAnchorWarning)
        return _compose(text, fast, pure, max_nesting)


def _compose(text: str, fast: type[Any], pure: type[Any], max_nesting: int) -> Any:
    if nesting_bound(text) <= C_PARSER_SAFE_DEPTH or _nests_within(text, fast, C_PARSER_SAFE_DEPTH):
        loader: Any = fast(text)
        try:
            try:
                root = loader.get_single_node()
            except MarkedYAMLError:
                pass  # libyaml refused it: ruamel's YAML 1.2 parser decides
            else:
                check_document(root, max_nesting=max_nesting, aliases="*" in text)
                return root
        finally:
            loader.dispose()
    loader = pure(text)
    loader.max_depth = max_nesting + 1  # stops parsing there (a scalar leaf counts as a level)
    try:
        root = loader.get_single_node()
    except MaxDepthExceededError as error:
        raise too_deep_error(error.problem_mark, max_nesting) from None
    finally:
        loader.dispose()
    check_document(root, max_nesting=max_nesting, aliases="*" in text)
    return root


def _nests_within(text: str, fast: type[Any], limit: int) -> bool:
    """Whether libyaml finds collections in ``text`` nested at most ``limit`` levels deep.

    :func:`nesting_bound` counts every ``[`` and ``{`` of the text, so a dataset with a flow
    mapping per case (``input: {n: 1}``) passes :data:`C_PARSER_SAFE_DEPTH` at 5,000 cases
    though it nests a few levels: read by the pure-Python parser, 30,000 such cases took
    about 30 s instead of 0.4 s. Here libyaml's parser, which keeps its own stack (only its
    composer recurses), walks the events once and the depth is counted exactly, stopping
    at the first level past ``limit``; ``False`` as well when libyaml refuses the text (the
    pure-Python parser then decides). About 10 us a case of such a dataset."""
    loader: Any = fast(text)
    depth = 0
    try:
        while True:
            event = loader.get_event()
            kind = type(event)
            if kind is MappingStartEvent or kind is SequenceStartEvent:
                depth += 1
                if depth > limit:
                    return False
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                depth -= 1
            elif kind is StreamEndEvent:
                return True
    except MarkedYAMLError:
        return False
    finally:
        loader.dispose()


def construct_yaml(node: Any) -> Any:
    """The plain data of a node tree from :func:`compose_yaml`: what :func:`load_document`
    returns for the same text. Raises ``ruamel.yaml``'s ``ConstructorError`` (located by its
    marks) for a duplicate key or an unknown tag."""
    return None if node is None else _Builder().construct_document(node)


def load_document(
    text: str,
    *,
    source: Path | str | None = None,
    compose: Callable[[str], Any] = compose_yaml,
    construct: Callable[[Any], Any] = construct_yaml,
) -> Any:
    """Parse YAML ``text`` into document values (``construct(compose(text))``; other
    ``compose``/``construct`` functions read with another resolver or constructor).

    Raises :class:`RecordFormatError` naming ``source`` (and the 1-based
    line:column when the parser located the problem) on malformed YAML,
    duplicate keys or unknown tags.
    """
    try:
        return construct(compose(text))
    except YamlLimitError as error:
        raise RecordFormatError(
            f"{error.problem} (expected {error.expected})",
            path=source,
            line=error.problem_mark.line + 1,
            column=error.problem_mark.column + 1,
        ) from None
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = error.problem or error.context or "malformed YAML"
        raise RecordFormatError(
            f"malformed YAML: {problem}",
            path=source,
            line=None if mark is None else mark.line + 1,
            column=None if mark is None else mark.column + 1,
        ) from error
    except (YAMLError, ValueError, ArithmeticError) as error:
        raise RecordFormatError(f"malformed YAML: {error}", path=source) from error
