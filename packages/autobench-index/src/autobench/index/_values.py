"""How a recorded value (an observation's, a score's) spreads over typed columns.

A value lands in exactly one of ``value_num`` (int or float, as float64), ``value_bool``
and ``value_text``; every value, whatever its type, is also in ``value_json`` (its JSON
text, ``null`` for none; values JSON cannot hold are written by their ``repr``), so a SQL
user filters numbers as numbers and still sees a list or a mapping.
"""

from __future__ import annotations

import json
import math
from typing import Any


def value_columns(value: Any) -> tuple[float | None, bool | None, str | None, str]:
    """``(value_num, value_bool, value_text, value_json)`` of ``value``."""
    number = bool_ = text = None
    if isinstance(value, bool):
        bool_ = value
    elif isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        text = value
    return number, bool_, text, to_json(value)


_EMPTY: dict[type, str] = {dict: "{}", list: "[]"}


def to_json(value: Any) -> str:
    """``value`` as JSON text; NaN and infinities as strings, other non-JSON values by
    ``repr``."""
    if not value and type(value) in _EMPTY:  # most attributes, usage, tags: none
        return _EMPTY[type(value)]
    try:
        return json.dumps(value, allow_nan=False, default=repr, ensure_ascii=False)
    except ValueError:
        return json.dumps(_finite(value), default=repr, ensure_ascii=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value
