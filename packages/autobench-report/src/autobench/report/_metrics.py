"""The metric table: every run's projected semantic metrics, in canonical units, computed once.

Every report view reads metric values through a :class:`MetricTable`, so the
observations of a run are projected once (records' projection, source
precedence: score, derived, task observation, imported) and the values of a
semantic type are converted to one unit once, however many views use them.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter
from typing import Any, cast

from autobench.abp import AutobenchError
from autobench.records import (
    CodedColumn,
    Direction,
    ExperimentResult,
    Observation,
    ObservationRole,
    PlainRuns,
    RunRecord,
    RunStatus,
    RunTable,
    StatusCounts,
    plain_run,
    plan_column,
)
from autobench.report._columnar import common_unit, project_runs

_RECORDED_BEFORE_TOTALS = (
    "recorded before run totals: its additive evidence (tokens, requests, counts) is totalled "
    "now by the current rules, while what it derived (a token_cost) and its policy results "
    "are as recorded"
)


@dataclass(frozen=True, slots=True)
class CaseCoding:
    """The runs' case ids as numbers: ``codes[i]`` is run ``i``'s case's number (a numpy
    int array), ``names[code]`` its id, ``code_of`` the number of an id."""

    names: Sequence[str]
    codes: Any
    code_of: Mapping[str, int]
    _looked_up: dict[int, tuple[tuple[str, ...], Any]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def codes_of(self, cases: Sequence[str]) -> Any:
        """The number of each of ``cases`` (a numpy int64 array; ``-1``: an id no run has),
        looked up in C; kept for a tuple of ids (the table's case order, asked by every
        view), so each is looked up once."""
        import numpy as np

        if isinstance(cases, tuple):
            found = self._looked_up.get(id(cases))
            if found is not None and found[0] is cases:
                return found[1]
        codes = np.fromiter(
            map(self.code_of.get, cases, repeat(-1)), dtype=np.int64, count=len(cases)
        )
        if isinstance(cases, tuple):
            if len(self._looked_up) >= 8:  # a few orders of cases are asked for, again and again
                del self._looked_up[next(iter(self._looked_up))]
            self._looked_up[id(cases)] = (cases, codes)  # the tuple is kept: its id stays its
        return codes


STATUSES: tuple[RunStatus, ...] = tuple(RunStatus)
"""The run statuses in the order :meth:`MetricTable.status_codes` numbers them."""


_STATUS_CODE = {status: code for code, status in enumerate(STATUSES)}


class UnknownVariantError(AutobenchError, ValueError):
    """A variant id that the experiment does not have; the message lists the known ids."""


@dataclass(frozen=True, slots=True)
class MetricValues:
    """The values of one semantic type: ``by_run[i]`` belongs to ``table.runs[i]`` and is
    ``None`` when that run has no usable value (absent, NaN, or in a unit that does not
    convert to ``unit``)."""

    semantic_type: str
    unit: str | None
    by_run: tuple[Any, ...]
    numbers: array[float] | None = None
    """``by_run`` as a float64 array (booleans as ``1.0``/``0.0``, NaN for a run without a
    value) when every value present is a boolean or a number finite as a float; ``None``
    otherwise. 8 bytes a run, where a tuple of floats took 40."""
    kinds: frozenset[type] | None = None
    """The classes of the values present (``None`` left out), so a view can tell "every
    value is a boolean" or "some value is a number" without reading each run; ``None``:
    not known (read ``by_run``)."""


REPLAYED_SPEND = ("llm.", "money.")
"""Semantic families a replayed run did not spend: its model calls' tokens and cost are
those of the recorded calls."""


def without_replayed_spend(observations: Sequence[Observation]) -> tuple[Observation, ...]:
    """``observations`` of a run, without its ``llm.*`` and ``money.*`` evidence when every
    request of the run was answered from a cassette (a ``cassette.replayed`` count above 0
    and no ``cassette.sent`` above 0), and without its ``judge.*`` spend when every judge
    request was (the judges' ``cassette: replayed`` counts above 0, no ``cassette: sent``
    above 0); a run that sent any request keeps that evidence."""
    counts = {o.name: o.value for o in observations if o.name in _CASSETTE_COUNTS}
    replayed, sent = counts.get("cassette.replayed"), counts.get("cassette.sent")
    families: tuple[str, ...] = ()
    if isinstance(replayed, int) and replayed > 0 and not (isinstance(sent, int) and sent > 0):
        families += REPLAYED_SPEND
    judged = {"replayed": 0, "sent": 0}
    for o in observations:
        which = o.tags.get("cassette")
        if o.tags.get("scope") == "judge" and which in judged and isinstance(o.value, int):
            judged[which] += o.value
    if judged["replayed"] > 0 and judged["sent"] == 0:
        families += (JUDGE_SPEND,)
    if not families:
        return tuple(observations)
    return tuple(
        o
        for o in observations
        if "cassette" in o.tags or not (o.semantic_type or o.name).startswith(families)
    )


JUDGE_SPEND = "judge."
"""The semantic family of a judge's tokens, requests and cost."""


