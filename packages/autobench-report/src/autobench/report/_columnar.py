"""Columnar projection: every run's projected metrics, gathered as one column per semantic type.

The result is the same as projecting each run with records'
:func:`~autobench.records.project_observations` (over :func:`~autobench.records.run_observations`,
policy results set apart), but a semantic type of a run with one candidate that needs no accounting
(the usual case: a few scores and task observations) is read straight from the run's
records: no observation is built for its scores and every registry lookup is made once per
type name. Any other semantic type of a run (several candidates, an additive type) is
projected by records' projection itself, over that type's candidates only (types are
projected independently of each other).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import attrgetter, is_not
from typing import TYPE_CHECKING, Any

from autobench.records import (
    ConvertedValues,
    Direction,
    Observation,
    ObservationKind,
    ObservationRole,
    ObservationSource,
    PlainItem,
    PlainRuns,
    ProjectedMetric,
    RunRecord,
    ScoreRecord,
    Semantic,
    SemanticRegistry,
    UnitValue,
    convert_unit,
    is_summary,
    project_observations,
    run_observations,
    score_observation,
    to_common_unit,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


@dataclass(frozen=True, slots=True)
class Chosen:
    """A run's projected value of a semantic type that records' projection chose (from an
    observation or a score): what a :class:`Column` keeps of it."""

    value: Any
    unit: str | None
    role: ObservationRole | None
    direction: Direction | None
    scored: bool


@dataclass(slots=True)
class Column:
    """The projected values of one semantic type, in run order: for each run that has one,
    its index (``positions``) and the item chosen (``items``: the run's
    :class:`~autobench.records.PlainItem` as it is, shared by every run that recorded the
    same row, else a :class:`Chosen`), so a run costs two references, not an entry of its
    own. ``messages`` are the per-run notes (pool totals that differ, ambiguous sources) in
    run order; :meth:`roles` and :meth:`directions` what the chosen values declare."""

    positions: array[int] = field(default_factory=lambda: array("q"))
    items: list[PlainItem | Chosen] = field(default_factory=list)
    messages: list[tuple[int, str]] = field(default_factory=list)
    _declared: tuple[frozenset[ObservationRole], frozenset[Direction]] | None = None
    _distinct: list[PlainItem | Chosen] | None = None

    def add(self, index: int, chosen: Observation | ScoreRecord | PlainItem) -> None:
        """Add run ``index``'s projected value, the one of ``chosen``."""
        if isinstance(chosen, PlainItem):
            item: PlainItem | Chosen = chosen
        else:
            scored = isinstance(chosen, ScoreRecord) or chosen.source is _SCORE
            item = Chosen(chosen.value, chosen.unit, chosen.role, chosen.direction, scored)
        self.positions.append(index)
        self.items.append(item)
        self._declared = self._distinct = None

    def add_plain(self, index: int, item: PlainItem) -> None:
        """Add run ``index``'s projected value, ``item``'s (as :meth:`add`)."""
        self.positions.append(index)
        self.items.append(item)
        self._declared = self._distinct = None

    def add_projected(self, index: int, metric: ProjectedMetric) -> None:
        """Add run ``index``'s projected value as records' projection chose it."""
        chosen = metric.observation
        self.add(index, chosen)
        if metric.note is not None:
            self.messages.append((index, metric.note))
        if metric.ambiguous:
            self.messages.append(
                (
                    index,
                    f"{metric.semantic_type} has several values from one source; "
                    f"the first ({chosen.name!r}) is used",
                )
            )

    def distinct(self) -> list[PlainItem | Chosen]:
        """The distinct item objects of the column (by identity; in no particular order)."""
        if self._distinct is None:
            self._distinct = distinct_objects(self.items)
        return self._distinct

    def _declarations(self) -> tuple[frozenset[ObservationRole], frozenset[Direction]]:
        if self._declared is None:
            distinct = self.distinct()
            roles = frozenset(item.role for item in distinct if item.role is not None)
            directions = frozenset(
                item.direction for item in distinct if item.direction is not None
            )
            self._declared = (roles, directions)
        return self._declared

    @property
    def roles(self) -> frozenset[ObservationRole]:
        """The roles the chosen values declare."""
        return self._declarations()[0]

    @property
    def directions(self) -> frozenset[Direction]:
        """The optimisation directions the chosen values declare."""
        return self._declarations()[1]


