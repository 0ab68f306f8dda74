"""Dotted paths into a run's data: ``output.answer``, ``case.expected.queue``, ``factors.model``.

A path is a sequence of names separated by dots. Each step looks up a mapping
key, a sequence index (``output.items.0``) or an attribute of an object; a
path is never evaluated as an expression. A step that finds nothing raises
:class:`MissingPathError` instead of returning ``None``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from autobench.abp import AutobenchError


class MissingPathError(AutobenchError, LookupError):
    """A dotted path did not resolve; ``path`` is the full path, ``step`` the failing part."""

    def __init__(self, path: str, step: str, reason: str) -> None:
        super().__init__(f"path {path!r} does not resolve at {step!r}: {reason}")
        self.path = path
        self.step = step


@functools.lru_cache(maxsize=1024)
def _parts(path: str) -> tuple[str, ...] | None:
    """The steps of ``path``; ``None`` when a step is empty. Cached: a spec names few paths
    and each is resolved on every run."""
    parts = tuple(path.split("."))
    return None if not path or not all(parts) else parts


def resolve_dotted_path(root: Mapping[str, Any], path: str) -> Any:
    """Resolve ``path`` against ``root`` (the mapping of top-level names) and return the value.

    Raises :class:`MissingPathError` when any step is missing.
    """
    parts = _parts(path)
    if parts is None:
        raise MissingPathError(path, path, "empty path segment")
    current: Any = root
    for part in parts:
        if current.__class__ is dict or isinstance(current, Mapping):
            if part in current:
                current = current[part]
                continue
            raise MissingPathError(
                path,
                part,
                f"no key {part!r} (keys: {', '.join(map(str, list(current)[:10])) or 'none'})",
            )
        if isinstance(current, Sequence) and not isinstance(current, str | bytes):
            try:
                current = current[int(part)]
            except (ValueError, IndexError):
                raise MissingPathError(
                    path, part, f"not an index of a sequence of length {len(current)}"
                ) from None
            continue
        if not part.startswith("_") and hasattr(current, part):
            current = getattr(current, part)
            continue
        raise MissingPathError(path, part, f"{type(current).__name__} value has no field {part!r}")
    return current