_CASSETTE_COUNTS = frozenset({"cassette.replayed", "cassette.sent"})


class MetricTable:
    """Projected metrics of every run of ``result``, with the lookups the views share.

    With ``leave_out_replayed``, the runs whose every request was answered from a cassette
    have no ``llm.*`` or ``money.*`` values (:func:`without_replayed_spend`).

    ``runs`` are the result's runs in plan order (a :class:`~autobench.records.RunTable`
    from a columnar store: views read its columns, and build a whole run only for what
    they show of it); ``variants`` and ``cases``
    list ids in spec/plan order followed by ids only seen in runs.
    ``diagnostics`` collects the runs' own diagnostic observations, then the unit and
    ambiguity problems met so far (each once).
    """

    def __init__(self, result: ExperimentResult, *, leave_out_replayed: bool = False) -> None:
        self.result = result
        self.registry = result.registry
        self.runs: Sequence[RunRecord] = result.runs
        runs = self.runs
        if isinstance(runs, RunTable):
            self.run_ids: Sequence[str] = runs.run_ids
            self.case_ids: Sequence[str] = runs.case_ids
            self.variant_ids: Sequence[str] = runs.variant_ids
            self.statuses: Sequence[RunStatus] = runs.statuses
            self.task_statuses: Sequence[str] = runs.task_statuses
            self.evaluation_statuses: Sequence[str] = runs.evaluation_statuses
            held = runs.plain
            plain = held if isinstance(held, PlainRuns) else PlainRuns.of(held)
            # The runs the columns do not hold plainly are read whole: in one batch.
            runs.records(sorted(plain.whole))
        else:
            infos = [run.run for run in runs]
            self.run_ids = tuple(info.id for info in infos)
            self.case_ids = tuple(info.case for info in infos)
            self.variant_ids = tuple(info.variant for info in infos)
            self.statuses = tuple(info.status for info in infos)
            self.task_statuses = tuple(info.outcome.task.value for info in infos)
            self.evaluation_statuses = tuple(info.outcome.evaluation.value for info in infos)
            # The same input a run table gives: one projection path for both.
            plain = PlainRuns.of(plain_run(run) for run in runs)
        """Each run's ids and statuses, in run order (the columns of a
        :class:`~autobench.records.RunTable`, else read from the records)."""
        self.run_labels: Sequence[str] = _RunLabels(self.run_ids)
        """``"run <id>"`` per run: how aggregates name a run's value in diagnostics (made
        when read: only a diagnostic reads one)."""
        projection = project_runs(
            self.runs,
            self.registry,
            leave_out=without_replayed_spend if leave_out_replayed else None,
            plain=plain,
        )
        # Policy results are named verdicts, one per policy, all of semantic type
        # ``policy.result``: they are kept apart (``policies``) instead of being projected
        # into one ambiguous metric.
        self.policies: tuple[dict[str, Observation], ...] = tuple(projection.policies)
        self._columns = projection.columns
        self._values: dict[str, MetricValues] = {}
        self.memo: dict[str, Any] = {}
        """Results views compute once per table (for example the default columns)."""
        # What the runs themselves diagnosed (accounting conflicts, pricing problems, ...).
        self._diagnostics: dict[str, None] = {
            f"run {self.run_ids[index]}: {o.name}: {o.reason if o.reason else repr(o.value)}": None
            for index, o in projection.observed
        }
        for index in projection.before_totals:
            self._diagnostics[f"run {self.run_ids[index]}: {_RECORDED_BEFORE_TOTALS}"] = None
        self.semantic_types: tuple[str, ...] = tuple(self._columns)
        self.variants: tuple[str, ...] = _ordered(
            [variant.id for variant in result.experiment.benchmark.variants],
            self.variant_ids,
        )
        self.cases: tuple[str, ...] = _ordered(
            plan_column(result.experiment.plan, "case"),  # type: ignore[arg-type]
            self.case_ids,
        )
        # Each variant's run indices as an ``array``: 8 bytes a run, where a list held a
        # reference and an int object (36 bytes) per run.
        self.by_variant: dict[str, array[int]] = _by_variant(self, self.variants)

    def case_coding(self) -> CaseCoding:
        """The :class:`CaseCoding` of the runs (the run table's own codes when it has them);
        made once."""
        coding = self.memo.get("case_coding")
        if coding is None:
            names, codes = _numbered(self.case_ids)
            code_of = dict(zip(names, range(len(names)), strict=True))
            coding = self.memo["case_coding"] = CaseCoding(names, codes, code_of)
        return cast(CaseCoding, coding)

    @property
    def diagnostics(self) -> tuple[str, ...]:
        return tuple(self._diagnostics)

    def note(self, diagnostics: Sequence[str]) -> None:
        """Add diagnostics (duplicates are kept once)."""
        self._diagnostics.update(dict.fromkeys(diagnostics))

    def check_variant(self, variant_id: str) -> None:
        """Raise :class:`UnknownVariantError` unless the experiment has ``variant_id``."""
        if variant_id not in self.by_variant:
            known = ", ".join(self.variants) or "none"
            raise UnknownVariantError(
                f"unknown variant {variant_id!r}; variants of experiment "
                f"{self.result.experiment_id!r}: {known}"
            )

    def normalize(self, semantic_type: str) -> str:
        return self.registry.normalize(semantic_type)

    def values(self, semantic_type: str) -> MetricValues:
        """The values of exactly ``semantic_type`` (aliases normalised) for every run, in one
        unit. Child types are never substituted: a run without the type has no value, so an
        aggregate's ``n`` says how many runs really measured it.
        """
        semantic = self.normalize(semantic_type)
        cached = self._values.get(semantic)
        if cached is not None:
            return cached
        column = self._columns.get(semantic)
        if column is None:
            unit = self.registry.unit_of(semantic)
            # Every type no run has shares one tuple of ``None`` (a million runs: 8 MB
            # each, and views ask for several).
            nothing = self.memo.get("no_values")
            if nothing is None:
                nothing = self.memo["no_values"] = (None,) * len(self.runs)
            result = MetricValues(semantic, unit, nothing, None, frozenset())
            self._values[semantic] = result
            return result
        for index, message in column.messages:
            self._diagnostics[f"run {self.run_ids[index]}: {message}"] = None
        positions, items = column.positions, column.items
        canonical = self.registry.unit_of(semantic)
        distinct = column.distinct()
        named = {item.unit for item in distinct} - {None}
        known: set[type] | None = None
        if len(named) <= 1 and (canonical is None or named <= {canonical}):
            # Every value in the one unit (or none): as common_unit gives them, without
            # reading each item's unit; the classes present from the distinct items.
            unit = canonical if canonical is not None else next(iter(named), None)
            converted = list(map(_VALUE, items))
            known = {type(item.value) for item in distinct}
        else:
            unit, converted, problems = common_unit(
                semantic,
                canonical,
                _Labels(self.run_ids, positions),
                list(map(_VALUE, items)),
                list(map(_UNIT, items)),
            )
            self.note(problems)
        by_run, numbers, kinds = _held(len(self.runs), positions, converted, known)
        result = MetricValues(semantic, unit, by_run, numbers, kinds)
        self._values[semantic] = result
        return result

    def status_codes(self) -> Any:
        """Each run's status as its position in :data:`STATUSES` (a numpy int8 array; ``-1``
        for a status that is none of them); made once, looked up in C."""
        import numpy as np

        codes = self.memo.get("status_codes")
        if codes is None:
            codes = self.memo["status_codes"] = np.fromiter(
                map(_STATUS_CODE.get, self.statuses, repeat(-1)),
                dtype=np.int8,
                count=len(self.runs),
            )
        return codes

    def variant_codes(self) -> tuple[tuple[str, ...], Any]:
        """The distinct variant ids of the runs (in the order of :attr:`variant_ids`' codes)
        and each run's number among them (a numpy int array); made once."""
        coded = self.memo.get("variant_codes")
        if coded is None:
            names, codes = _numbered(self.variant_ids)
            coded = self.memo["variant_codes"] = (tuple(names), codes)
        return cast(tuple[tuple[str, ...], Any], coded)

    def status_counts(self, variant_id: str | None = None) -> StatusCounts:
        """Run counts per final status, of all runs or of one variant (as
        ``result.status_counts(variant_id)``)."""
        counted = self.memo.get("status_counts")
        if counted is None:
            counted = self.memo["status_counts"] = self._status_counts()
        counts = counted.get(variant_id, dict.fromkeys(RunStatus, 0))
        return StatusCounts(**{status.value: count for status, count in counts.items()})

    def _status_counts(self) -> dict[str | None, dict[RunStatus, int]]:
        import numpy as np

        codes = self.status_codes()
        counted: dict[str | None, dict[RunStatus, int]] = {None: dict.fromkeys(RunStatus, 0)}
        if bool((codes < 0).any()):  # a status that is not a RunStatus: counted as before
            every = counted[None]
            for variant, status in zip(self.variant_ids, self.statuses, strict=True):
                counts = counted.get(variant)
                if counts is None:
                    counts = counted[variant] = dict.fromkeys(RunStatus, 0)
                counts[status] += 1
                every[status] += 1
            return counted
        names, variant_of = self.variant_codes()
        width = len(STATUSES)
        joint = np.bincount(
            variant_of.astype(np.int64) * width + codes, minlength=len(names) * width
        ).reshape(len(names), width)
        # In order of each variant's first run, as counting run by run made them.
        seen = np.unique(variant_of, return_index=True)
        for code in seen[0][np.argsort(seen[1], kind="stable")].tolist():
            counted[names[code]] = dict(zip(STATUSES, joint[code].tolist(), strict=True))
        for status, count in zip(STATUSES, joint.sum(axis=0).tolist(), strict=True):
            counted[None][status] = count
        return counted

    def roles(self, semantic_type: str) -> frozenset[ObservationRole]:
        """Roles the projected observations of ``semantic_type`` carry in any run."""
        column = self._columns.get(self.normalize(semantic_type))
        return frozenset(() if column is None else column.roles)

    def directions(self, semantic_type: str) -> frozenset[Direction]:
        """Optimisation directions the projected observations of ``semantic_type`` declare
        in any run (empty when none declares one; two when runs disagree)."""
        column = self._columns.get(self.normalize(semantic_type))
        return frozenset(() if column is None else column.directions)

    def scored(self, semantic_type: str) -> frozenset[int]:
        """The indices of the runs whose value of ``semantic_type`` is a score's."""
        column = self._columns.get(self.normalize(semantic_type))
        if column is None:
            return frozenset()
        return frozenset(
            index for index, item in zip(column.positions, column.items, strict=True) if item.scored
        )

    def all_scored(self, semantic_type: str) -> bool:
        """Whether every run's value of ``semantic_type`` (there may be none) is a score's:
        :meth:`scored` holds every run that has one."""
        column = self._columns.get(self.normalize(semantic_type))
        if column is None:
            return True
        return all(item.scored for item in column.distinct())


