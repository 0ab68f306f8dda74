"""The metric table: every run's projected semantic metrics, in canonical units, computed once.

Every report view reads metric values through a :class:`MetricTable`, so the
observations of a run are projected once (records' projection, source
precedence: score, derived, task observation, imported) and the values of a
semantic type are converted to one unit once, however many views use them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from autobench.abp import AutobenchError
from autobench.records import (
    Direction,
    ExperimentResult,
    Observation,
    ObservationKind,
    ObservationRole,
    ProjectedMetric,
    RunRecord,
    Semantic,
    UnitValue,
    is_summary,
    project_observations,
    run_observations,
    to_common_unit,
)

_RECORDED_BEFORE_TOTALS = (
    "recorded before run totals: its additive evidence (tokens, requests, counts) is totalled "
    "now by the current rules, while what it derived (a token_cost) and its policy results "
    "are as recorded"
)


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


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


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

    ``runs`` are the result's runs in plan order; ``variants`` and ``cases``
    list ids in spec/plan order followed by ids only seen in runs.
    ``diagnostics`` collects the runs' own diagnostic observations, then the unit and
    ambiguity problems met so far (each once).
    """

    def __init__(self, result: ExperimentResult, *, leave_out_replayed: bool = False) -> None:
        self.result = result
        self.registry = result.registry
        self.runs: tuple[RunRecord, ...] = result.runs
        self.run_ids: tuple[str, ...] = tuple(run.run_id for run in self.runs)
        self.case_ids: tuple[str, ...] = tuple(run.case_id for run in self.runs)
        self.run_labels: tuple[str, ...] = tuple(f"run {run_id}" for run_id in self.run_ids)
        """``"run <id>"`` per run: how aggregates name a run's value in diagnostics."""
        observations = [
            without_replayed_spend(run_observations(run))
            if leave_out_replayed
            else run_observations(run)
            for run in self.runs
        ]
        # Policy results are named verdicts, one per policy, all of semantic type
        # ``policy.result``: they are kept apart (``policies``) instead of being projected
        # into one ambiguous metric.
        self._policy_types: dict[str, bool] = {}
        policies: list[dict[str, Observation]] = []
        projected: list[dict[str, ProjectedMetric]] = []
        for items in observations:
            verdicts, others = self._split_policies(items)
            policies.append(verdicts)
            projected.append(project_observations(others, self.registry))
        self.policies: tuple[dict[str, Observation], ...] = tuple(policies)
        self.projected: tuple[dict[str, ProjectedMetric], ...] = tuple(projected)
        self._values: dict[str, MetricValues] = {}
        self.memo: dict[str, Any] = {}
        """Results views compute once per table (for example the default columns)."""
        # What the runs themselves diagnosed (accounting conflicts, pricing problems, ...).
        self._diagnostics: dict[str, None] = {
            f"run {run_id}: {o.name}: {o.reason if o.reason else repr(o.value)}": None
            for run_id, items in zip(self.run_ids, observations, strict=True)
            for o in items
            if o.kind is ObservationKind.DIAGNOSTIC
        }
        for run in self.runs:
            if run.run.accounting is None and any(is_summary(o) for o in run.observations):
                self._diagnostics[f"run {run.run_id}: {_RECORDED_BEFORE_TOTALS}"] = None
        roles: dict[str, set[ObservationRole]] = {}
        directions: dict[str, set[Direction]] = {}
        measured: dict[str, list[int]] = {}
        for index, metrics in enumerate(self.projected):
            for semantic, metric in metrics.items():
                measured.setdefault(semantic, []).append(index)
                found = roles.setdefault(semantic, set())
                if metric.observation.role is not None:
                    found.add(metric.observation.role)
                if metric.observation.direction is not None:
                    directions.setdefault(semantic, set()).add(metric.observation.direction)
        self._measured = measured
        """The indices of the runs with a projected value of each semantic type."""
        self._roles = roles
        self._directions = directions
        self.semantic_types: tuple[str, ...] = tuple(roles)
        self.variants: tuple[str, ...] = _ordered(
            [variant.id for variant in result.experiment.benchmark.variants],
            [run.variant_id for run in self.runs],
        )
        self.cases: tuple[str, ...] = _ordered(
            [planned.case for planned in result.experiment.plan],
            self.case_ids,
        )
        self.by_variant: dict[str, list[int]] = {variant: [] for variant in self.variants}
        for index, run in enumerate(self.runs):
            self.by_variant[run.variant_id].append(index)

    def _split_policies(
        self, observations: Sequence[Observation]
    ) -> tuple[dict[str, Observation], list[Observation]]:
        """A run's policy results by name, and its other observations."""
        verdicts: dict[str, Observation] = {}
        others: list[Observation] = []
        for observation in observations:
            if self._is_policy(observation.semantic_type):
                verdicts[observation.name] = observation
            else:
                others.append(observation)
        return verdicts, others

    def _is_policy(self, semantic: str | None) -> bool:
        """Whether ``semantic`` is a policy result (asked of the registry once per type)."""
        if semantic is None:
            return False
        known = self._policy_types.get(semantic)
        if known is None:
            known = self._policy_types[semantic] = self.registry.is_a(
                semantic, Semantic.POLICY_RESULT
            )
        return known

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
        items: list[UnitValue] = []
        positions = self._measured.get(semantic, [])
        for index in positions:
            metric = self.projected[index][semantic]
            run_id = self.run_ids[index]
            if metric.note is not None:
                self._diagnostics[f"run {run_id}: {metric.note}"] = None
            if metric.ambiguous:
                self._diagnostics[
                    f"run {run_id}: {metric.semantic_type} has several values from one source; "
                    f"the first ({metric.observation.name!r}) is used"
                ] = None
            items.append(UnitValue(run_id, metric.value, metric.observation.unit))
        converted = to_common_unit(
            items, semantic_type=semantic, canonical_unit=self.registry.unit_of(semantic)
        )
        self.note(converted.diagnostics)
        by_run: list[Any] = [None] * len(self.runs)
        for index, item in zip(positions, items, strict=True):
            value = converted.values.get(item.label)
            by_run[index] = None if _is_nan(value) else value
        result = MetricValues(semantic, converted.unit, tuple(by_run))
        self._values[semantic] = result
        return result

    def roles(self, semantic_type: str) -> frozenset[ObservationRole]:
        """Roles the projected observations of ``semantic_type`` carry in any run."""
        return frozenset(self._roles.get(self.normalize(semantic_type), ()))

    def directions(self, semantic_type: str) -> frozenset[Direction]:
        """Optimisation directions the projected observations of ``semantic_type`` declare
        in any run (empty when none declares one; two when runs disagree)."""
        return frozenset(self._directions.get(self.normalize(semantic_type), ()))


def _ordered(declared: Sequence[str], seen: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys([*declared, *seen]))