def distinct_objects(items: Sequence[Any]) -> list[Any]:
    """The distinct objects of ``items`` by identity, in no particular order: their ids
    numbered in numpy, where a dictionary took an insertion per item."""
    import numpy as np

    if len(items) < 64:
        return list(dict(zip(map(id, items), items, strict=True)).values())
    ids = np.fromiter(map(id, items), dtype=np.uint64, count=len(items))
    return [items[k] for k in np.unique(ids, return_index=True)[1].tolist()]


@dataclass(slots=True)
class Projection:
    """Every run's projected metrics by semantic type (``columns``, in order of first
    appearance), each run's policy results by name, and what the runs diagnosed (their
    diagnostic observations, then runs recorded before run totals), in run order."""

    columns: dict[str, Column]
    policies: list[dict[str, Observation]]
    observed: list[tuple[int, Observation]]
    """(run index, diagnostic observation) in run order."""
    before_totals: list[int]
    """Indices of the runs recorded before run totals existed."""


_METRIC = ObservationKind.METRIC
_DIAGNOSTIC = ObservationKind.DIAGNOSTIC
_SCORE = ObservationSource.SCORE
_CASSETTE_COUNTS = frozenset({"cassette.replayed", "cassette.sent"})


class _Types:
    """Registry lookups made once per semantic type name."""

    def __init__(self, registry: SemanticRegistry) -> None:
        self.registry = registry
        self.normalized: dict[str, str] = {}
        self.policy: dict[str, bool] = {}
        self.additive: dict[str, bool] = {}
        self.whole: dict[str, bool] = {}
        self.seen: dict[str, tuple[str, bool]] = {}

    def of(self, name: str) -> tuple[str, bool]:
        """``name`` normalised, and whether it is a policy result."""
        known = self.seen.get(name)
        if known is None:
            known = self.seen[name] = (self.normalize(name), self.is_policy(name))
        return known

    def normalize(self, name: str) -> str:
        known = self.normalized.get(name)
        if known is None:
            known = self.normalized[name] = self.registry.normalize(name)
        return known

    def is_policy(self, name: str | None) -> bool:
        if name is None:
            return False
        known = self.policy.get(name)
        if known is None:
            known = self.policy[name] = self.registry.is_a(name, Semantic.POLICY_RESULT)
        return known

    def surely_usable(self, semantic: str, value: Any) -> bool:
        """Whether a value of ``semantic`` in its own unit can certainly be part of a run
        total (records' ``usable``): a finite non-negative number, whole for an integer type.
        ``False`` leaves the decision to records' projection."""
        kind = value.__class__
        if kind is float:
            if not math.isfinite(value) or value < 0:
                return False
        elif kind is not int or value < 0:
            return False
        whole = self.whole.get(semantic)
        if whole is None:
            whole = self.whole[semantic] = self.registry.shape_of(semantic) == "integer"
        return not whole or float(value).is_integer()

    def is_additive(self, semantic: str) -> bool:
        known = self.additive.get(semantic)
        if known is None:
            known = self.additive[semantic] = self.registry.is_additive(semantic)
        return known


def _touches_cassettes(run: RunRecord) -> bool:
    """Whether ``without_replayed_spend`` could leave out anything of ``run``."""
    return any(o.name in _CASSETTE_COUNTS or "cassette" in o.tags for o in run.observations)


