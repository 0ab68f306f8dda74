"""Autobench's own contributions, registered through the public hooks like any plugin.

The plugin manager registers this module by name when it is built
(:data:`autobench.core.plugins.BUILTIN_PLUGINS`), as pytest registers its own plugins:
it reaches into the runtime (the ``local`` executor), which itself loads specs, so it
is not imported with :mod:`autobench.core.plugins`; the runtime itself is imported when
the executors are listed, not with this module (a command that only reads records builds
the plugin manager but runs nothing). Report formats are the one
contribution of another distribution: autobench-report's entry point
(``autobench.report._plugin``) implements ``autobench_exporters``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from autobench.core._hookspecs import Executor, hookimpl
from autobench.core.derive import BUILTIN_DERIVERS, DeriverSpec
from autobench.core.native._integrations import BUILTIN_INTEGRATIONS, IntegrationFields
from autobench.core.packs._builtin import BUILTIN_METRIC_PACKS
from autobench.core.packs._model import MetricPack
from autobench.core.postderive._base import PostDeriverSpec
from autobench.core.postderive._paired import PairedBaselineDeriverSpec
from autobench.core.scoring._base import ScorerSpec
from autobench.core.scoring._builtin import BUILTIN_SCORERS
from autobench.records import (
    DEFAULT_SEMANTIC_REGISTRY,
    SemanticDefinition,
    SignalExtractor,
    SpanExtractor,
    TraceExtractor,
    UsageExtractor,
)


@hookimpl
def autobench_scorers() -> Sequence[type[ScorerSpec]]:
    return BUILTIN_SCORERS


@hookimpl
def autobench_post_derivers() -> Sequence[type[PostDeriverSpec]]:
    return (PairedBaselineDeriverSpec,)


@hookimpl
def autobench_derivers() -> Sequence[type[DeriverSpec]]:
    return BUILTIN_DERIVERS


@hookimpl
def autobench_trace_extractors() -> Sequence[type[TraceExtractor]]:
    return (SignalExtractor, SpanExtractor, UsageExtractor)


@hookimpl
def autobench_metric_packs() -> Sequence[MetricPack]:
    return BUILTIN_METRIC_PACKS


@hookimpl
def autobench_semantic_types() -> Mapping[str, SemanticDefinition]:
    """The built-in semantic catalog (``Semantic.*``)."""
    return DEFAULT_SEMANTIC_REGISTRY.types


@hookimpl
def autobench_executors() -> Mapping[str, Callable[..., Executor]]:
    from autobench.core.runtime._executor import local_executor

    return {"local": local_executor}


@hookimpl
def autobench_instrumentors() -> Sequence[IntegrationFields]:
    """The four native integrations of Autobench's own instrumentor distributions, listed
    whether or not they are installed (the doctor says what to install), in the mapping
    form an instrumentor distribution returns."""
    return [
        IntegrationFields(
            id=entry.id,
            distribution=entry.distribution,
            module=entry.module,
            extra=entry.extra,
            targets=entry.targets,
            settings=entry.settings,
        )
        for entry in BUILTIN_INTEGRATIONS
    ]
