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
from dataclasses import dataclass
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
        self.by_variant: dict[str, array[int]] = {variant: array("q") for variant in self.variants}
        for index, variant_id in enumerate(self.variant_ids):
            self.by_variant[variant_id].append(index)

    def case_coding(self) -> CaseCoding:
        """The :class:`CaseCoding` of the runs (the run table's own codes when it has them);
        made once."""
        import numpy as np

        coding = self.memo.get("case_coding")
        if coding is None:
            cases = self.case_ids
            if not isinstance(cases, CodedColumn):
                cases = CodedColumn.of(cases)
            codes = np.frombuffer(cases.codes, dtype=np.dtype(f"i{cases.codes.itemsize}"))
            names = cases.names
            code_of = {name: code for code, name in enumerate(names)}
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
            result = MetricValues(semantic, unit, nothing)
            self._values[semantic] = result
            return result
        by_run: list[Any] = [None] * len(self.runs)
        for index, message in column.messages:
            self._diagnostics[f"run {self.run_ids[index]}: {message}"] = None
        positions, items = column.positions, column.items
        unit, converted, problems = common_unit(
            semantic,
            self.registry.unit_of(semantic),
            _Labels(self.run_ids, positions),
            list(map(_VALUE, items)),
            list(map(_UNIT, items)),
        )
        self.note(problems)
        if len(positions) == len(by_run):  # every run has one, in run order: 0, 1, 2, ...
            by_run = [None if _is_nan(value) else value for value in converted]
        else:
            for index, value in zip(positions, converted, strict=True):
                if value is not None and not _is_nan(value):
                    by_run[index] = value
        result = MetricValues(semantic, unit, tuple(by_run), _as_numbers(by_run))
        self._values[semantic] = result
        return result

    def status_counts(self, variant_id: str | None = None) -> StatusCounts:
        """Run counts per final status, of all runs or of one variant (as
        ``result.status_counts(variant_id)``)."""
        counted = self.memo.get("status_counts")
        if counted is None:
            counted = self.memo["status_counts"] = {None: dict.fromkeys(RunStatus, 0)}
            every = counted[None]
            for variant, status in zip(self.variant_ids, self.statuses, strict=True):
                counts = counted.get(variant)
                if counts is None:
                    counts = counted[variant] = dict.fromkeys(RunStatus, 0)
                counts[status] += 1
                every[status] += 1
        counts = counted.get(variant_id, dict.fromkeys(RunStatus, 0))
        return StatusCounts(**{status.value: count for status, count in counts.items()})

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
        distinct = {id(item): item for item in column.items}.values()
        return all(item.scored for item in distinct)


_VALUE = attrgetter("value")
_UNIT = attrgetter("unit")


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


def _ordered(declared: Sequence[str], seen: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys([*declared, *seen]))
