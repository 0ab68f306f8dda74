"""The plugin system: hook specifications, the plugin manager and the registries built from it.

Autobench is extended through pluggy hooks in the entry-point group
``autobench``. A distribution declares::

    [project.entry-points.autobench]
    my_pack = "my_package.autobench_plugin"

and the module defines functions marked with :data:`hookimpl`. The built-in
scorers, derivers, executors, ... are registered through these same hooks (see
:mod:`autobench.core._builtin_plugin`), so a third-party plugin extends
Autobench exactly as the core does.

The plugins in use are an object, :class:`AutobenchPlugins` (a pluggy manager and
the registries built from it), passed to whatever needs them:
``load_benchmark_spec(path, plugins=...)``, ``Benchmark(id, plugins=...)``,
``run_benchmark_spec(spec, plugins=...)``. Without one, :func:`default_plugins`
(built once, on first use, with every installed entry point) is used.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Generic, Self, TypeVar, cast

import pluggy
from pydantic import BaseModel

from autobench.abp import AutobenchError
from autobench.core._hookspecs import (
    ENTRY_POINT_GROUP,
    PROJECT_NAME,
    AutobenchSpecs,
    Executor,
    ExportFormat,
    hookimpl,
    hookspec,
)
from autobench.core._plugin_failure import plugin_failure
from autobench.core.derive._base import DeriverSpec
from autobench.core.native._integrations import (
    IntegrationEntry,
    IntegrationFields,
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
T = TypeVar("T")

__all__ = [
    "BUILTIN_PLUGINS",
    "ENTRY_POINT_GROUP",
    "AutobenchPlugins",
    "AutobenchSpecs",
    "DeriverRegistry",
    "Executor",
    "ExecutorRegistry",
    "ExportFormat",
    "KindRegistry",
    "PluginLoadError",
    "PostDeriverRegistry",
    "ScorerRegistry",
    "TraceExtractorRegistry",
    "UnknownExecutorError",
    "default_plugins",
    "deriver_registry",
    "executor_registry",
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


class UnknownExecutorError(AutobenchError, ValueError):
    """No executor of that name; the message lists the known ones."""


BUILTIN_PLUGINS: tuple[tuple[str, str], ...] = (
    ("autobench.builtin", "autobench.core._builtin_plugin"),
)
"""``(plugin name, module)`` of Autobench's own plugins, imported and registered when a
manager is built (they reach into the runtime, so importing this module does not import
them)."""


def new_plugin_manager(*, load_entry_points: bool = True) -> pluggy.PluginManager:
    """A fresh plugin manager with the hook specs and built-ins registered.

    With ``load_entry_points`` it also loads every installed plugin of the
    ``autobench`` group; a plugin that fails to import raises
    :class:`PluginLoadError` naming its entry point, its distribution and the plugin's
    own file and line.
    """
    manager = pluggy.PluginManager(PROJECT_NAME)
    manager.add_hookspecs(AutobenchSpecs)
    for name, module in BUILTIN_PLUGINS:
        manager.register(importlib.import_module(module), name=name)
    if load_entry_points:
        try:
            manager.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
        except Exception as exc:  # pluggy re-raises the plugin's own import error
            raise PluginLoadError(plugin_failure(manager, exc)) from exc
    return manager


@functools.cache
def plugin_manager() -> pluggy.PluginManager:
    """The pluggy manager of :func:`default_plugins` (created on first use)."""
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

    def __init__(self, contributions: Sequence[TraceExtractor | type[TraceExtractor]]) -> None:
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
        """Every extractor contributed through ``autobench_trace_extractors`` of ``manager``."""
        contributions: list[Sequence[TraceExtractor | type[TraceExtractor]]]
        contributions = manager.hook.autobench_trace_extractors()
        return cls([item for contribution in contributions for item in contribution])

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
    contributions: list[Sequence[MetricPack | Mapping[str, object]]]
    contributions = manager.hook.autobench_metric_packs()
    for contribution in reversed(contributions):
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
    contributions: list[Mapping[str, SemanticDefinition | Mapping[str, object]]]
    contributions = manager.hook.autobench_semantic_types()
    for contribution in reversed(contributions):  # the built-in catalog (again) first
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
    """The built-in native integrations and those of the ``autobench_instrumentors`` hook,
    in registration order (an entry with a built-in id replaces the built-in one). Lists
    them only: no instrumentor or SDK is imported."""
    contributions: list[Sequence[IntegrationEntry | IntegrationFields]]
    contributions = manager.hook.autobench_instrumentors()
    # pluggy answers the last registered plugin first: the built-ins go first, so that an
    # installed plugin's entry replaces a built-in one and not the other way round.
    contributed = [entry for entries in reversed(contributions) for entry in entries]
    return merged_entries(cast(list[IntegrationEntry | Mapping[str, Any]], contributed))


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


ExecutorFactoryLike = Callable[..., Executor]
"""An executor factory as the plugin layer sees it; its call is spelled out by
:class:`autobench.core.runtime.ExecutorFactory` (the runtime's types sit above this
module)."""


class ExecutorRegistry:
    """Executor factories by name (``autobench_executors`` hook; see
    :class:`autobench.core.runtime.ExecutorFactory`). Raises ``ValueError`` when two
    plugins register different factories under one name, or a factory is not callable."""

    def __init__(self, contributions: Iterable[Mapping[str, ExecutorFactoryLike]]) -> None:
        self.by_name: dict[str, ExecutorFactoryLike] = {}
        for contribution in contributions:
            for name, factory in contribution.items():
                if not callable(factory):
                    raise ValueError(f"executor {name!r} is not callable: {factory!r}")
                known = self.by_name.get(name)
                if known is not None and known is not factory:
                    raise ValueError(f"executor {name!r} is registered twice")
                self.by_name[name] = factory

    @classmethod
    def from_manager(cls, manager: pluggy.PluginManager) -> ExecutorRegistry:
        """Every executor contributed through ``autobench_executors`` of ``manager``
        (built-ins first)."""
        contributions: list[Mapping[str, ExecutorFactoryLike]]
        contributions = manager.hook.autobench_executors()
        return cls(reversed(contributions))

    def names(self) -> tuple[str, ...]:
        """Known executor names, sorted."""
        return tuple(sorted(self.by_name))

    def get(self, name: str) -> ExecutorFactoryLike:
        """The factory of executor ``name``; raises :class:`UnknownExecutorError` naming the
        known executors."""
        try:
            return self.by_name[name]
        except KeyError:
            raise UnknownExecutorError(
                f"unknown executor {name!r}; known executors: {', '.join(self.names())}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self.by_name


class AutobenchPlugins:
    """The plugins one caller works with: a pluggy manager of the ``autobench`` project and
    the registries built from its hooks.

    ``AutobenchPlugins()`` builds a new manager with Autobench's built-ins and every
    installed entry point (``load_entry_points=False``: the built-ins only);
    ``AutobenchPlugins(manager=m)`` wraps a manager built elsewhere (it must have the hook
    specs, :class:`AutobenchSpecs`; :func:`new_plugin_manager` gives one). Each object of
    ``plugins`` (a module or object with :data:`hookimpl` functions) is registered on the
    manager. Every registry is built from the manager on first use and then kept: register
    plugins before using them (or build a new object).

    Pass it where plugins are read (``load_benchmark_spec(path, plugins=...)``,
    ``Benchmark(id, plugins=...)``, ``run_benchmark_spec(spec, plugins=...)``); anything
    given none uses :func:`default_plugins`. A registry raises ``ValueError`` when two
    plugins claim one name or kind.
    """

    def __init__(
        self,
        *plugins: object,
        manager: pluggy.PluginManager | None = None,
        load_entry_points: bool = True,
    ) -> None:
        self.manager = (
            new_plugin_manager(load_entry_points=load_entry_points) if manager is None else manager
        )
        for plugin in plugins:
            self.manager.register(plugin)
        self._built: dict[str, object] = {}

    def _once(self, key: str, build: Callable[[pluggy.PluginManager], T]) -> T:
        if key not in self._built:
            self._built[key] = build(self.manager)
        return cast(T, self._built[key])

    @property
    def scorers(self) -> ScorerRegistry:
        """Scorer kinds and DSL keywords (``autobench_scorers``)."""
        return self._once("scorers", ScorerRegistry.from_manager)

    @property
    def derivers(self) -> DeriverRegistry:
        """Per-run deriver kinds (``autobench_derivers``)."""
        return self._once("derivers", DeriverRegistry.from_manager)

    @property
    def post_derivers(self) -> PostDeriverRegistry:
        """Cross-run post-deriver kinds (``autobench_post_derivers``)."""
        return self._once("post_derivers", PostDeriverRegistry.from_manager)

    @property
    def trace_extractors(self) -> TraceExtractorRegistry:
        """Trace extractors by name (``autobench_trace_extractors``)."""
        return self._once("trace_extractors", TraceExtractorRegistry.from_manager)

    @property
    def metric_packs(self) -> MetricPackRegistry:
        """Metric packs by name (``autobench_metric_packs``)."""
        return self._once("metric_packs", metric_packs_from_manager)

    @property
    def semantic_registry(self) -> SemanticRegistry:
        """The semantic registry every spec starts from (``autobench_semantic_types`` and the
        packs' types over the built-in catalog; see :func:`semantic_registry_from_manager`)."""
        return self._once("semantic_registry", semantic_registry_from_manager)

    @property
    def integrations(self) -> tuple[IntegrationEntry, ...]:
        """Native integrations (``autobench_instrumentors``; see
        :func:`integrations_from_manager`)."""
        return self._once("integrations", integrations_from_manager)

    @property
    def executors(self) -> ExecutorRegistry:
        """Executors by name (``autobench_executors``)."""
        return self._once("executors", ExecutorRegistry.from_manager)

    def __repr__(self) -> str:
        names = sorted(name for name, _ in self.manager.list_name_plugin() if name)
        return f"AutobenchPlugins({', '.join(names)})"


class _ProcessPlugins(AutobenchPlugins):
    """:func:`default_plugins`: its registries are those of the module-level functions
    (``scorer_registry()``, ...), each cached once per process."""

    def _once(self, key: str, build: Callable[[pluggy.PluginManager], T]) -> T:
        return cast(T, _PROCESS_REGISTRIES[key]())


@functools.cache
def default_plugins() -> AutobenchPlugins:
    """The plugins used when a caller passes none: :func:`plugin_manager` (the built-ins and
    every installed entry point), built on first use and kept for the process. Its
    registries are :func:`scorer_registry`, :func:`deriver_registry`, ... (clear one's
    cache after registering a plugin on :func:`plugin_manager` to see it)."""
    return _ProcessPlugins(manager=plugin_manager())


@functools.cache
def executor_registry() -> ExecutorRegistry:
    """The executor registry of the process-wide plugin manager."""
    return ExecutorRegistry.from_manager(plugin_manager())


_PROCESS_REGISTRIES: dict[str, Callable[[], object]] = {
    "scorers": scorer_registry,
    "derivers": deriver_registry,
    "post_derivers": post_deriver_registry,
    "trace_extractors": trace_extractor_registry,
    "metric_packs": metric_pack_registry,
    "semantic_registry": semantic_registry,
    "integrations": integration_entries,
    "executors": executor_registry,
}
