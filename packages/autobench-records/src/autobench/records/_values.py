"""Value encoding: turn any value a task, case or span holds into a *document value*.

A document value is what the record YAML stores and gives back unchanged
(``document -> text -> document`` is the identity, NaN included):

- ``None``, ``bool``, ``int`` (any size), ``float`` (``-0.0``, NaN and
  +/-infinity included), ``str`` (any text: ``"yes"``, ``"007"``, ``"~"``,
  ``""``, control characters and unicode are quoted or escaped as needed);
- ``list`` and ``dict`` of document values; dict keys may be ``str``, ``int``,
  ``bool``, ``None``, ``float`` or tuples of those;
- four non-JSON scalars with a YAML form of their own: ``bytes``
  (``!!binary``, base64), ``datetime.datetime`` and ``datetime.date`` (YAML
  timestamps, keeping the UTC offset), ``decimal.Decimal`` (``!decimal
  "1.10"``, exact digits);
- ``set`` (``!!set``) and ``frozenset`` (``!frozenset`` sequence);
- :class:`OpaqueValue` (``!opaque {type, repr}``) for anything else.

Every other value is encoded by one rule, applied recursively, and replay
reads back the encoded form:

==========================  ====================================================
value                       stored as (and read back as)
==========================  ====================================================
``tuple``, other sequences  a list
other mappings              a dict
``Enum`` member             its ``.value``
dataclass instance          a dict of its fields, in declaration order
pydantic model              its ``model_dump(mode="python")`` dict
``bytearray``/memoryview    ``bytes``
``os.PathLike``, ``UUID``   ``str``
str/int/float subclasses    the plain ``str``/``int``/``float``
datetime with a UTC offset  the same instant; offsets that are not whole
                            minutes are converted to UTC
anything else               ``OpaqueValue(type="module.QualName", repr=...)``
==========================  ====================================================

Tags, not marker keys, carry the non-JSON types, so a user mapping is never
mistaken for an encoded value and needs no escaping. Reading never constructs
an arbitrary Python object: the loader only knows the tags listed above.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import os
import reprlib
import uuid
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from pydantic import BaseModel

from autobench.records._yaml_limits import MAX_INPUT_NESTING

DECIMAL_TAG = "!decimal"
FROZENSET_TAG = "!frozenset"
OPAQUE_TAG = "!opaque"


@dataclasses.dataclass(frozen=True, slots=True)
class OpaqueValue:
    """A value the record cannot represent faithfully: its type name and ``repr``."""

    type: str
    repr: str


_NATIVE_SCALARS = frozenset(
    {type(None), bool, int, float, str, bytes, Decimal, dt.date, OpaqueValue}
)


MAX_DEPTH = MAX_INPUT_NESTING
"""Containers nested deeper than this (and so every reference cycle) are stored as
:class:`OpaqueValue` at that depth, so encoding is total and never exhausts the stack. It
is the nesting a spec or dataset may have: any value read from one is recorded whole."""

_SHORT = reprlib.Repr()
_SHORT.maxlevel = 3
_SHORT.maxstring = _SHORT.maxother = 200


def encode_value(value: Any, depth: int = 0) -> Any:
    """The document value of ``value`` (see the module docstring for the rules).

    Total: it never raises. A container nested more than :data:`MAX_DEPTH`
    levels deep (a self-referencing one included) becomes an
    :class:`OpaqueValue` holding a shortened ``repr``.
    """
    kind = type(value)
    if kind in _NATIVE_SCALARS:
        return value
    if kind is dt.datetime and value.tzinfo is dt.UTC and not value.fold:
        return value  # what _encode_datetime gives for it (a run's times are all such)
    if depth >= MAX_DEPTH:
        return OpaqueValue(type=_type_name(value), repr=_SHORT.repr(value))
    # Scalars are kept inline, without a call each: most values of a record are.
    scalars = _NATIVE_SCALARS
    if kind is dict:
        return {
            (key if type(key) is str else encode_key(key)): (
                item if type(item) in scalars else encode_value(item, depth + 1)
            )
            for key, item in value.items()
        }
    if kind is list or kind is tuple:
        return [item if type(item) in scalars else encode_value(item, depth + 1) for item in value]
    try:
        return _encode_other(value, depth + 1)
    except Exception:  # a user object whose accessors raise: keep what can be said of it
        return OpaqueValue(type=_type_name(value), repr=_safe_repr(value))


def scrub_text(value: Any) -> Any:
    """``value`` (a document value) with every string that is not valid Unicode (a lone
    surrogate, which UTF-8 cannot encode) replaced by an :class:`OpaqueValue` holding its
    ``ascii()`` form; used only when a document cannot be written as it is."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return OpaqueValue(type="str", repr=ascii(value))
        return value
    if isinstance(value, dict):
        return {scrub_key(key): scrub_text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [scrub_text(item) for item in value]
    if isinstance(value, set | frozenset):
        return type(value)(scrub_key(item) for item in value)
    return value


def scrub_key(key: Any) -> Any:
    scrubbed = scrub_text(key)
    return scrubbed if not isinstance(scrubbed, OpaqueValue) else scrubbed.repr


def _safe_repr(value: Any) -> str:
    try:
        return _SHORT.repr(value)
    except Exception:
        return f"<{_type_name(value)} object>"


def encode_key(key: Any) -> Any:
    """The document form of a mapping key: hashable scalars stay, tuples stay tuples."""
    kind = type(key)
    if kind is str or kind is int or kind is bool or kind is float or key is None:
        return key
    if isinstance(key, tuple):
        return tuple(encode_key(item) for item in key)
    encoded = encode_value(key)
    if isinstance(encoded, list):
        return tuple(encode_key(item) for item in encoded)
    if isinstance(encoded, set):
        return frozenset(encoded)
    if isinstance(encoded, dict):
        return OpaqueValue(type=_type_name(key), repr=repr(key))
    return encoded


def _encode_other(value: Any, depth: int) -> Any:
    if isinstance(value, enum.Enum):
        return encode_value(value.value, depth)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, dt.datetime):
        return _encode_datetime(value)
    if isinstance(value, dt.date):
        return dt.date(value.year, value.month, value.day)
    if isinstance(value, Decimal):
        return Decimal(value)
    if isinstance(value, frozenset):
        return frozenset(encode_key(item) for item in value)
    if isinstance(value, set):
        return {encode_key(item) for item in value}
    if isinstance(value, Mapping):
        return {encode_key(key): encode_value(item, depth) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [encode_value(item, depth) for item in value]
    if isinstance(value, BaseModel):
        return encode_value(value.model_dump(mode="python"), depth)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            field.name: encode_value(getattr(value, field.name), depth)
            for field in dataclasses.fields(value)
        }
    if isinstance(value, os.PathLike):
        return os.fspath(value) if isinstance(os.fspath(value), str) else os.fsencode(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    return OpaqueValue(type=_type_name(value), repr=_safe_repr(value))


def _encode_datetime(value: dt.datetime) -> dt.datetime:
    offset = value.utcoffset()
    plain = dt.datetime(
        value.year,
        value.month,
        value.day,
        value.hour,
        value.minute,
        value.second,
        value.microsecond,
        tzinfo=value.tzinfo,
    )
    if offset is None:
        return plain.replace(tzinfo=None)
    if offset.total_seconds() % 60 or offset.microseconds:
        return plain.astimezone(dt.UTC)
    return plain.replace(tzinfo=dt.timezone(offset))


def _type_name(value: Any) -> str:
    kind = type(value)
    return f"{kind.__module__}.{kind.__qualname__}"