_VALUE = attrgetter("value")
_UNIT = attrgetter("unit")


def _numbered(column: Sequence[str]) -> tuple[Sequence[str], Any]:
    """The distinct values of ``column`` and each run's number among them (a numpy int
    array over the :class:`CodedColumn`'s codes; a plain column is coded first)."""
    import numpy as np

    coded = column if isinstance(column, CodedColumn) else CodedColumn.of(column)
    return coded.names, np.frombuffer(coded.codes, dtype=np.dtype(f"i{coded.codes.itemsize}"))


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


class _RunLabels(Sequence[str]):
    """``"run <id>"`` of each of ``run_ids``."""

    def __init__(self, run_ids: Sequence[str]) -> None:
        self.run_ids = run_ids

    def __len__(self) -> int:
        return len(self.run_ids)

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            return [f"run {run_id}" for run_id in self.run_ids[k]]
        return f"run {self.run_ids[k]}"


class _Labels(Sequence[str]):
    """The run id of each entry of a column (read only for the values a diagnostic names)."""

    def __init__(self, run_ids: Sequence[str], positions: Sequence[int]) -> None:
        self.run_ids = run_ids
        self.positions = positions

    def __len__(self) -> int:
        return len(self.positions)

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            return [self.run_ids[p] for p in self.positions[k]]
        return self.run_ids[self.positions[k]]


