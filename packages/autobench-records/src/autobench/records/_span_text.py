"""The YAML text of one span of ``trace.yaml``, built directly for the common span shape.

The reference rendering of a span is ``dump_document([encode_value(span.model_dump(
mode="python", exclude_defaults=True), 2)])``: a list item (``- id: ...``) whose
continuation lines are indented two spaces, which is where a span sits under ``spans:``.
It builds a pydantic dict, a document value, a ruamel node tree and libyaml events for
every span. :func:`span_text` writes the same text with string operations instead, and
:func:`sections_text` does the same for the top-level sections of a record (``run.yaml``).

The rule: :func:`span_text` writes a value only when it can tell exactly how the
reference path writes it, and returns ``None`` for a span holding anything else (the
caller then takes the reference path for that span). What it writes:

- the fields of :class:`~autobench.abp.SpanRecord` and of the records in it
  (``error``, ``measurements``, ``events``, ``links``, ``references``) in field order,
  each left out when it equals its default (``exclude_defaults``), provided the value
  has the type its field declares, the record is of exactly that class and holds no
  extra fields;
- ``str`` (exact type): plain when libyaml would write it plain and the YAML 1.2 core
  resolver reads it back as a string and it is not a YAML 1.1 look-alike
  (``_YAML11_RETYPED``), else single-quoted; text with a newline as a literal block
  (``|`` or ``|-``). Only characters libyaml prints as they are (no tab, no other
  control character, no character outside the BMP, no line break but ``\\n``) and
  simple-key-sized keys; anything else (double-quoted text, ``|2``/``|+`` blocks,
  ``? key``) is the reference path's;
- ``int`` (not ``bool``; up to 100 digits), ``float`` (:func:`_float_text`), ``bool``,
  ``None``, ``datetime``/``date`` of exactly those types (normalised by
  :func:`encode_value`, written by ``isoformat``, when the core resolver reads the text
  back as a timestamp), an ``Enum`` member as its value;
- ``dict`` (``str`` keys), ``list`` and ``tuple`` of those, in block style: a nested
  mapping indented two spaces, a sequence under a key not indented, ``{}`` and ``[]``
  for empty ones, nested no deeper than :data:`_MAX_DEPTH` (far from
  :data:`~autobench.records._values.MAX_DEPTH`, where values become opaque).

Every other type (bytes, sets, Decimal, models and dataclasses in ``input``/``output``,
str/int/float subclasses, non-string keys) and a record class with a field this module
does not know send the span to the reference path. The tests compare both paths byte for
byte (``tests/records/test_span_text.py``).
"""

from __future__ import annotations

import datetime as dt
import enum
import functools
import re
from typing import Any

from pydantic import BaseModel

from autobench.abp import SpanError, SpanRecord, SpanStatus
from autobench.abp._facts import EventRecord, LinkRecord, MeasurementRecord, ReferenceRecord
from autobench.records._values import encode_value
from autobench.records._yaml import _YAML11_RETYPED, _float_text, _Resolver

_MAX_DEPTH = 60
"""Deepest container (counted as :func:`encode_value` counts, the span at 2) written here."""

_BIG = 10**100
"""Integers at least this large (in magnitude) take the reference path (``str`` of a huge
integer can fail)."""

_WIDE = "\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd"
"""The characters above ASCII libyaml writes as they are (its ``IS_PRINTABLE``): no C1
control, no line break, no surrogate, no byte order mark, nothing outside the BMP."""

_PRINTABLE_LINE = re.compile(f"[\x20-\x7e{_WIDE}]*")
"""One line libyaml writes as it is (single-quoted, when not plain)."""

_PRINTABLE_TEXT = re.compile(f"[\n\x20-\x7e{_WIDE}]*")
"""Printable lines joined by ``\\n`` (no other line break)."""

