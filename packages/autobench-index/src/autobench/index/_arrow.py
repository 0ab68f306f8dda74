"""Arrow arrays, scalars and compute calls without the imports they would otherwise cost.

``pa.array(values, type=...)`` (and ``pa.scalar``) import pandas whenever it is installed
(pyarrow's pandas shim looks for pandas types among the values): a quarter of a second in a
process that never needed it, whether it writes an index or reads one. ``pyarrow.compute``
builds a Python wrapper per function when imported (a tenth of a second more).

Writing: :func:`column_array` builds the arrays of the index's column types
(:data:`~autobench.index._tables.SCHEMAS`: ``string``, ``int64``, ``float64``, ``bool`` and
``timestamp[us, tz=UTC]``, nulls allowed) directly from their buffers: values packed with
:mod:`array`, validity as an LSB-first bitmap; any other type goes to ``pa.array``.
Reading: :func:`int64_array`, :func:`string_array` (no nulls, no checks: the fast path of a
read command), scalars, and compute functions called by name (:func:`call`).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from itertools import accumulate
from typing import Any

import pyarrow as pa
import pyarrow._compute as _compute

_INT32_MAX = 2**31 - 1
_NAIVE_EPOCH = datetime(1970, 1, 1)
_MICROSECOND = timedelta(microseconds=1)

assert array("i").itemsize == 4 and array("q").itemsize == 8


def column_array(values: Sequence[Any], type: pa.DataType) -> pa.Array:
    """The Arrow array of ``values`` (``None`` for null) of type ``type``: equal to
    ``pa.array(values, type=type)`` for the index's column types (see the module
    docstring). Raises ``TypeError`` / ``OverflowError`` for a value the type cannot hold
    (as ``pa.array`` raises ``ArrowInvalid`` / ``ArrowTypeError`` then)."""
    if pa.types.is_string(type):
        return _strings(values, type)
    if pa.types.is_int64(type):
        return _fixed(values, type, "q", _int, 0)
    if pa.types.is_float64(type):
        return _fixed(values, type, "d", _float, 0.0)
    if pa.types.is_boolean(type):
        return _booleans(values, type)
    if pa.types.is_timestamp(type) and type.unit == "us" and type.tz in ("UTC", "+00:00"):
        return _fixed(values, type, "q", _microseconds, 0)
    return pa.array(values, type=type)


def _validity(values: Sequence[Any]) -> tuple[pa.Buffer | None, int]:
    """The validity bitmap of ``values`` (``None`` when none is null) and the null count."""
    if None not in values:  # a scan in C: most columns hold no null
        return None, 0
    valid = [value is not None for value in values]
    return pa.py_buffer(_bitmap(valid)), len(valid) - sum(valid)


def _bitmap(bits: list[bool]) -> bytes:
    """``bits`` packed LSB first, one byte per eight (Arrow's bitmap layout)."""
    if not bits:
        return b""
    # Base 2 parses in linear time: the last value is the highest bit.
    packed = int("".join(["1" if bit else "0" for bit in reversed(bits)]), 2)
    return packed.to_bytes((len(bits) + 7) // 8, "little")


def _fixed(
    values: Sequence[Any], type: pa.DataType, code: str, convert: Any, zero: Any
) -> pa.Array:
    bitmap, nulls = _validity(values)
    if nulls:
        data = array(code, [zero if value is None else convert(value) for value in values])
    else:
        data = array(code, map(convert, values))
    return pa.Array.from_buffers(type, len(values), [bitmap, pa.py_buffer(data)], nulls)


def _booleans(values: Sequence[Any], type: pa.DataType) -> pa.Array:
    bitmap, nulls = _validity(values)
    bits = [_bool(value) for value in values]
    return pa.Array.from_buffers(type, len(values), [bitmap, pa.py_buffer(_bitmap(bits))], nulls)


def _bool(value: Any) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise TypeError(f"not a bool: {value!r}")
    return value


def _strings(values: Sequence[Any], type: pa.DataType) -> pa.Array:
    bitmap, nulls = _validity(values)
    texts = [_text(value) for value in values] if nulls else values
    try:
        joined = "".join(texts)
    except TypeError:  # a value that is no str: named
        joined = "".join(map(_text, texts))
    if joined.isascii():  # as a rule: each text's length is its UTF-8 length, all in C
        lengths = list(map(len, texts))
        data = joined.encode("ascii")
    else:
        encoded = [text.encode("utf-8") for text in texts]
        lengths = list(map(len, encoded))
        data = b"".join(encoded)
    if len(data) > _INT32_MAX:  # past 32-bit offsets: pyarrow's own chunking
        return pa.array(values, type=type)
    offsets = array("i", [0])
    offsets.extend(accumulate(lengths))
    buffers = [bitmap, pa.py_buffer(offsets), pa.py_buffer(data)]
    return pa.Array.from_buffers(type, len(values), buffers, nulls)


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"not an int: {value!r}")
    return value


def _float(value: Any) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise TypeError(f"not a number: {value!r}")
    return float(value)


def _text(value: Any) -> str:
    """``value``, a str (``""`` for ``None``: a null's slot); raises ``TypeError`` else."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"not a str: {value!r}")
    return value


def _microseconds(value: Any) -> int:
    """Microseconds since the epoch of a datetime, as pyarrow counts them: a naive one is
    taken as UTC, an aware one is moved to UTC by its offset in whole seconds."""
    if not isinstance(value, datetime):
        raise TypeError(f"not a datetime: {value!r}")
    offset = value.utcoffset()
    wall = (value.replace(tzinfo=None) - _NAIVE_EPOCH) // _MICROSECOND
    if offset is None:
        return wall
    return wall - (offset.days * 86400 + offset.seconds) * 1_000_000


SetLookupOptions = _compute.SetLookupOptions
MatchSubstringOptions = _compute.MatchSubstringOptions
CastOptions = _compute.CastOptions


def call(name: str, *args: Any, options: Any = None) -> Any:
    """Arrow's compute function ``name`` over ``args`` (arrays, chunked arrays, record
    batches or scalars), with ``options``."""
    return _compute.call_function(name, list(args), options)


def int64_array(values: Sequence[int]) -> pa.Array:
    """``values`` as an int64 array (no nulls)."""
    data = array("q", values)
    return pa.Array.from_buffers(pa.int64(), len(data), [None, pa.py_buffer(data)])


def string_array(values: Sequence[str]) -> pa.Array:
    """``values`` as a string array (no nulls)."""
    encoded = [value.encode() for value in values]
    offsets = array("i", [0])
    offsets.extend(accumulate(map(len, encoded)))
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.string(), len(encoded), buffers)


def int64_scalar(value: int) -> pa.Scalar:
    return int64_array([value])[0]


def string_scalar(value: str) -> pa.Scalar:
    return string_array([value])[0]


def as_int64(values: Any) -> Any:
    """``values`` (an integer array) cast to int64."""
    return call("cast", values, options=_compute.CastOptions.safe(pa.int64()))


def as_int32(values: Any) -> Any:
    """``values`` (an integer array whose values fit) cast to int32."""
    return call("cast", values, options=_compute.CastOptions.safe(pa.int32()))


_BOOLEANS = pa.Array.from_buffers(pa.bool_(), 2, [None, pa.py_buffer(bytes([0b10]))])
FALSE: pa.Scalar = _BOOLEANS[0]
TRUE: pa.Scalar = _BOOLEANS[1]


def combined(values: pa.ChunkedArray) -> pa.Array:
    """``values.combine_chunks()``, but for no chunks at all (a table of no rows) an empty
    array made in C: pyarrow builds that one with ``pa.array([])``, which imports pandas
    (a tenth of a second) whenever it is installed."""
    if values.num_chunks == 0:
        return pa.nulls(0, type=values.type)
    return values.combine_chunks()


def shared_pylist(
    values: pa.Array | pa.ChunkedArray, convert: Callable[[Any], Any] | None = None
) -> list[Any]:
    """``values.to_pylist()`` with one Python object per distinct value (a column that
    repeats a few texts costs a reference per row, not a string), by Arrow's dictionary
    encoding; with ``convert``, each distinct value (not a null) is given as
    ``convert(value)``. The rows are filled by numpy's take over the distinct values: no
    Python per row."""
    import numpy as np  # not at import: the index worker keeps numpy out

    if isinstance(values, pa.ChunkedArray):  # one dictionary for all the chunks
        values = combined(values)
    encoded = call("dictionary_encode", values)
    distinct = encoded.dictionary.to_pylist()
    if convert is not None:
        distinct = [convert(value) for value in distinct]
    shared = np.empty(len(distinct) + 1, dtype=object)  # the last: None, for a null
    shared[: len(distinct)] = distinct
    codes = as_int64(encoded.indices)
    if codes.null_count:
        codes = call("coalesce", codes, int64_scalar(len(distinct)))
    count, start = len(codes), 8 * codes.offset
    numbers = np.frombuffer(codes.buffers()[1], dtype=np.int64, count=count, offset=start)
    rows: list[Any] = shared[numbers].tolist()
    return rows