def _held(
    count: int, positions: array[int], converted: list[Any], known: set[type] | None = None
) -> tuple[tuple[Any, ...], array[float] | None, frozenset[type]]:
    """A column's values (``converted[k]`` is run ``positions[k]``'s; positions ascending)
    as :class:`MetricValues` holds them: by run (``None`` where a run has no value or a
    NaN), as float64 numbers when every value present is a boolean or a number finite as a
    float (``None`` as NaN, booleans as ``1.0``/``0.0``), and the classes present. The
    checks and conversions run over whole lists in C (``map``, numpy), not per run in
    Python; numbers are converted by numpy as ``float()`` converts them. ``known``: the
    classes of ``converted`` when the caller knows them."""
    import numpy as np

    kinds = set(map(type, converted)) if known is None else set(known)
    kinds.discard(type(None))
    full = len(positions) == count
    place = np.frombuffer(positions, dtype=np.int64) if len(positions) else None
    if not full and place is not None and not bool((np.diff(place) > 0).all()):
        return _held_per_run(count, positions, converted)
    if full:
        by_run = converted  # every run has one, in run order: 0, 1, 2, ...
    else:
        by_run = [None] * count
        for _ in map(by_run.__setitem__, positions, converted):
            pass
    numeric = kinds <= _NUMERIC_KINDS
    flat = None
    if numeric:
        try:
            flat = np.array(converted, dtype=np.float64)
        except OverflowError:  # an integer too large for a float
            flat = None
    if flat is not None:
        nan = np.isnan(flat)
        if bool(nan.any()):  # None and NaN values: no value
            for index in (place[nan] if place is not None else np.flatnonzero(nan)).tolist():
                by_run[index] = None
            if float in kinds:
                kinds = set(map(type, by_run))
                kinds.discard(type(None))
        numbers: array[float] | None = None
        if bool(np.isfinite(flat[~nan]).all()):
            if full:
                spread = flat
            else:
                spread = np.full(count, np.nan)
                if place is not None:
                    spread[place] = flat
            numbers = array("d")
            numbers.frombytes(spread.tobytes())
        return tuple(by_run), numbers, frozenset(kinds)
    if any(issubclass(kind, float) for kind in kinds):  # NaN possible among other values
        return _held_per_run(count, positions, converted)
    return tuple(by_run), (_as_numbers(by_run) if numeric else None), frozenset(kinds)