_PLAIN = re.compile(
    # not a document marker, an indicator or a space; "-", "?", ":" only before a character
    f"(?!---|\\.\\.\\.|[ #,\\[\\]{{}}&*!|>'\"%@`]|[?:-](?![\x21-\x7e{_WIDE}]))"
    # printable; no ": ", no " #", no ":" or " " at the end
    f"(?:[\x21-\x39\x3b-\x7e{_WIDE}]++|:(?=[\x21-\x7e{_WIDE}])| ++(?=[\x21\x22\x24-\x7e{_WIDE}]))*+"
)
"""Printable text libyaml writes as a plain scalar in block context (its
``yaml_emitter_analyze_scalar``), unless the resolver reads it as another type."""

_MAX_KEY_BYTES = 120
"""Longest key (UTF-8 bytes) written here; libyaml writes one longer than 128 as ``? key``."""


def _either(patterns: list[re.Pattern[str]]) -> re.Pattern[str]:
    """One pattern matching where one of ``patterns`` (each anchored, each with its flags)
    matches."""
    letters = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"), (re.VERBOSE, "x"))
    scoped = []
    for pattern in patterns:
        on = "".join(letter for flag, letter in letters if pattern.flags & flag)
        off = "".join(letter for flag, letter in letters if not pattern.flags & flag)
        scoped.append(f"(?{on}{'-' if off else ''}{off}:{pattern.pattern})")
    return re.compile("|".join(scoped))


_IMPLICIT = _Resolver()._implicit_table()


@functools.cache
def _quoted(first: str, short: bool) -> re.Pattern[str] | None:
    """For text starting with ``first``: the pattern of what the reference path quotes though
    libyaml could write it plain. Shorter than 40 characters (``short``): a YAML 1.1
    look-alike (:data:`_YAML11_RETYPED`, also for the first characters the resolver does not
    list) or not a string to the YAML 1.2 core resolver; longer: the resolver's verdict only.
    Compiled on first use (all of them at import cost tens of milliseconds per command)."""
    entries = _IMPLICIT.get(first)
    if entries is None:
        return _YAML11_RETYPED if short else None
    patterns = [pattern for _, pattern in entries]
    return _either([_YAML11_RETYPED, *patterns] if short else patterns)


_TIMESTAMP = next(pattern for tag, pattern in _IMPLICIT["0"] if str(tag).endswith(":timestamp"))


_LINES: dict[str, str | None] = {}
"""Short one-line values seen, with their text (records repeat ids, statuses, names)."""


def _cached_line_text(text: str) -> str | None:
    """:func:`_line_text`, remembered for short text (up to 4,096 of them at once)."""
    try:
        return _LINES[text]
    except KeyError:
        pass
    written = _line_text(text)
    if len(text) <= 64:
        if len(_LINES) >= 4096:
            _LINES.clear()
        _LINES[text] = written
    return written


def _line_text(text: str) -> str | None:
    """``text`` (one line, no ``\\n``) as the reference path writes it: plain, single-quoted,
    or ``None`` (double-quoted, which is left to that path)."""
    if not text:
        return "''"
    if _PLAIN.fullmatch(text) is not None:
        quoted = _quoted(text[0], len(text) < 40)
        if quoted is None or quoted.match(text) is None:
            return text
    elif _PRINTABLE_LINE.fullmatch(text) is None:
        return None
    return "'" + text.replace("'", "''") + "'"


def _literal(text: str, indent: int) -> list[str] | None:
    """The header and lines of a literal block (``|`` or ``|-``) holding ``text`` (which has
    a ``\\n``), its lines indented ``indent`` spaces; ``None`` when the reference path
    writes it otherwise (double-quoted, or with an indentation or ``+`` indicator)."""
    if (
        text[0] in " \n"
        or text[-1] == " "
        or " \n" in text
        or text.endswith("\n\n")
        or _PRINTABLE_TEXT.fullmatch(text) is None
    ):
        return None
    if text[-1] == "\n":
        header = " |\n"
        text = text[:-1]
    else:
        header = " |-\n"
    pad = " " * indent
    return [header, *(f"{pad}{line}\n" if line else "\n" for line in text.split("\n"))]


_KEYS: dict[str, str | None] = {}
"""Keys seen, with their text (a trace repeats a few keys many times)."""


