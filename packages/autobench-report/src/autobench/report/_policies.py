"""The policies view: how often each policy held, per variant."""

from __future__ import annotations

from itertools import compress

from autobench.report._metrics import MetricTable
from autobench.report._model import PolicySummary


def policy_summaries(table: MetricTable) -> list[PolicySummary]:
    """One :class:`PolicySummary` per policy name, in order of first appearance."""
    passed: dict[str, dict[str, int]] = {}
    failed: dict[str, dict[str, int]] = {}
    metrics: dict[str, str | None] = {}
    # Only the runs with policy results (usually none), picked in C.
    for variant_id, results in compress(
        zip(table.variant_ids, table.policies, strict=True), table.policies
    ):
        for name, observation in results.items():
            metrics.setdefault(name, observation.tags.get("metric"))
            target = passed if observation.value is True else failed
            for counts in (passed, failed):
                counts.setdefault(name, {})
            target[name][variant_id] = target[name].get(variant_id, 0) + 1
    return [
        PolicySummary(name=name, metric=metrics[name], passed=passed[name], failed=failed[name])
        for name in metrics
    ]
