"""A fast reader for record files in the layout Autobench writes them.

Record files are YAML 1.2 in one layout (:mod:`autobench.records._yaml`): block
mappings and sequences, one ``key: value`` per line, plain, single-quoted,
one-line double-quoted and literal (``|``) scalars, ``[]`` and ``{}`` for empty
collections, comment lines only before the body. :func:`read_canonical` reads
text of that layout line by line, without building a node tree, into the same
values :func:`~autobench.records._yaml.load_document` returns. It declines
(returns :data:`NOT_CANONICAL`) as soon as a line leaves the layout: a flow
collection, a tag, an anchor, a folded or multi-line flow scalar, a tab, a
duplicate key, a line indented where it should not be, a text not ending in a
line break. The caller then parses the text with the full YAML parser, which
also reports any error with its line and column. So this reader never decides
that a text is malformed, and every text it accepts means what the YAML
parser would make of it (``tests/records/test_canonical_reader.py`` checks that
on generated documents and on mutations of real record files).

Plain scalars are resolved by the same YAML 1.2 core-schema resolver and built
by the same constructor functions as the full parser (``2026-12-02 14:43:09+00:00``
is a datetime, ``1.5e-05`` a float, ``'1.0'`` a string), and double-quoted
escapes follow YAML 1.2 section 5.7 (https://yaml.org/spec/1.2.2/#57-escaped-characters).
Reading a run file this way takes a fraction of the time libyaml plus
ruamel's composer take (``uv run python tools/bench_records_read.py``).

Run files of one experiment mostly differ in their plain values only: a text whose skeleton
(the text without those values) was read before is built by a template compiled from it,
each value resolved as the line reader resolves it (:class:`_Skeletons` gives the argument).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from ruamel.yaml.nodes import ScalarNode

from autobench.records._yaml import (
    _BOOL,
    _FLOAT,
    _INT,
    _NULL,
    _STR,
    _SURROGATE,
    _UNKNOWN,
    _Builder,
    _paired,
    _plain_scalar,
    _tag,
)
from autobench.records._yaml_limits import MAX_RECORD_NESTING

NOT_CANONICAL: Any = object()
"""What :func:`read_canonical` returns for a text outside the layout."""

_TIMESTAMP = _tag("tag:yaml.org,2002:timestamp")

_OUTSIDE_TEXT = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
"""Characters the layout never holds raw: tabs, carriage returns, other C0 and C1 controls,
the line breaks libyaml also honours (NEL, U+2028, U+2029), a byte order mark, surrogates."""

_PLAIN_START = frozenset("-?:,[]{}#&*!|>'\"%@`")
"""Indicators that may not start a plain scalar (YAML 1.2, c-indicator)."""

_NOT_PLAIN_VALUE = frozenset("'\"|[{")
"""First characters of a value that is not a plain scalar (or may not be)."""

_DOUBLE_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
_ESCAPE = re.compile(r"\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.S)
_ESCAPES = {
    "0": "\x00",
    "a": "\x07",
    "b": "\x08",
    "t": "\t",
    "n": "\n",
    "v": "\x0b",
    "f": "\x0c",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}


class _Outside(Exception):
    """The text leaves the layout here: the full parser reads it instead."""


def read_canonical(text: str) -> Any:
    """The document in ``text``, or :data:`NOT_CANONICAL` when the text is outside the layout
    of the module docstring (never an error: the caller parses such a text in full)."""
    if not text.endswith("\n") or _OUTSIDE_TEXT.search(text) is not None:
        return NOT_CANONICAL
    if len(text) <= TEMPLATE_TEXT_MAX and _MARK not in text:
        return _SKELETONS.read(text)
    return _read(text)


def _read(text: str) -> Any:
    """:func:`read_canonical` of a text known to hold only the characters of the layout."""
    reader = _Reader(text)
    try:
        index = reader.skip()
        if index >= reader.count or reader.lines[index][:1] == " ":
            raise _Outside
        document = reader.mapping(0)
        if reader.skip() < reader.count:
            raise _Outside
    except _Outside:
        return NOT_CANONICAL
    return document


_PLAIN_CACHE: dict[str, Any] = {}
"""Resolved plain scalars by their text: every value is immutable (str, int, float, bool,
None, date, datetime), so one is shared by all the documents that write it."""


def _plain(text: str) -> Any:
    value = _PLAIN_CACHE.get(text, _UNKNOWN)
    if value is not _UNKNOWN:
        return value
    if text[0] in _PLAIN_START and (text[0] not in "-?:" or len(text) == 1 or text[1] == " "):
        raise _Outside
    if " #" in text or ": " in text or text[-1] == ":":
        raise _Outside
    value = _written(text)
    if value is _UNKNOWN:
        value = _resolved(text)
    if len(_PLAIN_CACHE) > 50_000:
        _PLAIN_CACHE.clear()
    _PLAIN_CACHE[text] = value
    return value


def _resolved(text: str) -> Any:
    """The value of the plain scalar ``text`` by the resolver's patterns and the builder."""
    tag = _STR
    for candidate, pattern in _BUILDER._implicit_table().get(text[:1], ()):
        if pattern.match(text):
            tag = candidate
            break
    if tag is _STR:
        return text
    if tag is _INT or tag is _FLOAT or tag is _BOOL or tag is _NULL:
        value = _plain_scalar(tag, text)
        if value is _UNKNOWN:
            raise _Outside
        return value
    if tag is _TIMESTAMP:
        try:
            return _BUILDER.construct_timestamp(ScalarNode(tag, text))
        except ValueError:
            raise _Outside from None
    raise _Outside  # merge keys, the value key, and the like


