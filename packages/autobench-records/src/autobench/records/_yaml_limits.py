"""Bounds on every YAML document Autobench reads: nesting depth and alias expansion.

A YAML text of a few kilobytes can describe a value far larger than itself (aliases of
aliases, the "billion laughs"), or nest collections so deeply that building it exhausts
the stack (libyaml's composer recurses in C: some 25,000 levels crash the process). Every
YAML input goes through :func:`autobench.records.compose_yaml` (records) or
:func:`autobench.records.compose_input` (specs, datasets, pricing files), and both apply
the checks here to the composed node tree before any value is built from it:

- no alias may refer to a value that contains it (recursive data);
- the document, with every alias expanded, holds at most :data:`MAX_EXPANDED_VALUES`
  values;
- collections nest at most :data:`MAX_INPUT_NESTING` levels in a file people type and
  :data:`MAX_RECORD_NESTING` levels in a record file.

The input limit is what a record can hold: a value nested that deep in a spec is
recorded as it is (the record writer keeps :data:`~autobench.records._values.MAX_DEPTH`
levels of a value) and its record reads back. A refused document raises
:class:`YamlLimitError`, a ``MarkedYAMLError`` located at the node that passes the limit.

A text that could nest deeper than :data:`C_PARSER_SAFE_DEPTH` levels (an upper bound
computed from its characters, :func:`nesting_bound`) is never handed to libyaml; it is
read by ruamel's own parser, which stops at the first node past the limit.
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode

MAX_INPUT_NESTING = 200
"""How many levels collections may nest in a spec, dataset or pricing file (a top-level
mapping is level 1)."""

MAX_RECORD_NESTING = 256
"""How many levels collections may nest in a record file: the input limit plus room for
the record's own structure around a value (``trace.spans[i].attributes.<name>``)."""

MAX_EXPANDED_VALUES = 1_000_000
"""How many values a document may hold once every alias is expanded. Aliases that
multiply a value past this are refused before any of it is built or walked."""

C_PARSER_SAFE_DEPTH = 10_000
"""Texts whose :func:`nesting_bound` passes this are read by the pure-Python parser only."""


class YamlLimitError(MarkedYAMLError):
    """A YAML document past one of the bounds of this module: ``problem`` says which,
    ``problem_mark`` (0-based line and column) where, and ``expected`` what is allowed."""

    def __init__(self, problem: str, mark: Any, expected: str) -> None:
        super().__init__(problem=problem, problem_mark=mark)
        self.expected = expected


def nesting_bound(text: str) -> int:
    """An upper bound on how deeply collections nest in the YAML ``text``: a flow collection
    needs its own ``[`` or ``{``, and block collections nest only by indentation (at most
    two levels per column: a sequence may sit at its key's indentation)."""
    longest = max(map(len, text.split("\n")), default=0)
    return text.count("[") + text.count("{") + 2 * (longest + 1) + 1


def check_document(root: Node | None, *, max_nesting: int, aliases: bool = True) -> None:
    """Refuse (:class:`YamlLimitError`) a composed document with a recursive alias, more than
    :data:`MAX_EXPANDED_VALUES` values once its aliases are expanded, or collections nested
    more than ``max_nesting`` levels. Linear in the number of distinct nodes (a node that
    aliases share is walked once). ``aliases=False`` (the text holds no ``*``, so no node
    is shared) checks the nesting only, faster."""
    if root is None or isinstance(root, ScalarNode):
        return
    if not aliases:
        _check_depth(root, max_nesting)
        return
    sizes: dict[int, int] = {}
    heights: dict[int, int] = {}
    path: list[Node] = []
    on_path: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        key = id(node)
        if leaving:
            path.pop()
            on_path.discard(key)
            children = _children(node)
            size = 1 + sum(sizes[id(child)] for child in children)
            if size > MAX_EXPANDED_VALUES:
                raise YamlLimitError(
                    f"aliases expand this value to more than {MAX_EXPANDED_VALUES:,} values",
                    node.start_mark,
                    "a document without exponential alias nesting",
                )
            sizes[key] = size
            heights[key] = 1 + max((heights[id(child)] for child in children), default=0)
            continue
        if key in on_path:
            raise YamlLimitError(
                "an alias refers to a value that contains it (recursive data)",
                node.start_mark,
                "data that does not contain itself",
            )
        if key in sizes:  # walked before, reached again through an alias
            if len(path) + heights[key] > max_nesting:
                raise too_deep_error(path[-1].start_mark, max_nesting)
            continue
        if isinstance(node, ScalarNode):
            sizes[key] = 1
            heights[key] = 0
            continue
        path.append(node)
        on_path.add(key)
        if len(path) > max_nesting:
            raise too_deep_error(node.start_mark, max_nesting)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(_children(node)))


def too_deep_error(mark: Any, max_nesting: int) -> YamlLimitError:
    """The :class:`YamlLimitError` of a collection at ``mark`` nested past ``max_nesting``."""
    return YamlLimitError(
        f"collections nest more than {max_nesting} levels deep here",
        mark,
        f"at most {max_nesting} levels of mappings and lists inside one another",
    )


def _check_depth(root: Node, max_nesting: int) -> None:
    """The nesting check of a tree without aliases (every node has one parent)."""
    level = [root]
    depth = 1
    while level:
        if depth > max_nesting:
            raise too_deep_error(level[0].start_mark, max_nesting)
        below: list[Node] = []
        for node in level:
            if isinstance(node, MappingNode):
                below.extend(
                    item for pair in node.value for item in pair if type(item) is not ScalarNode
                )
            else:
                below.extend(item for item in node.value if type(item) is not ScalarNode)
        level = below
        depth += 1


def _children(node: Node) -> list[Node]:
    if isinstance(node, MappingNode):
        return [item for pair in node.value for item in pair]
    return list(node.value)