def _key_text(key: Any) -> str | None:
    """A mapping key's text (a simple key, plain or single-quoted); ``None`` for any other."""
    if key.__class__ is not str:
        return None
    try:
        return _KEYS[key]
    except KeyError:
        pass
    text = None if "\n" in key else _line_text(key)  # printable (UTF-8) when not None
    if text is not None and len(key.encode()) > _MAX_KEY_BYTES:
        text = None
    if len(_KEYS) >= 4096:
        _KEYS.clear()
    _KEYS[key] = text
    return text


def _scalar_text(value: Any) -> str | None:
    """The text of a scalar that is not a string, or ``None`` (not a scalar written here)."""
    kind = value.__class__
    if kind is int:
        return str(value) if -_BIG < value < _BIG else None
    if kind is float:
        return _float_text(value)
    if kind is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    if kind is dt.datetime:
        zone = value.tzinfo
        if zone is None or zone is dt.UTC:  # encode_value keeps all isoformat shows
            return value.isoformat(" ")
        text = encode_value(value).isoformat(" ")
        return text if _TIMESTAMP.match(text) else None
    if kind is dt.date:
        return value.isoformat()
    return None


def _value(
    value: Any, head: str, prefix: str, indent: int, item: bool, out: list[str], depth: int
) -> bool:
    """Append ``value`` written after ``head``: ``<prefix><key>:`` of a mapping whose keys
    are at column ``indent``, or (``item``) ``<prefix>-`` of a sequence whose dashes are
    there. ``False`` when it is not written here (``out`` is then to be dropped)."""
    kind = value.__class__
    if kind is str:
        if "\n" in value:
            lines = _literal(value, indent + 2)
            if lines is None:
                return False
            out.append(head)
            out.extend(lines)
            return True
        text = _cached_line_text(value)
    elif kind is dict:
        if not value:
            out.append(head + " {}\n")
            return True
        if depth >= _MAX_DEPTH:
            return False
        if item:  # the first key on the dash's line
            return _entries(value, indent + 2, prefix + "- ", out, depth + 1)
        out.append(head + "\n")
        return _entries(value, indent + 2, " " * (indent + 2), out, depth + 1)
    elif kind is list or kind is tuple:
        if not value:
            out.append(head + " []\n")
            return True
        if depth >= _MAX_DEPTH:
            return False
        if item:  # the first item on the dash's line
            return _items(value, indent + 2, prefix + "- ", out, depth + 1)
        out.append(head + "\n")
        return _items(value, indent, " " * indent, out, depth + 1)  # not indented under a key
    else:
        text = _scalar_text(value)
        if text is None:
            if isinstance(value, enum.Enum):
                return _value(value.value, head, prefix, indent, item, out, depth)
            return False
    if text is None:
        return False
    out.append(f"{head} {text}\n")
    return True


def _entries(mapping: dict[Any, Any], indent: int, prefix: str, out: list[str], depth: int) -> bool:
    """Append a non-empty block mapping, keys at column ``indent``; the first line starts
    with ``prefix`` (its indentation, or the dashes of the sequence items it starts)."""
    pad = " " * indent
    for key, item in mapping.items():
        key_text = _key_text(key)
        if key_text is None:
            return False
        if item.__class__ is str and "\n" not in item:  # the commonest value, inline
            text = _cached_line_text(item)
            if text is None:
                return False
            out.append(f"{prefix}{key_text}: {text}\n")
        elif not _value(item, f"{prefix}{key_text}:", prefix, indent, False, out, depth):
            return False
        prefix = pad
    return True


def _items(sequence: Any, indent: int, prefix: str, out: list[str], depth: int) -> bool:
    """Append a non-empty block sequence, dashes at column ``indent``; the first line starts
    with ``prefix``."""
    pad = " " * indent
    for item in sequence:
        if not _value(item, prefix + "-", prefix, indent, True, out, depth):
            return False
        prefix = pad
    return True


