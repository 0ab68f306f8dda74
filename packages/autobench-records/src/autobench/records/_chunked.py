"""Columns of a run table held compactly: values made as Python objects a chunk at a time,
only when read (:class:`ChunkedColumn`), and values of few distinct texts as codes
(:class:`CodedColumn`).

A columnar store holds a run table's per-run texts and numbers in its own buffers (an Arrow
array: about 34 bytes a run id, 8 a duration); as Python objects, a tuple of a million run
ids is about 88 MB and of a million durations 32 MB, for values a report reads only for
the few runs it shows. :class:`ChunkedColumn` is the sequence a reader sees instead.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar, overload

from autobench.records._sequences import equal_as_sequence

T = TypeVar("T")


class ChunkedColumn(Sequence[T]):
    """``length`` values, read through ``fetch(start, stop)`` (the values at positions
    ``start`` to ``stop - 1`` as a list, made by the store) a chunk of ``chunk`` positions
    at a time. The last chunk read is kept, so reading the values in order costs a
    list lookup each; iterating and slicing fetch what they cover. Equal to any sequence
    (a tuple, a list, another column) of the same values in the same order; never
    hashable."""

    __slots__ = ("_at", "_chunk", "_fetch", "_length", "_size")

    def __init__(
        self, length: int, fetch: Callable[[int, int], list[T]], *, chunk: int = 4096
    ) -> None:
        if length < 0 or chunk < 1:
            raise ValueError("a column's length is never negative, its chunks never empty")
        self._length = length
        self._size = chunk
        self._fetch = fetch
        self._at = -1
        self._chunk: list[T] = []

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._length)
            if step == 1:
                return self._fetch(start, stop) if start < stop else []
            return [self[position] for position in range(start, stop, step)]
        position = index.__index__()
        if position < 0:
            position += self._length
        if not 0 <= position < self._length:
            raise IndexError("column index out of range")
        at = position - position % self._size
        if at != self._at:
            self._chunk = self._fetch(at, min(at + self._size, self._length))
            self._at = at
        return self._chunk[position - at]

    def __iter__(self) -> Iterator[T]:
        step = self._size * 16
        for start in range(0, self._length, step):
            yield from self._fetch(start, min(start + step, self._length))

    __eq__ = equal_as_sequence

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ChunkedColumn(length={self._length})"


class CodedColumn(Sequence[T]):
    """A column of few distinct values: ``names[codes[i]]`` is the value at ``i``
    (``codes``: an ``array`` of ints, 4 or 8 bytes a value, where a tuple holds 8 bytes of
    reference; ``names``: each distinct value once, as one object). Readers that group
    by value (the report's cases) use the codes themselves. Equal to any sequence of the
    same values in the same order; never hashable."""

    __slots__ = ("codes", "names")

    def __init__(self, names: Sequence[T], codes: array[int]) -> None:
        if len(codes) and not 0 <= min(codes) <= max(codes) < len(names):
            raise ValueError("a code names no value of the column")
        self.names = names
        self.codes = codes

    @classmethod
    def of(cls, values: Iterable[T]) -> CodedColumn[T]:
        """The :class:`CodedColumn` of ``values`` (hashable), numbered in order of first
        appearance."""
        number: dict[T, int] = {}
        codes = array("q", [number.setdefault(value, len(number)) for value in values])
        return cls(list(number), codes)

    def __len__(self) -> int:
        return len(self.codes)

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self.names[code] for code in self.codes[index]]
        return self.names[self.codes[index]]

    def __iter__(self) -> Iterator[T]:
        return map(self.names.__getitem__, self.codes)

    __eq__ = equal_as_sequence

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"CodedColumn(length={len(self.codes)}, distinct={len(self.names)})"
