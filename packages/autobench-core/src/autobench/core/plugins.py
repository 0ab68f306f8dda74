"""The plugin system: hook specifications, the plugin manager and the registries built from it.

Autobench is extended through pluggy hooks in the entry-point group
``autobench``. A distribution declares::

    [project.entry-points.autobench]
    my_pack = "my_package.autobench_plugin"

and the module defines functions marked with :data:`hookimpl`. The built-in
scorers are registered through these same hooks (see
:mod:`autobench.core._builtin_plugin`), so a third-party plugin extends
Autobench exactly as the core does.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Generic, Self, TypeVar

import pluggy
from pydantic import BaseModel

from autobench.abp import AutobenchError
from autobench.core import _builtin_plugin
from autobench.core._hookspecs import (
    ENTRY_POINT_GROUP,
    PROJECT_NAME,
    AutobenchSpecs,
    hookimpl,
    hookspec,
)
from autobench.core._plugin_failure import plugin_failure
from autobench.core.derive._base import DeriverSpec
from autobench.core.native._integrations import (
    IntegrationEntry,
    IntegrationStatus,
    merged_entries,
    status_of,
)
from autobench.core.packs._model import MetricPack, MetricPackRegistry, _merge_definitions
from autobench.core.postderive._base import PostDeriverSpec
from autobench.core.scoring._base import ScorerSpec
from autobench.records import (
    DEFAULT_SEMANTIC_REGISTRY,
    CompositeExtractor,
    SemanticDefinition,
    SemanticRegistry,
    TraceExtractor,
)

ModelT = TypeVar("ModelT", bound=BaseModel)

__all__ = [
    "ENTRY_POINT_GROUP",
    "AutobenchSpecs",
    "DeriverRegistry",
    "KindRegistry",
    "PluginLoadError",
    "PostDeriverRegistry",
    "ScorerRegistry",
    "TraceExtractorRegistry",
    "deriver_registry",
    "hookimpl",
    "hookspec",
    "instrumentor_statuses",
    "integration_entries",
    "integrations_from_manager",
    "metric_pack_registry",
    "metric_packs_from_manager",
    "new_plugin_manager",
    "plugin_manager",
    "post_deriver_registry",
    "scorer_registry",
    "semantic_registry",
    "semantic_registry_from_manager",
    "trace_extractor_registry",
]


class PluginLoadError(AutobenchError, RuntimeError):
    """A plugin from the ``autobench`` entry-point group could not be loaded."""


def new_plugin_manager(*, load_entry_points: bool = True) -> pluggy.PluginManager:
    """A fresh plugin manager with the hook specs and built-ins registered.

    With ``load_entry_points`` it also loads every installed plugin of the
    ``autobench`` group; a plugin that fails to import raises
    :class:`PluginLoadError` naming its entry point, its distribution and the plugin's
    own file and line.
    """
    manager = pluggy.PluginManager(PROJECT_NAME)
    manager.add_hookspecs(AutobenchSpecs)
    manager.register(_builtin_plugin, name="autobench.builtin")
    if load_entry_points:
        try:
            manager.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
        except Exception as exc:  # pluggy re-raises the plugin's own import error
            raise PluginLoadError(plugin_failure(manager, exc)) from exc
    return manager


@functools.cache
def plugin_manager() -> pluggy.PluginManager:
    """The process-wide plugin manager (created on first use)."""
    return new_plugin_manager()


class KindRegistry(Generic[ModelT]):
    """Spec models contributed through one hook, by their structured ``kind``.

    ``what`` names the models in messages (``"scorer"``, ``"deriver"``, ...).
    Raises ``ValueError`` when two plugins claim the same kind.
    """

    what: ClassVar[str]
    base: ClassVar[type[BaseModel]]
    hook: ClassVar[str]

    def __init__(self, models: Sequence[type[ModelT]]) -> None:
        self.by_kind: dict[str, type[ModelT]] = {}
        for model in models:
            self._claim(self.by_kind, model.model_fields["kind"].default, model)

    def _claim(self, table: dict[str, type[ModelT]], key: str, model: type[ModelT]) -> None:
        if key in table and table[key] is not model:
            raise ValueError(
                f"{self.what} {key!r} is registered twice ({table[key].__name__}, {model.__name__})"
            )
        table[key] = model

    @classmethod
    def from_manager(cls, manager: pluggy.PluginManager) -> Self:
        """Every model contributed through this registry's hook of ``manager``."""
        contributions = getattr(manager.hook, cls.hook)()
        return cls([model for contribution in contributions for model in contribution])

    def validate(self, item: Any) -> ModelT:
        """Turn a structured mapping (with ``kind``) into its model; instances pass through.

        Raises ``ValueError`` for an unknown kind and pydantic's ``ValidationError``
        for bad fields.
        """
        if isinstance(item, self.base):
            return item  # type: ignore[return-value]
        if not isinstance(item, Mapping):
            raise ValueError(f"a {self.what} must be a mapping, not {type(item).__name__}")
        kind = item.get("kind")
        model = self.by_kind.get(kind) if isinstance(kind, str) else None
        if model is None:
            raise ValueError(
                f"unknown {self.what} kind {kind!r}; known kinds: {', '.join(sorted(self.by_kind))}"
            )
        return model.model_validate(item)


