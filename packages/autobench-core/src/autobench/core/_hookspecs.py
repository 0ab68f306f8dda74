"""Hook specifications of the ``autobench`` plugin project and the pluggy markers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pluggy

from autobench.core.scoring._base import ScorerSpec

PROJECT_NAME = "autobench"
ENTRY_POINT_GROUP = "autobench"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


class AutobenchSpecs:
    """Hook specifications. Each hook returns a sequence of contributions; results of all
    plugins are concatenated."""

    @hookspec
    def autobench_scorers(self) -> Sequence[type[ScorerSpec]]:  # type: ignore[empty-body]
        """Scorer models: each a :class:`ScorerSpec` subclass with ``kind`` and ``keyword``."""

    @hookspec
    def autobench_derivers(self) -> Sequence[Any]:  # type: ignore[empty-body]
        """Per-run deriver models, by YAML ``kind``."""

    @hookspec
    def autobench_post_derivers(self) -> Sequence[Any]:  # type: ignore[empty-body]
        """Cross-run post-deriver models, by YAML ``kind``."""

    @hookspec
    def autobench_exporters(self) -> Sequence[Any]:  # type: ignore[empty-body]
        """Report exporters, by format name."""

    @hookspec
    def autobench_metric_packs(self) -> Sequence[Any]:  # type: ignore[empty-body]
        """Metric packs (semantic types, scorer defaults, report metrics)."""

    @hookspec
    def autobench_semantic_types(self) -> Mapping[str, Any]:  # type: ignore[empty-body]
        """Semantic type definitions to add to the built-in registry."""

    @hookspec
    def autobench_trace_extractors(self) -> Sequence[Any]:  # type: ignore[empty-body]
        """Trace extractors usable by extraction replay."""

    @hookspec
    def autobench_executors(self) -> Mapping[str, Any]:  # type: ignore[empty-body]
        """Executors by name (``local`` is built in)."""

    @hookspec
    def autobench_instrumentors(self) -> Sequence[Any]:  # type: ignore[empty-body]
        """Native integrations (:class:`autobench.core.native.IntegrationEntry`: id,
        distribution, import module, extra, target SDKs); listing them imports no SDK."""