_BUILDER = _Builder()

_WRITTEN_TIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{6})?\+00:00"
)
"""A time as the record writer writes it (UTC, microseconds when there are any)."""


def _written(text: str) -> Any:
    """The value of ``text`` when it is a decimal integer or a time as the writer writes
    them, read as the resolver and the builder read it (``int``; ``datetime.fromisoformat``,
    the builder's own reading of a timestamp) without trying each pattern of the resolver
    in turn; :data:`_UNKNOWN` for any other text (and for a date that does not exist),
    which takes that path."""
    if text.isdigit() and text.isascii() and len(text) < 19 and (text[0] != "0" or text == "0"):
        return int(text)
    if len(text) in (25, 32) and _WRITTEN_TIME.fullmatch(text):
        try:
            return dt.datetime.fromisoformat(text)
        except ValueError:
            return _UNKNOWN
    return _UNKNOWN


def _unescape(match: re.Match[str]) -> str:
    hex2, hex4, hex8, single = match.groups()
    code = hex2 or hex4 or hex8
    if code is not None:
        value = int(code, 16)
        if value > 0x10FFFF:
            raise _Outside
        return chr(value)
    replacement = _ESCAPES.get(single)
    if replacement is None:
        raise _Outside
    return replacement


def _quoted(text: str) -> tuple[str, str]:
    """The quoted scalar starting ``text`` and what follows it on the line."""
    if text[0] == "'":
        end = text.find("'", 1)
        while end != -1 and text[end + 1 : end + 2] == "'":
            end = text.find("'", end + 2)
        if end == -1:
            raise _Outside  # continues on the next line
        return text[1:end].replace("''", "'"), text[end + 1 :]
    match = _DOUBLE_QUOTED.match(text)
    if match is None:
        raise _Outside
    value = match.group(1)
    if "\\" in value:
        value = _ESCAPE.sub(_unescape, value)
        if _SURROGATE.search(value):
            value = _paired(value)
    return value, text[match.end() :]


def _key_end(body: str) -> int:
    """Where the ``:`` after the mapping key starting ``body`` is (-1: not a key)."""
    if body[0] in "'\"":
        try:
            _, rest = _quoted(body)
        except _Outside:
            return -1
        at = len(body) - len(rest)
        return at if rest[:1] == ":" and rest[1:2] in ("", " ") else -1
    end = body.find(": ")
    if end == -1 and body[-1] == ":":
        end = len(body) - 1
    return end


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


_COMPACT_DEPTH = 32
"""Collections deeper than this that start on their parent item's line (``- - - x``) are
left to the full parser: each one here copies the rest of the line."""


