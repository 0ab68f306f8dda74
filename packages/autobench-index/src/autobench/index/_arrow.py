"""Arrow arrays, scalars and compute calls for a read command, without the imports they
would otherwise cost: ``pyarrow.compute`` builds a Python wrapper per function when imported
(a tenth of a second), and ``pa.array``/``pa.scalar`` import pandas, when it is installed,
to check whether a value is one of its objects (a seventh of a second more). Arrays are built
here from buffers and functions are called by name."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow._compute as _compute

SetLookupOptions = _compute.SetLookupOptions
MatchSubstringOptions = _compute.MatchSubstringOptions


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
    total = 0
    for item in encoded:
        total += len(item)
        offsets.append(total)
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.string(), len(encoded), buffers)


def int64_scalar(value: int) -> pa.Scalar:
    return int64_array([value])[0]


def string_scalar(value: str) -> pa.Scalar:
    return string_array([value])[0]


def as_int64(values: Any) -> Any:
    """``values`` (an integer array) cast to int64."""
    return call("cast", values, options=_compute.CastOptions.safe(pa.int64()))


_BOOLEANS = pa.Array.from_buffers(pa.bool_(), 2, [None, pa.py_buffer(bytes([0b10]))])
FALSE: pa.Scalar = _BOOLEANS[0]
TRUE: pa.Scalar = _BOOLEANS[1]
