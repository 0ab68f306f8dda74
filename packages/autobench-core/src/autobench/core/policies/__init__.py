"""Policies: release gates on a run's projected semantic metrics.

:class:`PolicySpec` declares a metric and exactly one requirement;
:func:`evaluate_policies` records each result as a ``policy.result``
constraint observation. See ``docs/policies.md``.
"""

from autobench.core.policies._evaluate import (
    MISSING_METRIC,
    PolicyResult,
    check_policy,
    evaluate_policies,
    evaluate_run_policies,
)
from autobench.core.policies._models import REQUIREMENTS, BetweenBounds, PolicySpec

__all__ = [
    "MISSING_METRIC",
    "REQUIREMENTS",
    "BetweenBounds",
    "PolicyResult",
    "PolicySpec",
    "check_policy",
    "evaluate_policies",
    "evaluate_run_policies",
]
