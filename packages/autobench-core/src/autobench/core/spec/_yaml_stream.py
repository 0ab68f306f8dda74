"""Case lists read one case at a time: a large dataset is never one composed document.

A spec or dataset file is composed whole by :func:`parse_yaml`: every node, every plain
value and, while the loader looks at them, a :class:`Located` wrapper per value, all at once
(about 6.5 KB a case of a trivial dataset at the peak). Where a file holds its case list is
known before it is interpreted (:data:`SPEC_CASE_PATHS`, :data:`DATASET_CASE_PATHS`), so a
large file is read in two walks of libyaml's events instead:

1. :func:`parse_deferring` composes everything but the items of the sequences at those
   paths, which it skips (counting nesting as it goes); such a sequence becomes a
   :class:`DeferredCases` value, an empty ``list`` that knows where its items are.
2. :meth:`DeferredCases.elements` walks the events again and composes one item at a time,
   each as its own small :class:`YamlDocument` with the file's path and the item's own
   marks, so every located message (line:column of a bad value, a duplicate id, a
   reshaped number) reads as it would from the whole document.

A text that holds an anchor or an alias, more than one document, collections nested past
the input bound, or that libyaml refuses, is left to :func:`parse_yaml` (``None``), which
decides as it always did. Small texts (under :data:`STREAM_FROM_BYTES`) are parsed whole:
the two walks only pay off on large ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from autobench.core.spec._errors import Location
from autobench.core.spec._yaml import (
    Located,
    YamlDocument,
    _located_yaml_error,
    node_location,
    parse_yaml,
)
from autobench.records import construct_input
from autobench.records._yaml_input import _InputBuilder, _InputLoader
from autobench.records._yaml_limits import MAX_INPUT_NESTING

CollectionT = TypeVar("CollectionT", SequenceNode, MappingNode)

__all__ = [
    "DATASET_CASE_PATHS",
    "SPEC_CASE_PATHS",
    "STREAM_FROM_BYTES",
    "DeferredCases",
    "deferring",
    "parse_deferring",
]

Pattern = tuple[str, ...]

ANY = "*"
"""A path step matching any mapping key."""

SPEC_CASE_PATHS: tuple[Pattern, ...] = (
    ("benchmark", ANY, "dataset", "cases"),
    ("benchmark", ANY, "cases"),
    ("dataset", "cases"),
)
"""Where a spec file lists its cases: the authoring DSL (``benchmark: {<id>: {dataset:
{cases}}}`` or ``{<id>: {cases}}``) and the structured form (``dataset: {cases}``)."""

DATASET_CASE_PATHS: tuple[Pattern, ...] = (
    (),
    ("cases",),
    (ANY, "cases"),
    ("dataset", "cases"),
    ("dataset", ANY, "cases"),
)
"""Where a dataset file lists its cases: a bare list, ``cases:``, the id-keyed form, and
either under a top-level ``dataset:`` (the exported shape)."""

STREAM_FROM_BYTES = 256 * 1024
"""Texts at least this long (in characters) are read case by case; shorter ones whole."""


class DeferredCases(list[Any]):
    """A case list not read yet: an empty ``list`` (so shape checks see a list) that yields
    its items one at a time through :meth:`elements`. ``size`` items, starting at
    ``location`` in ``path``."""

    def __init__(self, text: str, path: Path, start: int, count: int, location: Location) -> None:
        super().__init__()
        self.text = text
        self.path = path
        self.start = start
        """The character offset of the sequence's first event (its identity in the text)."""
        self.size = count
        self.location = location

    def __repr__(self) -> str:
        return f"DeferredCases({self.path}, {self.size} items at {self.location})"

    def elements(self) -> Iterator[Located]:
        """Each item, composed when reached, as a :class:`Located` over a document of its
        own (the file's path, the item's marks): what ``Located.elements()`` of the whole
        document would give, one item alive at a time."""
        loader: Any = _InputLoader(self.text)
        # One builder for every item: a constructor refers to itself, so one per item would
        # be cyclic garbage, which nothing collects while a spec loads (collection paused).
        builder = _InputBuilder()
        try:
            while True:
                event = loader.get_event()
                kind = type(event)
                if kind is StreamEndEvent:
                    return
                if kind is SequenceStartEvent and event.start_mark.index == self.start:
                    break
            while True:
                event = loader.get_event()
                if type(event) is SequenceEndEvent:
                    return
                node = _compose(loader, event)
                builder.reshaped = []
                try:
                    data = builder.construct_document(node)
                except MarkedYAMLError as exc:  # a duplicate key, an unknown tag in the item
                    raise _located_yaml_error(self.path, exc) from None
                document = YamlDocument(self.path, data, node, builder.reshaped)
                yield Located(document, data, node, None, node_location(self.path, node))
        finally:
            loader.dispose()


