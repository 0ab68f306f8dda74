"""Models of the ``paired_baseline`` post-deriver: matching, formulas, thresholds, verdicts.

YAML (DSL and structured form alike)::

    post_derive:
      - kind: paired_baseline
        baseline_variant: baseline
        match_on: [{kind: case_id}, {kind: factor, name: workload.size}]
        metric: time.latency
        formula: baseline_over_candidate
        include_baseline: false
        missing: diagnostic              # or skip
        zero_division: diagnostic        # or skip
        diagnostics_name: paired_baseline_unavailable
        metric_direction: minimize       # optional; see ComparisonVerdict
        output: {name: speedup, semantic_type: performance.speedup, unit: ratio,
                 direction: maximize, role: objective}
        threshold: {kind: relative_noise, pct: 2.0}
        verdict:
          output: {name: latency_verdict, semantic_type: comparison.verdict}
          threshold: {kind: relative_noise, pct: 2.0}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from autobench.core._derived_output import DerivedMetricOutput
from autobench.core._projected import projected_metric, value_in_unit
from autobench.core.postderive._base import PostDeriverSpec
from autobench.core.postderive._formulas import (
    DIFFERENCE_FORMULAS,
    PairedFormula,
    apply_formula,
    default_unit,
    verdict,
)
from autobench.core.postderive._matching import RunMatchKey, describe_key, match_key
from autobench.records import (
    Direction,
    Observation,
    ObservationKind,
    ObservationRole,
    ObservationSource,
    RunRecord,
    Semantic,
    SemanticRegistry,
    SemanticType,
    UnitConversionError,
    convert_unit,
    run_observations,
)

MissingPolicy = Literal["diagnostic", "skip"]

UNAVAILABLE = "paired_baseline_unavailable"
"""Default name of the diagnostic observation written when no value can be derived."""

VERDICT_SEMANTIC = "comparison.verdict"
"""Default semantic type of verdict observations."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class RelativeNoiseThreshold(_Frozen):
    """``{kind: relative_noise, pct}``: relative changes within ``pct`` percent of the
    baseline value count as noise (``unchanged``). ``pct >= 0``."""

    kind: Literal["relative_noise"] = "relative_noise"
    pct: float = Field(ge=0)


class ComparisonVerdictSpec(_Frozen):
    """Emit a :class:`~autobench.core.postderive._formulas.ComparisonVerdict` per paired run as the observation ``output``
    (a string value; default role diagnostic, semantic ``comparison.verdict``).
    ``threshold`` defaults to the deriver's, else a band of 0 %."""

    output: DerivedMetricOutput
    threshold: RelativeNoiseThreshold | None = None


