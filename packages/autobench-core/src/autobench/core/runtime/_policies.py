"""The per-run policy stage: after scoring (and after per-run derivation), before the status.

:func:`policy_observations` checks every policy of the spec on one run whose
task completed (scorers ran) and returns the ``policy.result`` observations
(:mod:`autobench.core.policies._evaluate`) that are appended to the run's
observations. A failed policy is false constraint evidence: the status rule
(:mod:`autobench.core.runtime._status`) then fails the evaluation and the
run, while the task keeps status ``passed``.
"""

from __future__ import annotations

from collections.abc import Sequence

from autobench.core.policies import PolicySpec, evaluate_policies
from autobench.records import (
    Observation,
    ScoreRecord,
    SemanticRegistry,
    score_observation,
)


def policy_observations(
    policies: Sequence[PolicySpec],
    scores: Sequence[ScoreRecord],
    observations: Sequence[Observation],
    registry: SemanticRegistry,
    *,
    case_id: str,
    variant_id: str,
) -> tuple[Observation, ...]:
    """The ``policy.result`` observations of one run: ``observations`` are what the task
    (and derivers) recorded; scores that produced a value are projected in first."""
    if not policies:
        return ()
    projected = tuple(
        score_observation(score, case_id=case_id, variant_id=variant_id)
        for score in scores
        if score.error is None
    )
    return evaluate_policies(
        policies,
        (*observations, *projected),
        registry,
        case_id=case_id,
        variant_id=variant_id,
    )
