"""An experiment's runs held as columns, each whole run record built only when asked for.

A columnar store (the index) reads the few per-run values a report needs (ids, statuses,
the metric values of each run) without building a :class:`RunRecord` per run. A
:class:`RunTable` is a sequence of run records like the tuple a replay gives (same length,
same order, ``table[i]`` the same record), so every reader of runs works on it unchanged;
the readers that only need ids, statuses or metric values read its columns instead, and a
run is validated only when someone asks for it.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from autobench.records._enums import (
    Direction,
    ObservationKind,
    ObservationRole,
    ObservationSource,
    RunStatus,
)
from autobench.records._evidence import Observation
from autobench.records._records import RunRecord
from autobench.records._sequences import equal_as_sequence


@dataclass(frozen=True, slots=True)
class PlainItem:
    """One metric value of a run as recorded: a metric observation's, or a score's that
    produced a value (``source`` ``score``), with its semantic type (as recorded, not
    normalised), name, value, unit, role and direction."""

    semantic_type: str
    name: str
    value: Any
    unit: str | None
    role: ObservationRole | None
    direction: Direction | None
    source: ObservationSource

    @property
    def scored(self) -> bool:
        """Whether the value is a score's."""
        return self.source is ObservationSource.SCORE

    def observation(self) -> Observation:
        """The metric observation a projection weighs for this value (no id, span, reason
        or tags: what a projection of a non-additive type reads)."""
        return Observation(
            id=f"{self.source.value}.{self.name}",
            name=self.name,
            kind=ObservationKind.METRIC,
            value=self.value,
            unit=self.unit,
            semantic_type=self.semantic_type,
            direction=self.direction,
            role=self.role,
            source=self.source,
        )


PlainFields = tuple[
    str, str, str | None, ObservationRole | None, Direction | None, ObservationSource
]
"""The fields of a :class:`PlainItem` but its value: ``(semantic_type, name, unit, role,
direction, source)``."""

_SLOTS = ("semantic_type", "name", "value", "unit", "role", "direction", "source")


def plain_items(
    fields: Sequence[PlainFields], kinds: Iterable[int], values: Iterable[Any]
) -> list[PlainItem]:
    """An item per pair of ``kinds`` and ``values`` (in order, of one length): the
    value with the fields ``fields[kind]``, as ``PlainItem(semantic, name, value, unit,
    role, direction, source)`` gives it, in about half the time (the slots are set directly,
    not through the frozen dataclass's ``__init__``: a store building hundreds of thousands
    of items, one per distinct row, spent a second in it at a million runs). Raises
    ``IndexError`` for a kind that is not a position of ``fields``, ``ValueError`` when
    ``kinds`` and ``values`` differ in length."""
    setters = [PlainItem.__dict__[name].__set__ for name in _SLOTS]
    semantic, name, value_, unit, role, direction, source = setters
    new = object.__new__
    made: list[PlainItem] = []
    add = made.append
    for kind, value in zip(kinds, values, strict=True):
        described = fields[kind]
        item = new(PlainItem)
        semantic(item, described[0])
        name(item, described[1])
        value_(item, value)
        unit(item, described[2])
        role(item, described[3])
        direction(item, described[4])
        source(item, described[5])
        add(item)
    return made


PlainRun = tuple[PlainItem, ...] | None
"""A run's metric values in the order a projection meets them (its metric observations in
record order, then its scores that produced a value, in record order), or ``None`` when the
run holds anything else a projection reads (a diagnostic, accounting summaries or cassette
evidence, an observation of another kind with a semantic type, a value the store cannot give
back exactly): the projection then reads the whole run."""


class PlainRuns(Sequence[PlainRun]):
    """Every run's :data:`PlainRun`, held flat: ``items`` holds the items of every run, run
    after run (``ends[i]``: where run ``i``'s items end, so they are
    ``items[ends[i - 1]:ends[i]]``, from 0 for the first run); ``whole``: the positions whose
    :data:`PlainRun` is ``None`` (any items in their span are not theirs to use). Indexing
    builds the run's tuple; a reader of many runs (the projection) reads the flat items by
    span instead: a reference per item, where a tuple per run cost 64 bytes more each (a
    million runs of three values: 72 MB against 32 MB)."""

    __slots__ = ("ends", "items", "whole")

    def __init__(self, items: list[PlainItem], ends: array[int], whole: frozenset[int]) -> None:
        if any(not 0 <= position < len(ends) for position in whole):
            raise ValueError("a run read whole is not a run of the table")
        if len(ends) and ends[-1] != len(items):
            raise ValueError("the runs' ends do not end at the last item")
        self.items = items
        self.ends = ends
        self.whole = whole

    @classmethod
    def of(cls, runs: Iterable[PlainRun]) -> PlainRuns:
        """The :class:`PlainRuns` of each run's :data:`PlainRun`, in order."""
        items: list[PlainItem] = []
        ends = array("q")
        whole = []
        for position, run in enumerate(runs):
            if run is None:
                whole.append(position)
            else:
                items.extend(run)
            ends.append(len(items))
        return cls(items, ends, frozenset(whole))

    def span(self, position: int) -> tuple[int, int]:
        """Where run ``position``'s items start and end in :attr:`items`."""
        return (self.ends[position - 1] if position else 0), self.ends[position]

    def __len__(self) -> int:
        return len(self.ends)

    @overload
    def __getitem__(self, index: int) -> PlainRun: ...

    @overload
    def __getitem__(self, index: slice) -> list[PlainRun]: ...

    def __getitem__(self, index: int | slice) -> PlainRun | list[PlainRun]:
        if isinstance(index, slice):
            return [self[position] for position in range(len(self))[index]]
        position = range(len(self))[index]  # raises IndexError as a tuple would
        if position in self.whole:
            return None
        start, end = self.span(position)
        return tuple(self.items[start:end])

    __eq__ = equal_as_sequence

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PlainRuns(runs={len(self)}, items={len(self.items)}, whole={len(self.whole)})"


