"""A dataset's cases kept compactly: each case's validated input as pickled bytes, built into a
:class:`~autobench.records.Case` when asked for.

A ``Case`` model of a trivial case keeps about 1.3 KB (its dictionaries, its field set, the
payloads'); the mapping it was validated from, pickled, about 80 bytes. A spec loaded from
YAML keeps its cases as a :class:`CaseList` and each run builds its case when it starts
(:attr:`autobench.core.planning.MatrixRunSpec.case`), so a dataset of a million cases is not
a million models held for the whole experiment.
"""

from __future__ import annotations

import pickle
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, overload

from autobench.records import Case

__all__ = ["CaseList"]


class CaseList(Sequence[Case]):
    """An immutable sequence of :class:`Case`, stored as the pickled mappings each was
    validated from (``Case.model_validate`` of each gives it back, equal every time).

    It behaves as the tuple of its cases where a tuple is read: ``len``, indexing (a slice
    gives a tuple), iteration, ``==`` with any sequence of cases, ``+`` (a tuple), hashing
    and pickling. Each access validates the case again (a few microseconds; the last one is
    remembered, as runs ask for the same case in a row); the ids are kept as text.
    """

    __slots__ = ("_blob", "_ends", "_ids", "_last")

    def __init__(self) -> None:
        self._blob = bytearray()
        self._ends = array("Q")
        self._ids: list[str] = []
        self._last: tuple[int, Case] | None = None

    @classmethod
    def of(cls, cases: Iterable[Mapping[str, Any]]) -> CaseList:
        """The list of ``cases`` (mappings ``Case`` validates; ``ValidationError`` if not)."""
        built = cls()
        for raw in cases:
            built.append(raw, Case.model_validate(raw))
        return built

    def append(self, raw: Mapping[str, Any], case: Case) -> None:
        """Add ``case``, validated from ``raw`` (only the builder of a new list calls this)."""
        self._blob += pickle.dumps(raw, protocol=pickle.HIGHEST_PROTOCOL)
        self._ends.append(len(self._blob))
        self._ids.append(case.id)
        self._last = (len(self._ends) - 1, case)

    @property
    def ids(self) -> tuple[str, ...]:
        """The case ids in order, without building any case."""
        return tuple(self._ids)

    def id_at(self, index: int) -> str:
        """The id of the case at ``index`` without building it."""
        return self._ids[index]

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, index: int) -> Case: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Case, ...]: ...

    def __getitem__(self, index: int | slice) -> Case | tuple[Case, ...]:
        if isinstance(index, slice):
            return tuple(self._case(i) for i in range(len(self))[index])
        return self._case(range(len(self))[index])  # IndexError as a tuple's

    def _case(self, index: int) -> Case:
        last = self._last
        if last is not None and last[0] == index:
            return last[1]
        start = self._ends[index - 1] if index else 0
        case = Case.model_validate(pickle.loads(self._blob[start : self._ends[index]]))
        self._last = (index, case)
        return case

    def __iter__(self) -> Iterator[Case]:
        for index in range(len(self._ends)):
            yield self._case(index)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CaseList) and other._blob == self._blob and other._ends == self._ends:
            return True
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __add__(self, other: Sequence[Case]) -> tuple[Case, ...]:
        return (*self, *other)

    def __radd__(self, other: Sequence[Case]) -> tuple[Case, ...]:
        return (*other, *self)

    def __repr__(self) -> str:
        return f"CaseList({len(self)} cases)"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (bytes(self._blob), self._ends.tobytes(), self._ids))

    @property
    def nbytes(self) -> int:
        """The bytes of the pickled cases and their offsets (the ids not counted)."""
        return len(self._blob) + self._ends.itemsize * len(self._ends)


def _restore(blob: bytes, ends: bytes, ids: list[str]) -> CaseList:
    restored = CaseList()
    restored._blob = bytearray(blob)
    restored._ends = array("Q")
    restored._ends.frombytes(ends)
    restored._ids = list(ids)
    return restored