def project_runs(
    runs: Sequence[RunRecord],
    registry: SemanticRegistry,
    *,
    leave_out: Callable[[Sequence[Observation]], Sequence[Observation]] | None = None,
    plain: PlainRuns | None = None,
) -> Projection:
    """The :class:`Projection` of ``runs`` (see the module docstring). With ``leave_out``
    (``_metrics.without_replayed_spend``), a run that used cassettes is projected from
    ``leave_out(run_observations(run))``. ``plain`` (a :class:`~autobench.records.RunTable`'s,
    or :func:`~autobench.records.plain_run` of each run: the same values) gives runs' metric
    values without their records: such a run is projected from them
    (records' projection over observations built from them for a type with several
    candidates) unless a type is additive and has several candidates or one that needs the
    accounting rules, or a value is a policy result; then from ``runs[index]`` (so only
    those runs are built).

    Consecutive runs whose plain items have one shape (the same semantic types in the same
    order: :func:`_segments`) are projected together: when each type has one candidate
    that needs no accounting, a column takes the k-th item of every run of the segment as
    one strided slice of the flat items, without Python per run."""
    types = _Types(registry)
    columns: dict[str, Column] = {}
    policies: list[dict[str, Observation]] = []
    observed: list[tuple[int, Observation]] = []
    before_totals: list[int] = []
    shapes: dict[tuple[str, ...], tuple[Column, ...] | None] = {}  # see _project_plain
    if plain is None:
        plain = PlainRuns([], array("q", bytes(8 * len(runs))), frozenset(range(len(runs))))
    items, ends = plain.items, plain.ends

    def whole(index: int) -> None:
        run = runs[index]
        recorded = run.observations
        if run.run.accounting is None and any(is_summary(o) for o in recorded):
            before_totals.append(index)
        if leave_out is not None and _touches_cassettes(run):
            kept = leave_out(run_observations(run))
            observed.extend((index, o) for o in kept if o.kind is _DIAGNOSTIC)
            verdicts, groups = _grouped(kept, (), types, run)
        else:
            for o in recorded:
                if o.kind is _DIAGNOSTIC:
                    observed.append((index, o))
            verdicts, groups = _grouped(recorded, run.scores, types, run)
        policies.append(verdicts)
        for semantic, candidates in groups.items():
            column = columns.get(semantic)
            if column is None:
                column = columns[semantic] = Column()
            chosen = candidates[0]
            if len(candidates) == 1 and _plainly_projected(types, semantic, chosen):
                column.add(index, chosen)
                continue
            projected = project_observations(
                [_observation(candidate, run) for candidate in candidates], registry
            )
            column.add_projected(index, projected[semantic])

    for first, stop, read_whole in _segments(plain):
        if read_whole:
            for index in range(first, stop):
                whole(index)
            continue
        start, end = plain.span(first)
        shape = tuple(map(_SEMANTIC_TYPE, items[start:end]))
        simple = shapes.get(shape, _UNSEEN)
        if simple is _UNSEEN:
            simple = shapes[shape] = _simple_shape(shape, types, columns)
        if simple is not None:  # one candidate per type, none additive or a policy
            width, last = end - start, ends[stop - 1]
            for k, column in enumerate(simple):  # Column.add_plain of each run's k-th item
                column.positions.frombytes(_positions(first, stop))
                column.items.extend(items[start + k : last : width])
            policies.extend([_NO_POLICIES] * (stop - first))
            continue
        for index in range(first, stop):
            start, end = plain.span(index)
            if _project_plain(index, items[start:end], types, columns, shapes):
                policies.append(_NO_POLICIES)
            else:
                whole(index)
    return Projection(columns, policies, observed, before_totals)


def _positions(first: int, stop: int) -> bytes:
    """The positions ``first`` to ``stop - 1`` as the bytes of an ``array("q")``."""
    import numpy as np

    return np.arange(first, stop, dtype=np.int64).tobytes()


_SEMANTIC_TYPE = attrgetter("semantic_type")
_UNSEEN: Any = object()


def _segments(plain: PlainRuns) -> Iterator[tuple[int, int, bool]]:
    """``(first, stop, whole)`` for each stretch of consecutive runs of ``plain`` whose items
    have the same shape (semantic types, in order), or that are all read whole, in run
    order. Each run's shape is numbered in numpy: its items' types, numbered ``1..D``, as the
    digits of a number in base ``D + 1`` (one number per shape; ``0``: no items; ``-1``:
    read whole), or in Python per run when that number could pass 2**62."""
    import numpy as np

    count = len(plain)
    if count == 0:
        return
    if _one_shape(plain):
        yield 0, count, False
        return
    codes = _shape_codes(plain)
    bounds = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    first = 0
    for stop in [*bounds.tolist(), count]:
        yield first, stop, bool(codes[first] == -1)
        first = stop


def _one_shape(plain: PlainRuns) -> bool:
    """Whether every run of ``plain`` has the same shape and none is read whole: each has
    ``k`` items and the items at each of the ``k`` places have one semantic type (read a
    place at a time as a strided slice, in C)."""
    import numpy as np

    if plain.whole or not len(plain.ends):
        return False
    ends = np.frombuffer(plain.ends, dtype=np.int64)
    width = int(ends[0])
    if not bool((np.diff(ends, prepend=0) == width).all()):
        return False
    return all(
        len(set(map(_SEMANTIC_TYPE, plain.items[place::width]))) == 1 for place in range(width)
    )


