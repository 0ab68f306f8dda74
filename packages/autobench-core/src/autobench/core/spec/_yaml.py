"""Located YAML loading: plain Python data that still knows where each value came from.

A file is parsed once, by the YAML reading path every Autobench input shares
(:func:`autobench.records.compose_yaml`: ruamel.yaml's C parser, its YAML 1.2
parser for text libyaml refuses; every node carries its start line and column),
and the safe constructor builds plain data from it (dicts, lists, str, int,
float, bool, None, dates; never arbitrary objects). :class:`Located` pairs a
value with its node so the loader can report ``file:line:column`` for any
value it looks at, and map a pydantic error location back to the YAML.

The round-trip loader would give the same positions but parses in pure
Python, about five times slower; a 500-case dataset must load in well under
a third of a second, so the located data is built from the composed nodes
instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.reader import ReaderError

from autobench.core.spec._errors import Location, SpecError
from autobench.records import YamlLimitError, compose_input, construct_input

_DUPLICATE_KEY = re.compile(r'found duplicate key "(?P<key>.*?)"(?: with value|$)')


class YamlDocument:
    """One parsed YAML file: ``path`` (as referenced, used in messages), ``data``
    (plain Python) and ``root`` (the composed node, ``None`` for an empty file)."""

    __slots__ = ("_indexes", "data", "path", "reshaped", "root")

    def __init__(
        self,
        path: Path,
        data: Any,
        root: Node | None,
        reshaped: Sequence[tuple[Node, Any]] = (),
    ) -> None:
        self.path = path
        self.data = data
        self.root = root
        self.reshaped = {id(node): (node, value) for node, value in reshaped}
        """Plain scalars read as numbers whose text the number does not give back, by node id
        (see :mod:`autobench.records._yaml_input`)."""
        self._indexes: dict[int, dict[str, tuple[Node, Node]]] = {}

    def reshaped_under(self, node: Node | None) -> list[ReshapedScalar]:
        """The reshaped numbers at or below ``node``, in file order."""
        if not self.reshaped or node is None:
            return []
        found: list[ReshapedScalar] = []
        seen: set[int] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            if isinstance(current, ScalarNode):
                hit = self.reshaped.get(id(current))
                if hit is not None:
                    found.append(
                        ReshapedScalar(node_location(self.path, current), current.value, hit[1])
                    )
            elif isinstance(current, MappingNode):
                stack.extend(item for pair in reversed(current.value) for item in reversed(pair))
            elif isinstance(current, SequenceNode):
                stack.extend(reversed(current.value))
        return found

    @property
    def located(self) -> Located:
        """The document's top-level value."""
        return Located(self, self.data, self.root, None, Location(self.path, 1, 1))

    def mapping_index(self, node: MappingNode) -> dict[str, tuple[Node, Node]]:
        """``{key text: (key node, value node)}`` of a mapping node; a later pair wins, as in the data."""
        index = self._indexes.get(id(node))
        if index is None:
            index = {}
            for key_node, value_node in node.value:
                if isinstance(key_node, ScalarNode):
                    index[key_node.value] = (key_node, value_node)
            self._indexes[id(node)] = index
        return index


class ReshapedScalar:
    """A number in a file whose written ``text`` its ``value`` does not give back (``007``
    read as 7), at ``location``; ``str()`` is the note shown to the user."""

    __slots__ = ("location", "text", "value")

    def __init__(self, location: Location, text: str, value: Any) -> None:
        self.location = location
        self.text = text
        self.value = value

    def __str__(self) -> str:
        return (
            f"`{self.text}` at {self.location} is read as the number {self.value!r}; "
            "quote it to keep the text"
        )

    def __repr__(self) -> str:
        return f"ReshapedScalar({self.location}, {self.text!r}, {self.value!r})"


_NOTES: ContextVar[list[ReshapedScalar] | None] = ContextVar("autobench_spec_notes", default=None)


