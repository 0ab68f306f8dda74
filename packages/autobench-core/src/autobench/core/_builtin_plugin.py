"""Autobench's own contributions, registered through the public hooks like any plugin."""

from __future__ import annotations

from collections.abc import Sequence

from autobench.core._hookspecs import hookimpl
from autobench.core.derive import BUILTIN_DERIVERS, DeriverSpec
from autobench.core.packs._builtin import BUILTIN_METRIC_PACKS
from autobench.core.packs._model import MetricPack
from autobench.core.postderive._base import PostDeriverSpec
from autobench.core.postderive._paired import PairedBaselineDeriverSpec
from autobench.core.scoring._base import ScorerSpec
from autobench.core.scoring._builtin import BUILTIN_SCORERS
from autobench.records import SignalExtractor, SpanExtractor, UsageExtractor


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
def autobench_trace_extractors() -> Sequence[type]:
    return (SignalExtractor, SpanExtractor, UsageExtractor)


@hookimpl
def autobench_metric_packs() -> Sequence[MetricPack]:
    return BUILTIN_METRIC_PACKS