class RunTable(Sequence[RunRecord]):
    """Runs as columns (each a sequence in run order: ids, statuses, the task's and the
    evaluation's status values, durations in seconds; a store gives a
    :class:`~autobench.records.ChunkedColumn` for those it holds in its own buffers, a tuple
    for the others) plus ``load``, which builds the whole
    records of the given positions (a list in the same order). ``plain`` holds, per run,
    its :data:`PlainRun` (a store gives :class:`PlainRuns`). ``missing``, when the store computed it, holds the ids of the
    planned runs without a record (``ExperimentResult.missing_runs``). Indexing and iteration build records through ``load`` (in
    batches of :data:`BATCH` when iterating), once: a record built is kept. Iterating
    costs what validating every run costs, and keeps them all: readers of many runs use
    the columns."""

    BATCH = 2048

    def __init__(
        self,
        *,
        run_ids: Sequence[str],
        case_ids: Sequence[str],
        variant_ids: Sequence[str],
        statuses: Sequence[RunStatus],
        task_statuses: Sequence[str],
        evaluation_statuses: Sequence[str],
        durations: Sequence[float | None],
        plain: Sequence[PlainRun],
        load: Callable[[Sequence[int]], list[RunRecord]],
        missing: tuple[str, ...] | None = None,
    ) -> None:
        count = len(run_ids)
        columns = (
            case_ids,
            variant_ids,
            statuses,
            task_statuses,
            evaluation_statuses,
            durations,
            plain,
        )
        if any(len(column) != count for column in columns):
            raise ValueError("the columns of a run table differ in length")
        self.run_ids = run_ids
        self.case_ids = case_ids
        self.variant_ids = variant_ids
        self.statuses = statuses
        self.task_statuses = task_statuses
        self.evaluation_statuses = evaluation_statuses
        self.durations = durations
        self.plain = plain
        self._load = load
        self.missing = missing
        # The records built so far, by position: a report builds few (a list of a
        # reference per run was 8 MB at a million runs).
        self._built: dict[int, RunRecord] = {}

    def __len__(self) -> int:
        return len(self.run_ids)

    @overload
    def __getitem__(self, index: int) -> RunRecord: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[RunRecord, ...]: ...

    def __getitem__(self, index: int | slice) -> RunRecord | tuple[RunRecord, ...]:
        if isinstance(index, slice):
            return tuple(self.records(range(len(self))[index]))
        position = range(len(self))[index]  # raises IndexError as a tuple would
        return self.records([position])[0]

    def not_plain(self) -> list[int]:
        """The positions of the runs whose :data:`PlainRun` is ``None``: those a reader of
        anything besides plain metric values (diagnostics, accounting, cassette evidence)
        must read whole, in run order."""
        plain = self.plain
        if isinstance(plain, PlainRuns):
            return sorted(plain.whole)
        return [position for position, items in enumerate(plain) if items is None]

    def records(self, positions: Sequence[int]) -> list[RunRecord]:
        """The whole records at ``positions``, in that order (built on first access)."""
        built = self._built
        count = len(self)
        # negative positions as a list reads them, and IndexError out of range
        wanted = [position + count if position < 0 else position for position in positions]
        if any(not 0 <= position < count for position in wanted):
            raise IndexError("run position out of range")
        missing = [position for position in dict.fromkeys(wanted) if position not in built]
        if missing:
            for position, record in zip(missing, self._load(missing), strict=True):
                built[position] = record
        return [built[position] for position in wanted]

    def __iter__(self) -> Iterator[RunRecord]:
        for start in range(0, len(self), self.BATCH):
            yield from self.records(range(start, min(start + self.BATCH, len(self))))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RunTable | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RunTable(runs={len(self)})"


_CASSETTE_COUNTS = frozenset({"cassette.replayed", "cassette.sent"})
_CAUTIOUS = ("accounting", "cassette")
_EXACT = frozenset({type(None), bool, int, float, str})


def _cautious(tags: dict[str, str]) -> bool:
    """Whether a tag's key or value names accounting or cassettes (a cautious test: more
    than the tags the projection reads)."""
    return any(
        word in text for key, value in tags.items() for text in (key, value) for word in _CAUTIOUS
    )


def plain_run(run: RunRecord) -> PlainRun:
    """``run``'s :data:`PlainRun`, by the rules a columnar store applies to its rows: a
    metric observation or a score that produced a value, with a semantic type and a value
    that is ``None``, a boolean, a number or a text, is an item; a diagnostic, a cassette
    count, an observation with a tag key or value naming accounting or cassettes, an
    observation of another kind with a semantic type or a value of another type (a list,
    a mapping) makes it ``None``."""
    items: list[PlainItem] = []
    for o in run.observations:
        if o.kind is ObservationKind.DIAGNOSTIC or o.name in _CASSETTE_COUNTS:
            return None
        if o.tags and _cautious(o.tags):
            return None
        if o.semantic_type is None:
            continue
        if o.kind is not ObservationKind.METRIC or o.value.__class__ not in _EXACT:
            return None
        items.append(
            PlainItem(o.semantic_type, o.name, o.value, o.unit, o.role, o.direction, o.source)
        )
    for s in run.scores:
        if s.error is not None or s.semantic_type is None:
            continue
        if s.value.__class__ not in _EXACT:
            return None
        items.append(
            PlainItem(s.semantic_type, s.name, s.value, s.unit, s.role, s.direction, _SCORE)
        )
    return tuple(items)


_SCORE = ObservationSource.SCORE
