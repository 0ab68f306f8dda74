"""Evaluating policies on one run and recording the results as evidence.

For each :class:`PolicySpec` the run's value of ``policy.metric`` is the
projected value (:func:`autobench.core._projected.projected_metric`: scores,
then derived values, then task observations; a descendant type when the run
has no value of exactly that type), converted to ``policy.unit`` when the
policy has one. The result is a :class:`PolicyResult` and, recorded, one
observation:

* ``name`` the policy name, ``id`` ``policy.<name>``;
* ``kind`` metric, ``semantic_type`` ``policy.result``, ``role`` constraint,
  ``source`` derived, ``value`` ``True`` or ``False``;
* ``reason``: ``quality.correctness = 0.7, expected >= 0.9`` when the metric
  was found, ``missing_metric`` when the run has no value of the metric,
  ``unit_mismatch: ...`` when it does not convert to ``policy.unit`` and
  ``not_a_number: ...`` when an ordering or ``must_between`` requirement gets
  a value that is not a number. These last three always fail;
* ``tags``: ``metric`` (the policy's semantic type) and ``requirement``
  (``must_greater_equal``, ...).

A failed policy is false constraint evidence, so the status rule
(:mod:`autobench.core.runtime._status`) fails the run's evaluation and the
run, while the task keeps its own status.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from autobench.core._projected import projected_metric, value_in_unit
from autobench.core.policies._models import PolicySpec
from autobench.records import (
    DEFAULT_SEMANTIC_REGISTRY,
    Observation,
    ObservationKind,
    ObservationRole,
    ObservationSource,
    RunRecord,
    Semantic,
    SemanticRegistry,
    UnitConversionError,
    run_observations,
)

MISSING_METRIC = "missing_metric"
"""Reason of a policy whose metric the run does not have."""


@dataclass(frozen=True, slots=True)
class PolicyResult:
    """The outcome of one policy on one run: ``passed``, the ``value`` it judged
    (converted to the policy's unit; ``None`` when missing) and the ``reason``."""

    policy: PolicySpec
    passed: bool
    value: Any
    reason: str

    def to_observation(
        self, *, case_id: str | None = None, variant_id: str | None = None
    ) -> Observation:
        """The ``policy.result`` observation of this result (see the module docstring)."""
        kind, _ = self.policy.requirement
        return Observation(
            id=f"policy.{self.policy.name}",
            name=self.policy.name,
            kind=ObservationKind.METRIC,
            value=self.passed,
            semantic_type=Semantic.POLICY_RESULT,
            role=ObservationRole.CONSTRAINT,
            source=ObservationSource.DERIVED,
            reason=self.reason,
            tags={"metric": self.policy.metric, "requirement": kind},
            case_id=case_id,
            variant_id=variant_id,
        )


def check_policy(
    policy: PolicySpec,
    observations: Iterable[Observation],
    registry: SemanticRegistry = DEFAULT_SEMANTIC_REGISTRY,
) -> PolicyResult:
    """Check ``policy`` against a run's observations (scores already projected in)."""
    found = projected_metric(observations, policy.metric, registry)
    if found is None or found.value is None:
        return PolicyResult(policy, False, None, MISSING_METRIC)
    label = found.semantic_type or policy.metric
    try:
        value = value_in_unit(found, policy.unit, registry)
    except UnitConversionError as exc:
        return PolicyResult(policy, False, found.value, f"unit_mismatch: {label}: {exc}")
    unit = f" {policy.unit}" if policy.unit else ""
    text = f"{label} = {value!r}{unit}, expected {policy.expectation()}"
    held = policy.holds(value)
    if held is None:
        return PolicyResult(policy, False, value, f"not_a_number: {text}")
    return PolicyResult(policy, held, value, text)


def evaluate_policies(
    policies: Sequence[PolicySpec],
    observations: Sequence[Observation],
    registry: SemanticRegistry = DEFAULT_SEMANTIC_REGISTRY,
    *,
    case_id: str | None = None,
    variant_id: str | None = None,
) -> tuple[Observation, ...]:
    """One ``policy.result`` observation per policy, in declaration order.

    ``observations`` are every observation of the run with its scores
    projected in (:func:`autobench.records.run_observations`).
    """
    return tuple(
        check_policy(policy, observations, registry).to_observation(
            case_id=case_id, variant_id=variant_id
        )
        for policy in policies
    )


def evaluate_run_policies(
    policies: Sequence[PolicySpec],
    run: RunRecord,
    registry: SemanticRegistry = DEFAULT_SEMANTIC_REGISTRY,
) -> tuple[Observation, ...]:
    """Policies checked after the fact on a recorded (or replayed) run, post-derived
    observations included. The run's stored status is not changed."""
    return evaluate_policies(
        policies,
        run_observations(run),
        registry,
        case_id=run.case_id,
        variant_id=run.variant_id,
    )