class _Reader:
    """Recursive descent over the lines of one text (see :func:`read_canonical`)."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.lines.pop()  # the empty text after the final line break
        self.count = len(self.lines)
        self.index = 0
        self.depth = 0

    def skip(self) -> int:
        """The index of the next line holding content (blank and comment lines skipped)."""
        lines, index, count = self.lines, self.index, self.count
        while index < count:
            stripped = lines[index].lstrip(" ")
            if stripped and stripped[0] != "#":
                break
            index += 1
        self.index = index
        return index

    def block(self, indent: int) -> Any:
        """The block collection starting at the current line, indented ``indent``."""
        body = self.lines[self.index][indent:]
        if body[0] == "-" and (len(body) == 1 or body[1] == " "):
            return self.nested(self.sequence, indent)
        return self.nested(self.mapping, indent)

    def nested(self, read: Any, indent: int) -> Any:
        """``read(indent)`` one level deeper; past :data:`MAX_RECORD_NESTING` levels the
        text is left to the full parser, which locates the error."""
        self.depth += 1
        if self.depth >= MAX_RECORD_NESTING:
            raise _Outside
        try:
            return read(indent)
        finally:
            self.depth -= 1

    def mapping(self, indent: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        lines, count = self.lines, self.count
        index = self.index
        while True:
            while index < count:  # skip blank and comment lines (inline: the hot loop)
                line = lines[index]
                body = line.lstrip(" ")
                if body and body[0] != "#":
                    break
                index += 1
            else:
                self.index = index
                return result
            found = len(line) - len(body)
            if found != indent:
                self.index = index
                if found < indent:
                    return result
                raise _Outside
            if indent == 0 and body[:3] in ("---", "..."):
                raise _Outside  # a document marker
            key: Any
            if body[0] in "'\"":
                end = _key_end(body)
                if end <= 0:
                    raise _Outside
                key = _quoted(body)[0]
            else:
                end = body.find(": ")
                if end == -1 and body[-1] == ":":
                    end = len(body) - 1
                if end <= 0 or body[end - 1] == " ":
                    raise _Outside
                key = _plain(body[:end])
                if type(key) is not str:
                    raise _Outside
            if key in result:
                raise _Outside  # the full parser reports the duplicate, located
            text = body[end + 1 :].strip(" ")
            if text and text[0] not in _NOT_PLAIN_VALUE:
                result[key] = _plain(text)
                index += 1
            else:
                result[key] = self.value(text, indent, index)
                index = self.index

    def sequence(self, indent: int) -> list[Any]:
        result: list[Any] = []
        lines = self.lines
        while True:
            index = self.skip()
            if index >= self.count:
                return result
            line = lines[index]
            found = _indent(line)
            if found < indent:
                return result
            if found > indent:
                raise _Outside
            body = line[indent:]
            if body != "-" and body[:2] != "- ":
                return result  # the next key of the mapping this sequence is a value of
            content = body[1:].lstrip(" ")
            if not content:
                result.append(self.value("", indent, index, item=True))
                continue
            column = len(line) - len(content)
            if (content[0] == "-" and (len(content) == 1 or content[1] == " ")) or (
                content[0] not in "|>" and _key_end(content) > 0
            ):
                # a collection starting on the item's line: read it as if it started a line
                if self.depth >= _COMPACT_DEPTH:
                    raise _Outside  # each level would copy the rest of a long line
                lines[index] = " " * column + content
                result.append(self.block(column))
            else:
                result.append(self.value(content.rstrip(" "), indent, index))

    def value(self, text: str, indent: int, index: int, *, item: bool = False) -> Any:
        """The value written ``text`` after a key (or, ``item``, a sequence item's dash) on
        line ``index`` of a collection indented ``indent``, with the lines it owns below.
        Only a key's value may be a sequence indented as the key is."""
        self.index = index + 1
        if not text:
            below = self.skip()
            if below >= self.count:
                return None
            line = self.lines[below]
            found = _indent(line)
            if found > indent:
                return self.block(found)
            body = line[indent:]
            if not item and found == indent and (body == "-" or body[:2] == "- "):
                return self.nested(self.sequence, indent)
            return None
        first = text[0]
        if first in "'\"":
            value, rest = _quoted(text)
            if rest.strip(" "):
                raise _Outside
            return value
        if first == "|":
            return self.literal(text, indent)
        if text == "[]":
            return []
        if text == "{}":
            return {}
        return _plain(text)

    def literal(self, header: str, indent: int) -> str:
        """A literal block scalar (``|``, ``|-``, ``|+``, ``|2``, ...) whose lines follow
        the current line; ``indent`` is the collection's."""
        chomp = ""
        explicit = 0
        for char in header[1:].rstrip(" "):
            if char in "+-" and not chomp:
                chomp = char
            elif char in "123456789" and not explicit:
                explicit = int(char)
            else:
                raise _Outside
        lines, count = self.lines, self.count
        start = index = self.index
        while index < count and not lines[index].strip(" "):
            index += 1
        if explicit:
            width = indent + explicit
        elif index < count:
            width = _indent(lines[index])
        else:
            raise _Outside
        if width <= indent:
            raise _Outside  # an empty block scalar
        content: list[str] = []
        index = start
        while index < count:
            line = lines[index]
            if not line.strip(" "):
                if len(line) > width:
                    raise _Outside  # spaces beyond the indentation on a blank line
                content.append("")
            elif _indent(line) >= width:
                content.append(line[width:])
            else:
                break
            index += 1
        self.index = index
        trailing = 0
        while content and content[-1] == "":
            content.pop()
            trailing += 1
        if not content:
            raise _Outside
        text = "\n".join(content)
        if chomp == "-":
            return text
        if chomp == "+":
            return text + "\n" * (1 + trailing)
        return text + "\n"


# Documents of a known skeleton -----------------------------------------------------------

TEMPLATE_TEXT_MAX = 65536
"""Characters past which a text is read line by line, never through a skeleton."""

SKELETONS_MAX = 256
"""Skeletons remembered (seen once, or compiled): past this, all are forgotten at once."""

_SLOT = re.compile(
    r"(\n *+(?:- )*+(?:[A-Za-z_][\w.-]*+|'[^'\n]*+'|\"[^\"\\\n]*+\"): )([^\n'\"|\[{ ][^\n]*+)(?=\n)"
)
"""A line ``key: value`` whose key is a plain word (no ``": "`` in it) or quoted without
quotes or escapes in it (so the key ends where the reader ends it), and whose value starts
as a plain scalar may (after dashes of sequence items that start a mapping on their line):
group 1 is the line break before the line and the line up to the value, group 2 the value
(its trailing spaces included; no leading space). Matched after a line break (the text is
split with one put before it), which the search finds far faster than a line start.
Its repetitions are possessive: each is followed by what it cannot match (a key never
starts with a space or a dash; ``[\\w.-]`` holds no colon; a value runs to its line break),
so giving characters back never finds another match, and not trying halves the split."""

NEW_IN_A_ROW_MAX = 64
"""New skeletons in a row after which :data:`LINE_READS` texts are read line by line."""

LINE_READS = 1024
"""Texts read line by line, without a skeleton, after :data:`NEW_IN_A_ROW_MAX` new ones in a
row (texts that do not repeat a skeleton then cost at most a few percent more)."""

_MARK = "\ue000"
"""A private-use character that starts each value slot's marker while a skeleton is
compiled (a text holding it is never read through a skeleton)."""

_NO_TEMPLATE: Any = object()
_SEEN_ONCE: Any = object()
_MAX_CODE_DEPTH = 64
"""Nesting past which a skeleton is not compiled (Python's parser limits nested brackets)."""


class _Skeletons:
    """Reads texts by their skeleton: the text with the value of every line matched by
    :data:`_SLOT` cut out. Run files of one experiment mostly share a skeleton: they differ
    in such values only (ids, times, durations, numbers).

    Why a skeleton's template reads a text as the line reader does: the reader's course
    through a text depends on each line's indentation, dashes, key and, for a ``key: value``
    line, only on whether the value is empty or starts with a character of
    ``_NOT_PLAIN_VALUE``; it then stores ``_plain(value)`` (trailing spaces stripped) under
    the key and goes on to the next line. A slot's value starts with none of those
    characters and is not empty, and every other character of the text is in the skeleton.
    So two texts of one skeleton take the same course, and their documents differ only in
    the slot values, each ``_plain`` of its text; where ``_plain`` declines a value, the
    reader declines the text (the whole text is then read line by line, which declines it
    too). The template is compiled from a text whose values are replaced by unique markers
    and read by the line reader: a skeleton whose markers do not each come back as one
    whole value (a slot inside a literal block scalar, say) gets no template. The template
    builds fresh mappings and lists on every call; its other leaves, like ``_plain``'s, are
    immutable and shared.

    A skeleton is compiled the second time it is seen. Texts that never repeat one cost a
    split and a lookup each, until :data:`NEW_IN_A_ROW_MAX` new skeletons in a row have
    the next :data:`LINE_READS` texts read line by line without trying."""

    def __init__(self) -> None:
        self.known: dict[str, Any] = {}  # skeleton -> _SEEN_ONCE, _NO_TEMPLATE or a template
        self.new_in_a_row = 0
        self.line_reads = 0

    def read(self, text: str) -> Any:
        if self.line_reads:
            self.line_reads -= 1
            return _read(text)
        parts = _SLOT.split("\n" + text)
        if len(parts) < 4:  # no slot: nothing to gain
            return _read(text)
        values = parts[2::3]
        skeleton = "\x00".join(parts[0::3] + parts[1::3])  # no text holds NUL
        known = self.known.get(skeleton)
        if known is None:
            if len(self.known) >= SKELETONS_MAX:
                self.known.clear()
            self.known[skeleton] = _SEEN_ONCE
            self.new_in_a_row += 1
            if self.new_in_a_row >= NEW_IN_A_ROW_MAX:
                self.new_in_a_row, self.line_reads = 0, LINE_READS
            return _read(text)
        self.new_in_a_row = 0
        if known is _SEEN_ONCE:
            known = self.known[skeleton] = _compile(parts)
        if known is _NO_TEMPLATE:
            return _read(text)
        build, constants = known
        try:
            return build([_plain(value.rstrip(" ")) for value in values], constants)
        except _Outside:
            return _read(text)  # declines it, as the argument in the class docstring says


def _compile(parts: list[str]) -> Any:
    """The template of the skeleton of ``parts`` (:data:`_SLOT`'s split of a text):
    ``(build, constants)``, ``build(values, constants)`` giving the document; or
    :data:`_NO_TEMPLATE`."""
    marked = parts.copy()
    count = len(parts[2::3])
    marked[2::3] = [f"{_MARK}{index}{_MARK}" for index in range(count)]
    document = _read("".join(marked)[1:])  # without the line break put before the text
    if document is NOT_CANONICAL:
        return _NO_TEMPLATE
    constants: list[Any] = []
    placed: set[int] = set()

    def code(value: Any, depth: int) -> str:
        if depth > _MAX_CODE_DEPTH:
            raise _Outside
        if isinstance(value, dict):
            items = []
            for key, item in value.items():
                if _MARK in key:
                    raise _Outside
                items.append(f"{key!r}: {code(item, depth + 1)}")
            return "{" + ", ".join(items) + "}"
        if isinstance(value, list):
            return "[" + "".join(f"{code(item, depth + 1)}, " for item in value) + "]"
        if isinstance(value, str) and _MARK in value:
            index = value[1:-1]
            if not (value[0] == value[-1] == _MARK and index.isdigit()) or int(index) in placed:
                raise _Outside  # a marker inside another value, or twice
            placed.add(int(index))
            return f"v[{index}]"
        constants.append(value)
        return f"c[{len(constants) - 1}]"

    try:
        source = code(document, 0)
    except _Outside:
        return _NO_TEMPLATE
    if len(placed) != count:
        return _NO_TEMPLATE
    try:
        build = eval(f"lambda v, c: {source}", {})  # the source generated above
    except (RecursionError, MemoryError, SyntaxError):  # a compiler's limit: read by lines
        return _NO_TEMPLATE
    return build, constants


_SKELETONS = _Skeletons()