class PairedBaselineDeriverSpec(PostDeriverSpec):
    """Compare each run with the baseline variant's run of the same match key.

    For every run of another variant (and of the baseline itself with
    ``include_baseline``, paired with itself: speedup ``1.0``, delta ``0``),
    the projected ``metric`` of the run (``c``) and of its baseline run
    (``b``) are brought to one unit (the metric's canonical unit, else the
    baseline's) and combined by ``formula`` (:data:`~autobench.core.postderive._formulas.PairedFormula`) into the
    observation ``output`` (unit: ``ratio`` for ratios, ``percent`` for
    percent change, the metric's unit for differences, converted to
    ``output.unit`` when set). Every observation is tagged with
    ``baseline_run`` and ``formula``.

    When no value can be derived (no baseline run with the same key, a
    metric missing on either side, a value that is not a number, units that
    do not convert) the run gets a diagnostic observation named
    ``diagnostics_name`` whose value is the reason (``no_baseline_match``,
    ``missing_metric``, ``not_a_number``, ``unit_mismatch``), unless
    ``missing`` is ``skip``. A zero denominator is handled by
    ``zero_division`` the same way (reason ``zero_division``).

    With ``verdict`` (or a ``threshold`` alone, which emits
    ``<output.name>_verdict``) a ``ComparisonVerdict`` observation (rules: :func:`~autobench.core.postderive._formulas.verdict`) is
    added; the metric's direction is ``metric_direction``, else the
    direction recorded on the metric observations, else ``minimize`` for
    ``time.latency`` and ``money.cost`` (and their descendants).

    Raises ``ValueError`` for an empty ``match_on``.
    """

    model_config = ConfigDict(defer_build=True)

    kind: Literal["paired_baseline"] = "paired_baseline"
    baseline_variant: str = Field(min_length=1)
    match_on: tuple[RunMatchKey, ...] = (RunMatchKey(kind="case_id"),)
    metric: SemanticType = Field(min_length=1)
    formula: PairedFormula = "baseline_over_candidate"
    include_baseline: bool = False
    missing: MissingPolicy = "diagnostic"
    zero_division: MissingPolicy = "diagnostic"
    diagnostics_name: str = Field(default=UNAVAILABLE, min_length=1)
    metric_direction: Direction | None = None
    output: DerivedMetricOutput
    threshold: RelativeNoiseThreshold | None = None
    verdict: ComparisonVerdictSpec | None = None

    @model_validator(mode="after")
    def _keys(self) -> PairedBaselineDeriverSpec:
        if not self.match_on:
            raise ValueError("match_on needs at least one key")
        return self

    @property
    def verdict_spec(self) -> ComparisonVerdictSpec | None:
        """The verdict to emit: ``verdict``, or a default one when only ``threshold`` is set."""
        if self.verdict is not None:
            return self.verdict
        if self.threshold is None:
            return None
        return ComparisonVerdictSpec(
            output=DerivedMetricOutput(
                name=f"{self.output.name}_verdict",
                semantic_type=VERDICT_SEMANTIC,
                role=ObservationRole.DIAGNOSTIC,
            )
        )

    def output_semantic_types(self) -> tuple[str, ...]:
        spec = self.verdict_spec
        return (self.output.semantic_type,) + (() if spec is None else (spec.output.semantic_type,))

    def output_names(self) -> tuple[str, ...]:
        spec = self.verdict_spec
        return (self.output.name,) + (() if spec is None else (spec.output.name,))

    def derive(
        self, runs: Sequence[RunRecord], registry: SemanticRegistry
    ) -> Mapping[str, Sequence[Observation]]:
        """Paired observations (and diagnostics) keyed by run id; see the class docstring."""
        baselines: dict[tuple[str, ...], RunRecord] = {}
        for run in runs:
            if run.variant_id == self.baseline_variant:
                key = match_key(run, self.match_on)
                if key is not None:
                    baselines.setdefault(key, run)
        derived: dict[str, Sequence[Observation]] = {}
        for run in runs:
            if run.variant_id == self.baseline_variant:
                if not self.include_baseline:
                    continue
                baseline: RunRecord | None = run
            else:
                key = match_key(run, self.match_on)
                baseline = None if key is None else baselines.get(key)
            observations = _pair(self, run, baseline, registry)
            if observations:
                derived[run.run_id] = observations
        return derived


