"""Equality of the record package's compact sequences (columns and plans kept in buffers)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def equal_as_sequence(self: Sequence[Any], other: object) -> bool:
    """``__eq__`` of a compact sequence: equal to any sequence (a tuple, a list, another
    compact one) of the same values in the same order, as a tuple of its values would be;
    ``NotImplemented`` for a text, bytes or anything that is no sequence. Such a sequence
    sets ``__hash__ = None`` beside it (it is not hashable)."""
    if not isinstance(other, Sequence) or isinstance(other, str | bytes):
        return NotImplemented
    return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