# A record field's kind: what its declared type lets through, and how it is written.
_STR, _STR_OR_NONE, _FLOAT, _FLOAT_OR_NONE, _NUMBER, _BOOL = "str", "str?", "f", "f?", "n", "b"
_WHEN, _STATUS, _ANY, _MAPPING, _TEXT_MAPPING, _ERROR, _FACTS = (
    "dt?",
    "status",
    "any",
    "map",
    "textmap",
    "error",
    "facts",
)

_Fields = tuple[tuple[str, Any, str, Any], ...]
"""``(name, default, kind, (record model, its fields) or None)`` per field, in field order."""


_REQUIRED = SpanRecord.model_fields["id"].default
"""The ``default`` of a required field (pydantic's ``PydanticUndefined``)."""


def _fields_of(model: type[BaseModel]) -> _Fields | None:
    """``model``'s fields with their kinds; ``None`` when its dump is not its fields as they
    are (a serializer, a computed field, an alias or an excluded field), when one has a type
    not known here, or when it has no required field (it could be written ``{}``)."""
    decorators = model.__pydantic_decorators__
    if decorators.field_serializers or decorators.model_serializers or model.model_computed_fields:
        return None
    fields: list[tuple[str, Any, str, Any]] = []
    for name, info in model.model_fields.items():
        if info.serialization_alias is not None or info.exclude:
            return None
        default = info.get_default(call_default_factory=True, validated_data={})
        known = next((known for known in _KNOWN if info.annotation == known[0]), None)
        if known is None or (known[1] is _ANY and default is not None):
            return None
        _, kind, record = known
        nested: Any = None
        if record is not None:
            record_fields = _fields_of(record)
            if record_fields is None:
                return None
            nested = (record, record_fields)
        fields.append((name, default, kind, nested))
    if not any(default is _REQUIRED for _, default, _, _ in fields):
        return None
    return tuple(fields)


_KNOWN: tuple[tuple[Any, str, type[BaseModel] | None], ...] = (
    (str, _STR, None),
    (str | None, _STR_OR_NONE, None),
    (float, _FLOAT, None),
    (float | None, _FLOAT_OR_NONE, None),
    (int | float, _NUMBER, None),
    (bool, _BOOL, None),
    (dt.datetime | None, _WHEN, None),
    (SpanStatus, _STATUS, None),
    (Any, _ANY, None),
    (dict[str, Any], _MAPPING, None),
    (dict[str, str], _TEXT_MAPPING, None),
    (SpanError | None, _ERROR, SpanError),
    (tuple[MeasurementRecord, ...], _FACTS, MeasurementRecord),
    (tuple[EventRecord, ...], _FACTS, EventRecord),
    (tuple[LinkRecord, ...], _FACTS, LinkRecord),
    (tuple[ReferenceRecord, ...], _FACTS, ReferenceRecord),
)
"""The field types written here: ``(annotation, kind, record model)``."""