def _shape_codes(plain: PlainRuns) -> npt.NDArray[np.int64]:
    import numpy as np

    # Any numbering of the types will do (a shape's number only has to differ from every
    # other shape's): each type numbered by a lookup in C, not a Python call per item.
    names = list(map(_SEMANTIC_TYPE, plain.items))
    kinds = {kind: number for number, kind in enumerate(set(names), 1)}
    if len(kinds) < 256:  # a byte per item: the quickest way from Python ints to numpy
        digits = np.frombuffer(bytes(map(kinds.__getitem__, names)), dtype=np.uint8)
        digits = digits.astype(np.int64)
    else:
        digits = np.fromiter(map(kinds.__getitem__, names), dtype=np.int64, count=len(names))
    del names
    ends = np.frombuffer(plain.ends, dtype=np.int64)
    starts = np.concatenate([np.zeros(1, dtype=np.int64), ends[:-1]])
    lengths = ends - starts
    longest = int(lengths.max()) if len(lengths) else 0
    base = len(kinds) + 1
    if longest and longest * math.log2(base) >= 62:
        # Too many items or types for one int64 per shape: numbered per run in Python.
        numbered: dict[tuple[str, ...], int] = {}
        codes = np.fromiter(
            (
                numbered.setdefault(
                    tuple(map(_SEMANTIC_TYPE, plain.items[start:end])), len(numbered)
                )
                for start, end in zip(starts.tolist(), ends.tolist(), strict=True)
            ),
            dtype=np.int64,
            count=len(plain),
        )
    else:
        rank = np.arange(len(digits), dtype=np.int64) - np.repeat(starts, lengths)
        weighted = digits * np.power(np.int64(base), rank)
        # Sums of consecutive items by differences of one running sum (wrapping in int64
        # is harmless: each difference is below 2**62).
        total = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(weighted)])
        codes = total[ends] - total[starts]
    if plain.whole:
        codes[np.fromiter(plain.whole, dtype=np.int64, count=len(plain.whole))] = -1
    return codes


def _project_plain(
    index: int,
    items: Sequence[PlainItem],
    types: _Types,
    columns: dict[str, Column],
    shapes: dict[tuple[str, ...], tuple[Column, ...] | None],
) -> bool:
    """Add run ``index``'s projected values from its plain ``items`` to ``columns``; ``False``
    (nothing added) when the run needs its whole record. ``shapes`` remembers, per tuple of
    semantic types met, the columns of a run whose items are each their type's value."""
    shape = tuple([item.semantic_type for item in items])
    if shape in shapes:
        simple = shapes[shape]
    else:
        simple = shapes[shape] = _simple_shape(shape, types, columns)
    if simple is not None:  # one candidate per type, none additive or a policy result
        for column, item in zip(simple, items, strict=True):
            column.positions.append(index)  # Column.add_plain, without a call per item
            column.items.append(item)
        return True
    groups = _plain_groups(items, types)
    if groups is None:
        return False
    for semantic, chosen in groups.items():
        target = columns.get(semantic)
        if target is None:
            target = columns[semantic] = Column()
        if isinstance(chosen, PlainItem):
            target.add(index, chosen)
        else:
            target.add_projected(index, chosen)
    return True


_NO_POLICIES: dict[str, Observation] = {}
"""The policy results of every run projected from its plain items: none (shared; never
changed)."""


def _simple_shape(
    shape: tuple[str, ...], types: _Types, columns: dict[str, Column]
) -> tuple[Column, ...] | None:
    """For runs whose plain items have the semantic types ``shape``: the column of each item
    when every type (normalised) has one item and is neither additive nor a policy result
    (so each item is its type's projected value, whatever its value), creating the columns
    in order of first appearance; ``None`` otherwise."""
    normalized = []
    for semantic in shape:
        name, policy = types.of(semantic)
        if policy or types.is_additive(name) or name in normalized:
            return None
        normalized.append(name)
    found = []
    for name in normalized:
        column = columns.get(name)
        if column is None:
            column = columns[name] = Column()
        found.append(column)
    return tuple(found)


def _plainly_projected(
    types: _Types, semantic: str, chosen: Observation | ScoreRecord | PlainItem
) -> bool:
    """Whether the one candidate of ``semantic`` in a run is its projected value as it is:
    a type that is not additive and not an accounting summary, or a value that is surely
    part of a run total."""
    summary = isinstance(chosen, Observation) and is_summary(chosen)
    return not (types.is_additive(semantic) or summary) or types.surely_usable(
        semantic, chosen.value
    )


