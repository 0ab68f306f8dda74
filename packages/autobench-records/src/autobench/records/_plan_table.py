"""An experiment's plan held as columns, each planned run built only when asked for.

A columnar store (the index) keeps the plan of a million runs as a few string columns; a
:class:`PlanTable` is a sequence of :class:`~autobench.records.PlannedRun` like the tuple
``ExperimentRecord.plan`` holds (same length, same order, ``plan[i]`` an equal model), so
every reader of the plan works on it unchanged, while readers of many planned runs read
its columns (:func:`plan_column`) instead of building a model per run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import overload

from autobench.records._records import PlannedRun

PLAN_COLUMNS = ("id", "case", "variant", "path", "input")
"""The fields of a planned run, in order: the columns of a :class:`PlanTable`."""

CHUNK_RUNS = 65536
"""Planned runs a chunk of :func:`plan_column_chunks` holds (from a plan's columns)."""


class PlanTable(Sequence[PlannedRun]):
    """``count`` planned runs whose fields are the columns ``column(name)`` gives (each a
    sequence of ``count`` values, ``name`` one of :data:`PLAN_COLUMNS`; asked once per
    name, when first needed). Indexing builds (and validates) one :class:`PlannedRun`;
    iteration builds them one at a time and keeps none."""

    def __init__(
        self,
        count: int,
        column: Callable[[str], Sequence[str | None]],
        chunks: Callable[[], Iterator[dict[str, Sequence[str | None]]]] | None = None,
    ) -> None:
        self._count = count
        self._fetch = column
        self._chunks = chunks
        self._columns: dict[str, Sequence[str | None]] = {}

    def column_chunks(self) -> Iterator[dict[str, Sequence[str | None]]]:
        """Every column a stretch of planned runs at a time (each a mapping of every name of
        :data:`PLAN_COLUMNS` to that stretch's values, in plan order): from the store's
        ``chunks`` when it gives them, so the whole columns are never held at once, else
        from :meth:`column`."""
        if self._chunks is not None and not self._columns:
            yield from self._chunks()
            return
        for start in range(0, self._count, CHUNK_RUNS):
            stop = min(start + CHUNK_RUNS, self._count)
            yield {name: self.column(name)[start:stop] for name in PLAN_COLUMNS}

    def column(self, name: str) -> Sequence[str | None]:
        """The values of field ``name`` of every planned run, in plan order. Raises
        ``KeyError`` for a name that is not a field, ``ValueError`` when the store gives a
        column of another length."""
        found = self._columns.get(name)
        if found is None:
            if name not in PLAN_COLUMNS:
                raise KeyError(name)
            found = self._fetch(name)
            if len(found) != self._count:
                raise ValueError(
                    f"the plan's {name} column has {len(found)} values, not {self._count}"
                )
            self._columns[name] = found
        return found

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> PlannedRun: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[PlannedRun, ...]: ...

    def __getitem__(self, index: int | slice) -> PlannedRun | tuple[PlannedRun, ...]:
        if isinstance(index, slice):
            return tuple(self._built(position) for position in range(self._count)[index])
        return self._built(range(self._count)[index])  # IndexError as a tuple's

    def _built(self, position: int) -> PlannedRun:
        return PlannedRun(**{name: self.column(name)[position] for name in PLAN_COLUMNS})

    def __iter__(self) -> Iterator[PlannedRun]:
        for position in range(self._count):
            yield self._built(position)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PlanTable | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PlanTable(runs={self._count})"


def plan_column(plan: Sequence[PlannedRun], name: str) -> Sequence[str | None]:
    """Field ``name`` (one of :data:`PLAN_COLUMNS`) of every planned run of ``plan``: a
    :class:`PlanTable`'s column as it is, else read from each model."""
    if isinstance(plan, PlanTable):
        return plan.column(name)
    if name not in PLAN_COLUMNS:
        raise KeyError(name)
    return [getattr(planned, name) for planned in plan]


def plan_column_chunks(plan: Sequence[PlannedRun]) -> Iterator[dict[str, Sequence[str | None]]]:
    """Every column of ``plan`` a stretch of planned runs at a time (see
    :meth:`PlanTable.column_chunks`); a plan of models gives stretches of
    :data:`CHUNK_RUNS` runs."""
    if isinstance(plan, PlanTable):
        yield from plan.column_chunks()
        return
    for start in range(0, len(plan), CHUNK_RUNS):
        stretch = plan[start : start + CHUNK_RUNS]
        yield {name: [getattr(run, name) for run in stretch] for name in PLAN_COLUMNS}