def _held_per_run(
    count: int, positions: Sequence[int], converted: Sequence[Any]
) -> tuple[tuple[Any, ...], array[float] | None, frozenset[type]]:
    """:func:`_held`, run by run (for positions out of order, or NaN among values of
    other kinds)."""
    by_run: list[Any] = [None] * count
    for index, value in zip(positions, converted, strict=True):
        if value is not None and not _is_nan(value):
            by_run[index] = value
    kinds = set(map(type, by_run))
    kinds.discard(type(None))
    return tuple(by_run), _as_numbers(by_run), frozenset(kinds)


_NUMERIC_KINDS = frozenset({bool, int, float})


def _as_numbers(values: Sequence[Any]) -> array[float] | None:
    """``values`` as a float64 array when each is ``None``, a boolean or a number finite as
    a float (``None`` as NaN, which no such number is; booleans as ``1.0``/``0.0``)."""
    numbers = array("d")
    append = numbers.append
    for value in values:
        if value is None:
            append(_NAN)
            continue
        if value.__class__ not in _NUMERIC:
            return None
        try:
            number = float(value)
        except OverflowError:
            return None
        if not math.isfinite(number):
            return None
        append(number)
    return numbers


_NAN = math.nan
_NUMERIC = (bool, int, float)


def _by_variant(table: MetricTable, variants: Sequence[str]) -> dict[str, array[int]]:
    """Each of ``variants``' run indices (ascending), grouped in numpy by the variant codes."""
    import numpy as np

    names, codes = table.variant_codes()
    order = np.argsort(codes, kind="stable").astype(np.int64)
    ends = np.cumsum(np.bincount(codes, minlength=len(names)))
    found = {}
    for code, name in enumerate(names):
        runs = array("q")
        runs.frombytes(order[(ends[code - 1] if code else 0) : ends[code]].tobytes())
        found[name] = runs
    return {variant: found.get(variant, array("q")) for variant in variants}


def _ordered(declared: Sequence[str], seen: Sequence[str]) -> tuple[str, ...]:
    """The ids of ``declared``, then those only in ``seen``, each once, in order of first
    appearance."""
    ordered = dict.fromkeys(declared)
    # A coded column's distinct values: usually all declared already.
    if isinstance(seen, CodedColumn) and all(map(ordered.__contains__, seen.names)):
        return tuple(ordered)
    ordered.update(dict.fromkeys(seen))
    return tuple(ordered)