class _Unavailable(Exception):
    """No value can be derived for a run: ``code`` is the diagnostic's value."""

    def __init__(self, code: str, message: str, *, zero_division: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.zero_division = zero_division


def _pair(
    spec: PairedBaselineDeriverSpec,
    run: RunRecord,
    baseline: RunRecord | None,
    registry: SemanticRegistry,
) -> tuple[Observation, ...]:
    try:
        return _derive_pair(spec, run, baseline, registry)
    except _Unavailable as gap:
        handling = spec.zero_division if gap.zero_division else spec.missing
        if handling == "skip":
            return ()
        return (
            Observation(
                id=f"post.{spec.output.name}.unavailable",
                name=spec.diagnostics_name,
                kind=ObservationKind.DIAGNOSTIC,
                value=gap.code,
                source=ObservationSource.DERIVED,
                reason=str(gap),
                tags={"post_deriver": spec.kind, "output": spec.output.name},
                case_id=run.case_id,
                variant_id=run.variant_id,
            ),
        )


def _metric(
    spec: PairedBaselineDeriverSpec, run: RunRecord, registry: SemanticRegistry, side: str
) -> Observation:
    found = projected_metric(run_observations(run), spec.metric, registry)
    if found is None or found.value is None:
        raise _Unavailable("missing_metric", f"{side} run {run.run_id} has no {spec.metric} value")
    value = found.value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Unavailable(
            "not_a_number", f"{side} run {run.run_id}: {spec.metric} = {value!r} is not a number"
        )
    return found


def _derive_pair(
    spec: PairedBaselineDeriverSpec,
    run: RunRecord,
    baseline_run: RunRecord | None,
    registry: SemanticRegistry,
) -> tuple[Observation, ...]:
    if baseline_run is None:
        raise _Unavailable(
            "no_baseline_match",
            f"no run of baseline variant {spec.baseline_variant!r} matches "
            f"{describe_key(run, spec.match_on)}",
        )
    candidate_obs = _metric(spec, run, registry, "candidate")
    baseline_obs = _metric(spec, baseline_run, registry, "baseline")
    unit = registry.unit_of(spec.metric) or baseline_obs.unit or candidate_obs.unit
    try:
        baseline = float(value_in_unit(baseline_obs, unit, registry))
        candidate = float(value_in_unit(candidate_obs, unit, registry))
    except UnitConversionError as exc:
        raise _Unavailable("unit_mismatch", f"{spec.metric}: {exc}") from None
    try:
        value = apply_formula(spec.formula, baseline, candidate)
    except ZeroDivisionError:
        raise _Unavailable(
            "zero_division",
            f"{spec.formula} divides by zero (baseline {baseline}, candidate {candidate})",
            zero_division=True,
        ) from None
    out_unit = default_unit(spec.formula, unit)
    if spec.output.unit is not None:
        if spec.formula in DIFFERENCE_FORMULAS and out_unit is not None:
            try:
                value = convert_unit(value, out_unit, spec.output.unit)
            except UnitConversionError as exc:
                raise _Unavailable("unit_mismatch", f"{spec.output.name}: {exc}") from None
        out_unit = spec.output.unit
    shown = f" {unit}" if unit else ""
    tags = {"baseline_run": baseline_run.run_id, "formula": spec.formula}
    observations = [
        Observation(
            id=f"post.{spec.output.name}",
            name=spec.output.name,
            value=value,
            unit=out_unit,
            semantic_type=spec.output.semantic_type,
            direction=spec.output.direction,
            role=spec.output.role,
            source=ObservationSource.DERIVED,
            reason=f"{spec.formula}: baseline {baseline:g}{shown}, candidate {candidate:g}{shown}",
            tags=tags,
            case_id=run.case_id,
            variant_id=run.variant_id,
        )
    ]
    judged = spec.verdict_spec
    if judged is not None:
        threshold = judged.threshold or spec.threshold
        pct = 0.0 if threshold is None else threshold.pct
        direction = (
            spec.metric_direction
            or candidate_obs.direction
            or baseline_obs.direction
            or default_direction(spec.metric, registry)
        )
        outcome = verdict(baseline, candidate, direction, pct)
        observations.append(
            Observation(
                id=f"post.{judged.output.name}",
                name=judged.output.name,
                value=outcome.value,
                unit=judged.output.unit,
                semantic_type=judged.output.semantic_type,
                direction=judged.output.direction,
                role=(
                    judged.output.role
                    if "role" in judged.output.model_fields_set
                    else ObservationRole.DIAGNOSTIC
                ),
                source=ObservationSource.DERIVED,
                reason=(
                    f"{spec.metric} {'unknown direction' if direction is None else direction.value}, "
                    f"noise {pct:g}%: baseline {baseline:g}{shown}, candidate {candidate:g}{shown}"
                ),
                tags=tags,
                case_id=run.case_id,
                variant_id=run.variant_id,
            )
        )
    return tuple(observations)


_MINIMIZED = (Semantic.TIME_LATENCY, Semantic.MONEY_COST)


def default_direction(metric: str, registry: SemanticRegistry) -> Direction | None:
    """``minimize`` for ``time.latency``, ``money.cost`` and their descendants, else ``None``."""
    if any(registry.is_a(metric, family) for family in _MINIMIZED):
        return Direction.MINIMIZE
    return None
