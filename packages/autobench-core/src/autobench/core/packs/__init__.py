"""Metric packs: optional bundles of semantic types, scorer defaults, report metrics and
feedback extractors for one domain (``agentic``, ``structured_output``, ...)."""

from autobench.core.packs._builtin import DEFAULT_METRIC_PACKS, builtin_metric_pack_registry
from autobench.core.packs._model import MetricPack, MetricPackRegistry

__all__ = [
    "DEFAULT_METRIC_PACKS",
    "MetricPack",
    "MetricPackRegistry",
    "builtin_metric_pack_registry",
]
