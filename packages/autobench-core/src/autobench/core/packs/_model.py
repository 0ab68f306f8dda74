"""The :class:`MetricPack` model and the :class:`MetricPackRegistry` of packs by name."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from autobench.records import DEFAULT_SEMANTIC_REGISTRY, SemanticDefinition, SemanticRegistry


class MetricPack(BaseModel):
    """One domain's reusable defaults; nothing in a pack changes the RunRecord contract.

    - ``semantic_types``: semantic type definitions (parent, unit, shape) the pack adds or
      relies on; ``aliases`` map extra names to them.
    - ``scorer_factories``: scorer references, a registered scorer ``kind`` or a
      ``module:attribute`` target.
    - ``scorer_defaults``: default fields per scorer kind (``{"schema": {"role": "gate"}}``).
    - ``default_report_metrics``: semantic types a report shows by default.
    - ``feedback_extractors``: names of the extractors whose evidence feeds optimisation
      feedback (trace extractor names such as ``usage``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, pattern=r"^[a-z][a-z0-9_.-]*$")
    description: str = ""
    semantic_types: dict[str, SemanticDefinition] = Field(default_factory=dict)
    aliases: dict[str, str] = Field(default_factory=dict)
    scorer_factories: tuple[str, ...] = ()
    scorer_defaults: dict[str, dict[str, Any]] = Field(default_factory=dict)
    default_report_metrics: tuple[str, ...] = ()
    feedback_extractors: tuple[str, ...] = ()

    def semantic_registry(self) -> SemanticRegistry:
        """This pack's semantic types and aliases as a registry (no built-ins)."""
        return SemanticRegistry(types=self.semantic_types, aliases=self.aliases)


class MetricPackRegistry:
    """Metric packs by name. Registering a second, different pack under a taken name raises
    ``ValueError``; :meth:`require` raises ``KeyError`` naming the known packs."""

    def __init__(self, packs: Iterable[MetricPack] = ()) -> None:
        self._packs: dict[str, MetricPack] = {}
        for pack in packs:
            self.register(pack)

    def register(self, pack: MetricPack) -> MetricPack:
        """Add ``pack`` (registering an equal pack again is a no-op) and return it."""
        if not isinstance(pack, MetricPack):
            raise TypeError(f"{pack!r} is not a MetricPack")
        known = self._packs.get(pack.name)
        if known is not None and known != pack:
            raise ValueError(f"metric pack {pack.name!r} is registered twice")
        self._packs[pack.name] = pack
        return pack

    def names(self) -> tuple[str, ...]:
        """Pack names in registration order."""
        return tuple(self._packs)

    def get(self, name: str) -> MetricPack | None:
        return self._packs.get(name)

    def require(self, name: str) -> MetricPack:
        """The pack ``name``; ``KeyError`` naming the known packs when it is missing."""
        pack = self._packs.get(name)
        if pack is None:
            raise KeyError(f"unknown metric pack {name!r}; known: {', '.join(self._packs)}")
        return pack

    def __contains__(self, name: object) -> bool:
        return name in self._packs

    def __iter__(self) -> Iterator[MetricPack]:
        return iter(tuple(self._packs.values()))

    def __len__(self) -> int:
        return len(self._packs)

    def copy(self) -> MetricPackRegistry:
        return MetricPackRegistry(self._packs.values())

    def semantic_types(self) -> Mapping[str, SemanticDefinition]:
        """The semantic types of every pack; ``ValueError`` when two packs define one
        type differently."""
        return _merge_definitions((pack.name, pack.semantic_types) for pack in self)

    def semantic_registry_for(
        self,
        names: Iterable[str] | None = None,
        *,
        base: SemanticRegistry = DEFAULT_SEMANTIC_REGISTRY,
    ) -> SemanticRegistry:
        """``base`` with the semantic types and aliases of the named packs (all packs when
        ``names`` is ``None``) laid over it, in the order given."""
        chosen = [self.require(name) for name in names] if names is not None else list(self)
        types = _merge_definitions((pack.name, pack.semantic_types) for pack in chosen)
        aliases: dict[str, str] = {}
        for pack in chosen:
            aliases.update(pack.aliases)
        return base.merged(types=types, aliases=aliases)

    def __repr__(self) -> str:
        return f"MetricPackRegistry({list(self._packs)!r})"


def _merge_definitions(
    sources: Iterable[tuple[str, Mapping[str, SemanticDefinition]]],
) -> dict[str, SemanticDefinition]:
    merged: dict[str, SemanticDefinition] = {}
    owner: dict[str, str] = {}
    for source, types in sources:
        for name, definition in types.items():
            if name in merged and merged[name] != definition:
                raise ValueError(
                    f"semantic type {name!r} is defined differently by {owner[name]!r} "
                    f"and {source!r}"
                )
            merged[name] = definition
            owner.setdefault(name, source)
    return merged
