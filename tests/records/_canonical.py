"""Type-exact comparison of document values (NaN equal to NaN, -0.0 distinct from 0.0)."""

from __future__ import annotations

import math
from typing import Any


def canonical(value: Any) -> Any:
    """A hashable form of ``value`` that keeps types, order, float signs and NaN."""
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else repr(value))
    if isinstance(value, dict):
        return ("dict", tuple((canonical(key), canonical(item)) for key, item in value.items()))
    if isinstance(value, list):
        return ("list", tuple(canonical(item) for item in value))
    if isinstance(value, tuple):
        return ("tuple", tuple(canonical(item) for item in value))
    if isinstance(value, set | frozenset):
        return (type(value).__name__, frozenset(canonical(item) for item in value))
    if hasattr(value, "utcoffset") and hasattr(value, "hour"):
        return ("datetime", value.isoformat(), str(value.utcoffset()))
    return (type(value).__name__, value)