@contextmanager
def collecting_notes() -> Iterator[list[ReshapedScalar]]:
    """Collect the :class:`ReshapedScalar` notes :func:`note_reshaped` finds while loading."""
    notes: list[ReshapedScalar] = []
    token = _NOTES.set(notes)
    try:
        yield notes
    finally:
        _NOTES.reset(token)


def note_reshaped(item: Located | None) -> None:
    """Note the reshaped numbers at or below ``item`` (values whose text matters: factors,
    case data), when a load is :func:`collecting_notes`."""
    sink = _NOTES.get()
    if sink is not None and item is not None and item.doc.reshaped:
        sink.extend(item.doc.reshaped_under(item.node))


def node_location(path: Path, node: Node) -> Location:
    return node_location_of_mark(path, node.start_mark)


def node_location_of_mark(path: Path, mark: Any) -> Location:
    """The 1-based :class:`Location` of a 0-based ruamel mark in ``path``."""
    return Location(path, mark.line + 1, mark.column + 1)


class Located:
    """A loaded value with the YAML node it came from (and the node of its key, if any).

    ``location`` is where the value starts, ``key_location`` where its key
    starts (the value's position when it has no key). Values the loader
    cannot tie to a node report the position of the nearest enclosing one.
    """

    __slots__ = ("_fallback", "doc", "key_node", "node", "value")

    def __init__(
        self,
        doc: YamlDocument,
        value: Any,
        node: Node | None,
        key_node: Node | None,
        fallback: Location,
    ) -> None:
        self.doc = doc
        self.value = value
        self.node = node
        self.key_node = key_node
        self._fallback = fallback

    @property
    def path(self) -> Path:
        return self.doc.path

    @property
    def location(self) -> Location:
        return self._fallback if self.node is None else node_location(self.doc.path, self.node)

    @property
    def key_location(self) -> Location:
        return (
            self.location if self.key_node is None else node_location(self.doc.path, self.key_node)
        )

    def get(self, key: Any) -> Located | None:
        """The entry ``key`` of a mapping value, or ``None`` when absent (or not a mapping)."""
        if not isinstance(self.value, dict) or key not in self.value:
            return None
        return self._entry(key)

    def items(self) -> list[tuple[Any, Located]]:
        """The entries of a mapping value in file order (empty for other values)."""
        if not isinstance(self.value, dict):
            return []
        return [(key, self._entry(key)) for key in self.value]

    def _entry(self, key: Any) -> Located:
        key_node = value_node = None
        if isinstance(self.node, MappingNode) and isinstance(key, str):
            key_node, value_node = self.doc.mapping_index(self.node).get(key, (None, None))
        return Located(self.doc, self.value[key], value_node, key_node, self.location)

    def elements(self) -> list[Located]:
        """The items of a list value in order (empty for other values)."""
        if not isinstance(self.value, list):
            return []
        nodes = (
            self.node.value
            if isinstance(self.node, SequenceNode) and len(self.node.value) == len(self.value)
            else None
        )
        here = self.location
        return [
            Located(self.doc, item, None if nodes is None else nodes[i], None, here)
            for i, item in enumerate(self.value)
        ]

    def descend(self, loc: Sequence[str | int]) -> Located:
        """The deepest value reachable along ``loc`` (a pydantic error location).

        A string step looks up a mapping key; an integer step indexes a list,
        or takes the n-th entry of a mapping (models accept mapping forms that
        they turn into lists, such as variant factors).
        """
        current = self
        for step in loc:
            nxt: Located | None = None
            if (
                isinstance(step, int)
                and isinstance(current.value, list)
                and 0 <= step < len(current.value)
            ):
                nxt = current.elements()[step]
            elif (
                isinstance(step, int)
                and isinstance(current.value, dict)
                and 0 <= step < len(current.value)
            ):
                nxt = current.items()[step][1]
            else:
                nxt = current.get(step)
            if nxt is None:
                break
            current = nxt
        return current


