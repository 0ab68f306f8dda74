"""A third-party metric pack for the tests: ``support``, with semantic types of its own."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from autobench.core.packs import MetricPack
from autobench.core.plugins import hookimpl
from autobench.records import SemanticDefinition

SUPPORT_PACK = MetricPack(
    name="support",
    description="Customer-support quality (test plugin).",
    semantic_types={
        "support.resolution.rate": SemanticDefinition(
            parent="quality.score",
            unit="ratio",
            shape="number",
            description="Fraction of tickets resolved without escalation.",
        ),
    },
    scorer_factories=("python",),
    default_report_metrics=("support.resolution.rate", "time.latency"),
)


@hookimpl
def autobench_metric_packs() -> Sequence[MetricPack]:
    return (SUPPORT_PACK,)


@hookimpl
def autobench_semantic_types() -> Mapping[str, SemanticDefinition]:
    return {
        "support.escalation.count": SemanticDefinition(
            unit="tickets",
            shape="integer",
            description="Tickets escalated to a person.",
            additive=True,
        ),
    }