class ScorerRegistry(KindRegistry[ScorerSpec]):
    """Scorer kinds (``autobench_scorers`` hook), by ``kind`` and by DSL ``keyword``."""

    what = "scorer"
    base = ScorerSpec
    hook = "autobench_scorers"

    def __init__(self, models: Sequence[type[ScorerSpec]]) -> None:
        super().__init__(models)
        self.by_keyword: dict[str, type[ScorerSpec]] = {}
        for model in models:
            self._claim(self.by_keyword, model.keyword, model)


class PostDeriverRegistry(KindRegistry[PostDeriverSpec]):
    """Cross-run post-deriver kinds (``autobench_post_derivers`` hook)."""

    what = "post-deriver"
    base = PostDeriverSpec
    hook = "autobench_post_derivers"


class DeriverRegistry(KindRegistry[DeriverSpec]):
    """Per-run deriver kinds (``autobench_derivers`` hook)."""

    what = "deriver"
    base = DeriverSpec
    hook = "autobench_derivers"


@functools.cache
def scorer_registry() -> ScorerRegistry:
    """The scorer registry of the process-wide plugin manager."""
    return ScorerRegistry.from_manager(plugin_manager())


@functools.cache
def post_deriver_registry() -> PostDeriverRegistry:
    """The post-deriver registry of the process-wide plugin manager."""
    return PostDeriverRegistry.from_manager(plugin_manager())


@functools.cache
def deriver_registry() -> DeriverRegistry:
    """The deriver registry of the process-wide plugin manager."""
    return DeriverRegistry.from_manager(plugin_manager())


class TraceExtractorRegistry:
    """Trace extractors known to this process (``autobench_trace_extractors`` hook), by
    their stable ``name``. A contribution is an extractor class (built with no arguments)
    or an instance. Raises ``ValueError`` when two plugins claim the same name."""

    def __init__(self, contributions: Sequence[Any]) -> None:
        self.by_name: dict[str, TraceExtractor] = {}
        for item in contributions:
            extractor = item() if isinstance(item, type) else item
            if not isinstance(extractor, TraceExtractor):
                raise ValueError(f"{item!r} is not a trace extractor (name, version, extract)")
            known = self.by_name.get(extractor.name)
            if known is not None and type(known) is not type(extractor):
                raise ValueError(f"trace extractor {extractor.name!r} is registered twice")
            self.by_name[extractor.name] = extractor

    @classmethod
    def from_manager(cls, manager: pluggy.PluginManager) -> TraceExtractorRegistry:
        return cls(
            [
                item
                for contribution in manager.hook.autobench_trace_extractors()
                for item in contribution
            ]
        )

    def get(self, *names: str) -> TraceExtractor:
        """The extractor ``name``, or a :class:`CompositeExtractor` of several; all of them
        when no name is given. Raises ``KeyError`` naming the known extractors."""
        chosen = names or tuple(self.by_name)
        missing = [name for name in chosen if name not in self.by_name]
        if missing:
            raise KeyError(
                f"unknown trace extractor {missing[0]!r}; known: {', '.join(sorted(self.by_name))}"
            )
        if len(chosen) == 1:
            return self.by_name[chosen[0]]
        return CompositeExtractor(*(self.by_name[name] for name in chosen))