def deferring(patterns: tuple[Pattern, ...]) -> Callable[[str, Path], YamlDocument]:
    """A parser for :func:`read_yaml`: :func:`parse_deferring` of ``patterns`` when it
    applies, else :func:`parse_yaml`."""

    def parse(text: str, path: Path) -> YamlDocument:
        return parse_deferring(text, path, patterns) or parse_yaml(text, path)

    return parse


def parse_deferring(text: str, path: Path, patterns: tuple[Pattern, ...]) -> YamlDocument | None:
    """The document of ``text`` with the sequences at ``patterns`` left unread (each a
    :class:`DeferredCases`), or ``None`` when it must be parsed whole (see the module
    docstring: short, anchors or aliases, several documents, too deep, refused by libyaml).
    ``path`` names the file in messages."""
    if len(text) < STREAM_FROM_BYTES:
        return None
    loader: Any = _InputLoader(text)
    try:
        skeleton = _Skeleton(loader, patterns).compose()
    except Exception:
        return None
    finally:
        loader.dispose()
    if skeleton is None:
        return None
    root, deferred = skeleton
    try:
        built = construct_input(root)
    except MarkedYAMLError:
        return None  # a duplicate key, an unknown tag: the whole parse says where
    data = built.data
    for keys, sequence in deferred:
        replaced = DeferredCases(
            text,
            path,
            sequence.start_mark.index,
            sequence.count,
            node_location(path, sequence),
        )
        if not keys:
            data = replaced
            continue
        parent = data
        for key in keys[:-1]:
            parent = parent[key] if isinstance(parent, dict) and key in parent else None
        if not isinstance(parent, dict) or keys[-1] not in parent:
            return None
        parent[keys[-1]] = replaced
    return YamlDocument(path, data, root, built.reshaped)


class _Whole(Exception):
    """The text must be parsed whole."""


class _Placeholder(SequenceNode):
    """A skipped case list in the skeleton: no items, their number in ``count``."""

    count = 0