def _record(
    model: type[BaseModel],
    fields: _Fields,
    record: Any,
    indent: int,
    prefix: str,
    out: list[str],
    depth: int,
) -> bool:
    """Append ``record`` (exactly a ``model``, no extra fields) as a block mapping of its
    non-default fields, keys at column ``indent``, the first line starting with ``prefix``."""
    if record.__class__ is not model or record.__pydantic_extra__:
        return False
    values = record.__dict__
    pad = " " * indent
    for name, default, kind, nested in fields:
        value = values[name]
        if value is default:  # None, False, (), an enum member: equal to itself
            continue
        cls = value.__class__
        if kind is _ANY:
            pass  # any value: _value writes it or refuses it
        elif kind is _STR or kind is _STR_OR_NONE:
            if not (
                cls is str
                or (value is None and kind is _STR_OR_NONE)
                or (isinstance(value, enum.Enum) and value.value.__class__ is str)
            ):
                return False
        elif kind is _FLOAT or kind is _FLOAT_OR_NONE or kind is _NUMBER:
            if not (
                cls is float
                or (value is None and kind is _FLOAT_OR_NONE)
                or (cls is int and kind is _NUMBER)
            ):
                return False
        elif kind is _BOOL:
            if cls is not bool:
                return False
        elif kind is _WHEN:
            if not (value is None or cls is dt.datetime):
                return False
        elif kind is _STATUS:
            if cls is not SpanStatus:
                return False
        elif kind is _MAPPING or kind is _TEXT_MAPPING:
            if cls is not dict or (
                kind is _TEXT_MAPPING and any(text.__class__ is not str for text in value.values())
            ):
                return False
        elif kind is _ERROR:
            if not (value is None or cls is SpanError):
                return False
        elif cls is not tuple:  # _FACTS
            return False
        # exclude_defaults; the type is checked first, so this is a plain comparison (an
        # ``Any`` field defaults to None, and anything but None is written or refused)
        if (value is None) if kind is _ANY else (value == default):
            continue
        head = f"{prefix}{name}:"
        if kind is _ERROR:  # a mapping under its key
            out.append(head + "\n")
            if not _record(nested[0], nested[1], value, indent + 2, pad + "  ", out, depth + 1):
                return False
        elif kind is _FACTS:  # a sequence of mappings, not indented under its key
            out.append(head + "\n")
            for fact in value:
                if not _record(nested[0], nested[1], fact, indent + 2, pad + "- ", out, depth + 2):
                    return False
        elif not _value(value, head, prefix, indent, False, out, depth):
            return False
        prefix = pad
    return True


_SPAN_FIELDS = _fields_of(SpanRecord)
"""The span's fields with their kinds (``None``: a field this module does not know, so
every span takes the reference path)."""


def span_text(span: SpanRecord) -> str | None:
    """The text ``dump_document([encode_value(span.model_dump(mode="python",
    exclude_defaults=True), 2)])`` gives for ``span``, or ``None`` when the span holds a
    value this module does not write (see the module docstring)."""
    if _SPAN_FIELDS is None:
        return None
    out: list[str] = []
    if not _record(SpanRecord, _SPAN_FIELDS, span, 2, "- ", out, 2):
        return None
    return "".join(out)


def trace_section_text(
    before: dict[str, Any], spans: tuple[SpanRecord, ...], after: dict[str, Any]
) -> str | None:
    """The ``trace:`` section of ``run.yaml`` (after its blank line) that
    :func:`sections_text` gives for the trace document whose fields before ``spans`` are
    ``before`` (document values, never empty: the trace id is there), whose fields after them
    are ``after``, and whose spans are ``spans`` written directly as :func:`span_text` writes
    them, indented under ``trace:``; ``None`` when a value or a span is not one written here
    (the caller then takes the document path for the whole file)."""
    if _SPAN_FIELDS is None:
        return None
    out: list[str] = ["\n", "trace:\n"]
    if not _entries(before, 2, "  ", out, 1):
        return None
    if spans:
        out.append("  spans:\n")
        for span in spans:  # where _value puts a span dict under ``  spans:`` (depth 3)
            if not _record(SpanRecord, _SPAN_FIELDS, span, 4, "  - ", out, 3):
                return None
    if after and not _entries(after, 2, "  ", out, 1):
        return None
    return "".join(out)


def sections_text(sections: dict[str, Any]) -> str | None:
    """The text :func:`~autobench.records._yaml.render_sections` gives for ``sections``
    (document values: what :func:`encode_value` returns), each section after a blank line,
    or ``None`` when a value is not one written here (see the module docstring); the
    sections of a run record are, unless they hold text libyaml double-quotes, bytes,
    decimals or opaque values."""
    out: list[str] = []
    for name, value in sections.items():
        out.append("\n")
        if not _entries({name: value}, 0, "", out, 0):
            return None
    return "".join(out)


def items_text(items: list[Any]) -> str | None:
    """The text :func:`~autobench.records._yaml.dump_document` gives for the non-empty list
    ``items`` (document values: a block sequence at column 0, as ``experiment.yaml`` lists
    its planned runs), or ``None`` when an item holds a value not written here."""
    out: list[str] = []
    if not items or not _items(items, 0, "", out, 0):
        return None
    return "".join(out)