@functools.cache
def trace_extractor_registry() -> TraceExtractorRegistry:
    """The trace extractor registry of the process-wide plugin manager."""
    return TraceExtractorRegistry.from_manager(plugin_manager())


def metric_packs_from_manager(manager: pluggy.PluginManager) -> MetricPackRegistry:
    """Every metric pack contributed through ``autobench_metric_packs`` (built-ins first).
    Raises ``ValueError`` when two plugins contribute different packs under one name."""
    registry = MetricPackRegistry()
    for contribution in reversed(manager.hook.autobench_metric_packs()):
        for item in contribution:
            pack = item if isinstance(item, MetricPack) else MetricPack.model_validate(item)
            registry.register(pack)
    return registry


def semantic_registry_from_manager(manager: pluggy.PluginManager) -> SemanticRegistry:
    """The built-in semantic registry with the plugins' semantic types laid over it: those of
    the ``autobench_semantic_types`` hook and those of every contributed metric pack.

    Raises ``ValueError`` when two contributions, or a contribution and the built-in
    catalog, define one type differently.
    """
    packs = metric_packs_from_manager(manager)
    sources: list[tuple[str, dict[str, SemanticDefinition]]] = [
        ("the built-in catalog", dict(DEFAULT_SEMANTIC_REGISTRY.types))
    ]
    sources += [(f"metric pack {pack.name}", pack.semantic_types) for pack in packs]
    for contribution in reversed(manager.hook.autobench_semantic_types()):
        sources.append(
            (
                "an autobench_semantic_types plugin",
                {
                    name: SemanticDefinition.model_validate(definition)
                    for name, definition in contribution.items()
                },
            )
        )
    aliases: dict[str, str] = {}
    for pack in packs:
        aliases.update(pack.aliases)
    return DEFAULT_SEMANTIC_REGISTRY.merged(types=_merge_definitions(sources), aliases=aliases)


@functools.cache
def metric_pack_registry() -> MetricPackRegistry:
    """The metric packs of the process-wide plugin manager (built-in and third-party)."""
    return metric_packs_from_manager(plugin_manager())


@functools.cache
def semantic_registry() -> SemanticRegistry:
    """The semantic registry every spec starts from: the built-in catalog plus the semantic
    types of installed plugins (see :func:`semantic_registry_from_manager`)."""
    return semantic_registry_from_manager(plugin_manager())


def integrations_from_manager(manager: pluggy.PluginManager) -> tuple[IntegrationEntry, ...]:
    """The built-in native integrations and those of the ``autobench_instrumentors`` hook
    (an entry with a built-in id replaces the built-in one). Lists them only: no
    instrumentor or SDK is imported."""
    contributed = [entry for entries in manager.hook.autobench_instrumentors() for entry in entries]
    return merged_entries(contributed)


@functools.cache
def integration_entries() -> tuple[IntegrationEntry, ...]:
    """The native integrations known here (see :func:`integrations_from_manager`)."""
    return integrations_from_manager(plugin_manager())


def instrumentor_statuses(
    entries: Sequence[IntegrationEntry] | None = None,
) -> tuple[IntegrationStatus, ...]:
    """What this environment offers of every known integration (``entries``: default,
    :func:`integration_entries`), without installing or patching anything and without
    importing a missing SDK."""
    return tuple(status_of(entry) for entry in (entries or integration_entries()))