def _plain_groups(
    items: Sequence[PlainItem], types: _Types
) -> dict[str, PlainItem | ProjectedMetric] | None:
    """The projected value of each semantic type (normalised) of a run's plain items, in
    order of first appearance: the item itself when it is the type's only candidate and
    needs no accounting, records' projection over the candidates' observations for a
    non-additive type with several; ``None`` when the run needs its whole record (a policy
    result, an additive type with several candidates or a value that needs the accounting
    rules)."""
    groups: dict[str, list[PlainItem]] = {}
    for item in items:
        normalized, policy = types.of(item.semantic_type)
        if policy:
            return None
        group = groups.get(normalized)
        if group is None:
            groups[normalized] = [item]
        else:
            group.append(item)
    projected: dict[str, PlainItem | ProjectedMetric] = {}
    for semantic, candidates in groups.items():
        chosen = candidates[0]
        if len(candidates) == 1:
            if not _plainly_projected(types, semantic, chosen):
                return None
            projected[semantic] = chosen
        elif types.is_additive(semantic):
            return None
        else:
            observations = [candidate.observation() for candidate in candidates]
            projected[semantic] = project_observations(observations, types.registry)[semantic]
    return projected


def _grouped(
    observations: Sequence[Observation],
    scores: Sequence[ScoreRecord],
    types: _Types,
    run: RunRecord,
) -> tuple[dict[str, Observation], dict[str, list[Observation | ScoreRecord]]]:
    """A run's policy results by name, and the candidates of each other semantic type
    (normalised): its metric observations, then the scores that produced a value."""
    verdicts: dict[str, Observation] = {}
    groups: dict[str, list[Observation | ScoreRecord]] = {}
    for o in observations:
        semantic = o.semantic_type
        if semantic is None:
            continue
        normalized, policy = types.of(semantic)
        if policy:
            verdicts[o.name] = o
        elif o.kind is _METRIC:
            group = groups.get(normalized)
            if group is None:
                groups[normalized] = [o]
            else:
                group.append(o)
    for score in scores:
        semantic = score.semantic_type
        if semantic is None or score.error is not None:
            continue
        normalized, policy = types.of(semantic)
        if policy:
            verdicts[score.name] = _observation(score, run)
            continue
        group = groups.get(normalized)
        if group is None:
            groups[normalized] = [score]
        else:
            group.append(score)
    return verdicts, groups


def _observation(item: Observation | ScoreRecord, run: RunRecord) -> Observation:
    if isinstance(item, Observation):
        return item
    return score_observation(item, case_id=run.case_id, variant_id=run.variant_id)


_TARGET = "\0target"
"""The label of the item that sets the target unit (never a run id)."""


def common_unit(
    semantic: str,
    canonical: str | None,
    labels: Sequence[str],
    values: Sequence[Any],
    units: Sequence[str | None],
) -> tuple[str | None, list[Any], tuple[str, ...]]:
    """The values of a column in one unit, as records'
    :func:`~autobench.records.to_common_unit` gives them, as a list parallel to ``values``
    (``None`` where a value was left out); the unit is ``canonical`` else the first unit
    recorded; and the diagnostics of the values left out. Values already in the target unit
    are taken as they are; each other unit is tried once, and numbers in it are converted
    with ``convert_unit`` (once per distinct value); the values of a unit that does not
    convert go through ``to_common_unit`` for its diagnostics."""
    target = canonical
    if target is None:  # the first unit recorded (found in C)
        target = next(compress(units, map(is_not, units, repeat(None))), None)
    out = list(values)
    if set(units) <= {None, target}:  # every value in the target unit, or without one
        return target, out, ()
    odd = [k for k, unit in enumerate(units) if unit is not None and unit != target]
    if not odd:
        return target, out, ()
    converts: dict[str, bool] = {}
    memo: dict[tuple[str, type, Any], Any] = {}
    refused: list[int] = []
    for k in odd:
        unit, value = units[k], values[k]
        if unit is None or target is None:  # never: odd units are set, and so is the target
            continue
        known = converts.get(unit)
        if known is None:
            known = converts[unit] = not _converted(
                [UnitValue("", 0, unit)], semantic, canonical, target
            ).diagnostics
        if not known:
            refused.append(k)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            key = (unit, value.__class__, value)
            found = memo.get(key, _MISSING)
            if found is _MISSING:
                found = memo[key] = convert_unit(value, unit, target)
            out[k] = found
    if not refused:
        return target, out, ()
    converted = _converted(
        [UnitValue(labels[k], values[k], units[k]) for k in refused], semantic, canonical, target
    )
    for k in refused:
        out[k] = converted.values.get(labels[k])
    return target, out, converted.diagnostics


_MISSING = object()


def _converted(
    items: list[UnitValue], semantic: str, canonical: str | None, target: str | None
) -> ConvertedValues:
    """``to_common_unit`` of ``items`` towards ``target``, the first unit recorded when
    there is no canonical one."""
    if canonical is None:
        items.insert(0, UnitValue(_TARGET, None, target))
    return to_common_unit(items, semantic_type=semantic, canonical_unit=canonical)
