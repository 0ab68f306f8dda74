"""Where in a record file a model error points: the line and column of the offending value.

Only the error path uses this. The text is composed again (:func:`compose_yaml`, whose
nodes keep their 0-based ``start_mark``) and the error's ``loc`` is followed through the
node tree: a string part selects a mapping key, an integer part a sequence item. A part
that selects nothing (a union member's name that pydantic adds to ``loc``, a section the
reader reshaped) is passed over; the location is the deepest node reached.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, SequenceNode

from autobench.records._yaml import compose_yaml


def locate_value(text: str, loc: Sequence[str | int]) -> tuple[int, int] | None:
    """``(line, column)`` (1-based) of the node ``loc`` leads to in the YAML ``text``;
    ``None`` when the text does not compose (its reader reported that already)."""
    try:
        node = compose_yaml(text)
    except (YAMLError, ValueError):
        return None
    if node is None:
        return None
    for part in loc:
        found = _child(node, part)
        if found is not None:
            node = found
    mark = node.start_mark
    return mark.line + 1, mark.column + 1


def _child(node: Any, part: str | int) -> Any:
    if isinstance(node, MappingNode):
        for key, value in node.value:
            if getattr(key, "value", None) == str(part):
                return value
    elif isinstance(node, SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
        return node.value[part]
    return None
