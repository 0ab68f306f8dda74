"""Policies: release gates on a run's projected semantic metrics.

:class:`PolicySpec` declares a metric and exactly one requirement;
:func:`evaluate_policies` records each result as a ``policy.result``
constraint observation. See ``docs/policies.md``.
"""

from autobench.core.policies._evaluate import MISSING_METRIC as MISSING_METRIC
from autobench.core.policies._evaluate import PolicyResult, evaluate_run_policies
from autobench.core.policies._evaluate import check_policy as check_policy
from autobench.core.policies._evaluate import evaluate_policies as evaluate_policies
from autobench.core.policies._models import REQUIREMENTS as REQUIREMENTS
from autobench.core.policies._models import BetweenBounds as BetweenBounds
from autobench.core.policies._models import PolicySpec

__all__ = [
    "PolicyResult",
    "PolicySpec",
    "evaluate_run_policies",
]