class _Skeleton:
    """One walk of the events composing the document but the items at the case paths."""

    def __init__(self, loader: Any, patterns: tuple[Pattern, ...]) -> None:
        self.loader = loader
        self.patterns = patterns
        self.prefixes = {pattern[:size] for pattern in patterns for size in range(len(pattern))}
        self.deferred: list[tuple[tuple[str, ...], _Placeholder]] = []

    def compose(self) -> tuple[Node | None, list[tuple[tuple[str, ...], _Placeholder]]] | None:
        loader = self.loader
        if type(loader.get_event()) is not StreamStartEvent:
            raise _Whole
        event = loader.get_event()
        if type(event) is StreamEndEvent:
            return None, []
        if type(event) is not DocumentStartEvent:
            raise _Whole
        root = self._node(loader.get_event(), (), 1)
        if type(loader.get_event()) is not DocumentEndEvent:
            raise _Whole
        if type(loader.get_event()) is not StreamEndEvent:
            raise _Whole  # another document: the whole parse refuses it
        return root, self.deferred

    def _matches(self, path: tuple[str, ...] | None, kind: str) -> bool:
        if path is None:
            return False
        table = self.patterns if kind == "full" else self.prefixes
        return any(
            len(pattern) == len(path)
            and all(step in (ANY, key) for step, key in zip(pattern, path, strict=True))
            for pattern in table
        )

    def _node(self, event: Any, path: tuple[str, ...] | None, depth: int) -> Node:
        kind = type(event)
        if kind is ScalarEvent:
            if event.anchor is not None:
                raise _Whole
            return _scalar(self.loader, event)
        if kind is AliasEvent or event.anchor is not None or depth > MAX_INPUT_NESTING:
            raise _Whole
        loader = self.loader
        if kind is SequenceStartEvent:
            if self._matches(path, "full"):
                assert path is not None
                return self._skip(event, path, depth)
            node = _opened(loader, event, SequenceNode)
            while True:
                item = loader.get_event()
                if type(item) is SequenceEndEvent:
                    node.end_mark = item.end_mark
                    return node
                node.value.append(self._node(item, None, depth + 1))
        if kind is MappingStartEvent:
            mapping = _opened(loader, event, MappingNode)
            while True:
                key_event = loader.get_event()
                if type(key_event) is MappingEndEvent:
                    mapping.end_mark = key_event.end_mark
                    return mapping
                key = self._node(key_event, None, depth + 1)
                inner = None
                if path is not None and type(key) is ScalarNode:
                    candidate = (*path, key.value)
                    if self._matches(candidate, "full") or self._matches(candidate, "prefix"):
                        inner = candidate
                mapping.value.append((key, self._node(loader.get_event(), inner, depth + 1)))
        raise _Whole  # not a node event: leave it to the whole parse

    def _skip(self, event: Any, path: tuple[str, ...], depth: int) -> _Placeholder:
        loader = self.loader
        node = _Placeholder(
            _tag_of(loader, event, SequenceNode),
            [],
            event.start_mark,
            None,
            flow_style=event.flow_style,
        )
        level = 0  # collection levels open below the sequence
        count = 0
        while True:
            item = loader.get_event()
            kind = type(item)
            if level == 0:
                if kind is SequenceEndEvent:
                    node.end_mark = item.end_mark
                    node.count = count
                    self.deferred.append((path, node))
                    return node
                count += 1
            if kind is MappingStartEvent or kind is SequenceStartEvent:
                level += 1
                if item.anchor is not None or depth + level > MAX_INPUT_NESTING:
                    raise _Whole
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                level -= 1
            elif kind is AliasEvent or item.anchor is not None:
                raise _Whole


def _tag_of(loader: Any, event: Any, kind: type[Node]) -> Any:
    tag = event.ctag
    if tag is None or str(tag) == "!":
        tag = loader.resolve(kind, getattr(event, "value", None), event.implicit)
    return tag


def _scalar(loader: Any, event: Any) -> ScalarNode:
    return ScalarNode(
        _tag_of(loader, event, ScalarNode),
        event.value,
        event.start_mark,
        event.end_mark,
        style=event.style,
    )


def _opened(loader: Any, event: Any, kind: type[CollectionT]) -> CollectionT:
    """The empty node of a collection started by ``event`` (its end mark set at its end)."""
    return kind(
        _tag_of(loader, event, kind), [], event.start_mark, None, flow_style=event.flow_style
    )


def _compose(loader: Any, event: Any) -> Node:
    """The node that starts with ``event`` (its depth was bounded by the first walk)."""
    kind = type(event)
    if kind is ScalarEvent:
        return _scalar(loader, event)
    if kind is SequenceStartEvent:
        node = _opened(loader, event, SequenceNode)
        while True:
            item = loader.get_event()
            if type(item) is SequenceEndEvent:
                node.end_mark = item.end_mark
                return node
            node.value.append(_compose(loader, item))
    mapping = _opened(loader, event, MappingNode)
    while True:
        key = loader.get_event()
        if type(key) is MappingEndEvent:
            mapping.end_mark = key.end_mark
            return mapping
        mapping.value.append((_compose(loader, key), _compose(loader, loader.get_event())))
