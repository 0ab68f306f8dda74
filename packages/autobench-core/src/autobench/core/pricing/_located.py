"""The message of an invalid pricing file: the field at fault, at its line and column
when the file's text is at hand, and the closest valid spelling of an unknown key."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from autobench.core._keys import did_you_mean, first_error, keys_at
from autobench.records import compose_input


def _node_at(root: Any, loc: Sequence[str | int], *, at_key: bool) -> Any:
    """The deepest node of the composed YAML tree along ``loc`` (the key node of the
    last step when ``at_key``)."""
    node = root
    for index, step in enumerate(loc):
        last = index == len(loc) - 1
        if getattr(node, "id", None) == "mapping":
            pairs = [(key, value) for key, value in node.value if key.value == str(step)]
            if not pairs:
                return node
            key, value = pairs[-1]
            node = key if last and at_key else value
        elif getattr(node, "id", None) == "sequence" and isinstance(step, int):
            if not 0 <= step < len(node.value):
                return node
            node = node.value[step]
        else:
            return node
    return node


def _where(source: Path | str, text: str | None, loc: Sequence[str | int], at_key: bool) -> str:
    """``source:line:column`` of the node at ``loc`` in ``text``, else ``source``."""
    if text is None:
        return str(source)
    try:
        root = compose_input(text)
    except Exception:
        return str(source)
    mark = getattr(_node_at(root, loc, at_key=at_key), "start_mark", None)
    if root is None or mark is None:
        return str(source)
    return f"{source}:{mark.line + 1}:{mark.column + 1}"


def pricing_problem(
    exc: ValidationError, model: type[BaseModel], source: Path | str, text: str | None = None
) -> str:
    """What is wrong with a pricing file ``model`` refused: the first unknown key (with
    the closest valid spelling and the keys accepted there), else the first error;
    located in ``text`` (the file's content) when given."""
    error = first_error(exc)
    loc = tuple(step for step in error["loc"] if isinstance(step, str | int))
    field = ".".join(str(step) for step in loc)
    unknown = error["type"] == "extra_forbidden" and bool(loc)
    where = _where(source, text, loc, unknown)
    if unknown:
        names = keys_at(model, loc[:-1])
        expected = f" (expected one of: {', '.join(sorted(names))})" if names else ""
        hint = did_you_mean(loc[-1], names)
        return f"{where}: unknown key {loc[-1]!r} in pricing file at '{field}'{hint}{expected}"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{where}: invalid pricing at '{field}': {message}"