def kind_of(value: Any) -> str:
    """A reader's name for the YAML type of ``value``: ``a mapping``, ``a list``, ``a string``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    for types, name in (
        (dict, "a mapping"),
        (list, "a list"),
        (str, "a string"),
        (int, "an integer"),
        (float, "a number"),
    ):
        if isinstance(value, types):
            return name
    return f"a {type(value).__name__} value"


def parse_yaml(text: str, path: Path) -> YamlDocument:
    """Parse one YAML document; ``path`` is only used in messages.

    The text goes through the one YAML reading path of Autobench
    (:func:`autobench.records.compose_input`, YAML 1.2, the parser and constructor that
    read records and pricing files too, reading as people type: no timestamps, keys and
    ids kept as text, reshaped numbers remembered; bounded: no recursive aliases, no alias
    bombs, no nesting deeper than :data:`autobench.records.MAX_INPUT_NESTING`). Raises
    :class:`SpecError` (located) on syntax errors, duplicate keys, unknown tags,
    undefined or recursive aliases, alias bombs, too deep nesting and multi-document
    streams.
    """
    try:
        root = compose_input(text)
        document = construct_input(root)
    except SpecError:
        raise
    except YamlLimitError as exc:
        raise SpecError(
            node_location_of_mark(path, exc.problem_mark), exc.problem, expected=exc.expected
        ) from None
    except MarkedYAMLError as exc:
        raise _located_yaml_error(path, exc) from None
    except ReaderError as exc:
        raise SpecError(
            _offset_location(path, text, exc.position), f"invalid character in YAML: {exc.reason}"
        ) from None
    except (
        Exception
    ) as exc:  # the parser is third-party code: any failure means the text is not usable YAML
        raise SpecError(
            Location(path, 1, 1), f"could not parse YAML: {type(exc).__name__}: {exc}"
        ) from None
    return YamlDocument(path, document.data, root, document.reshaped)


def read_yaml(
    file: Path,
    display: Path,
    *,
    referenced_at: Location | None = None,
    parse: Callable[[str, Path], YamlDocument] | None = None,
) -> YamlDocument:
    """Read and parse ``file``; messages name it ``display``. ``parse`` parses the text
    (default :func:`parse_yaml`; :func:`autobench.core.spec._yaml_stream.deferring` leaves
    large case lists to be read one case at a time).

    A missing or unreadable file raises :class:`SpecError` at ``referenced_at``
    (the place that named the file) or, without one, for the file as a whole.
    """
    where = referenced_at or Location(display)
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        raise SpecError(where, f"file '{display}' does not exist") from None
    except IsADirectoryError:
        raise SpecError(where, f"'{display}' is a directory", expected="a YAML file") from None
    except OSError as exc:
        raise SpecError(where, f"cannot read '{display}': {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SpecError(
            _offset_location(display, raw[: exc.start].decode("utf-8", "replace"), exc.start),
            "the file is not valid UTF-8 text",
        ) from None
    return (parse or parse_yaml)(text, display)


def _located_yaml_error(path: Path, exc: MarkedYAMLError) -> SpecError:
    mark = exc.problem_mark or exc.context_mark
    location = (
        Location(path, 1, 1) if mark is None else Location(path, mark.line + 1, mark.column + 1)
    )
    problem = str(exc.problem or exc.context or "invalid YAML")
    duplicate = _DUPLICATE_KEY.match(problem)
    if duplicate:
        return SpecError(
            location,
            f"duplicate key '{duplicate['key']}'",
            expected="each key at most once per mapping",
        )
    if exc.context and exc.problem:
        problem = f"{problem} ({exc.context})"
    return SpecError(location, f"invalid YAML: {problem}")


def _offset_location(path: Path, text: str, offset: int) -> Location:
    before = text[:offset]
    line = before.count("\n") + 1
    return Location(path, line, offset - (before.rfind("\n") + 1) + 1)
