"""Typed views of tracked tools and types: what a version's ``state`` says, as objects.

A tracked tool (``@track.tool``) or type (``@track.type``, ``@track.dataclass``)
is versioned from a canonical ``state`` mapping (see ``_describe``). These views
read that state back: :class:`ToolAsset` (name, qualified name, docstring,
parameters, return annotation), :class:`TypeAsset` (name, qualified name, model
flavour, fields, JSON Schema when the type has one) and :class:`FieldAsset` (one
parameter or field: name, annotation, required, default, description, examples,
alias, constraints). Each ``of`` takes the tracked object itself, its
:class:`AssetVersion`, or an asset id, and raises :class:`UntrackedAssetError`
for an untracked object and ``TypeError`` for an asset of another kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from autobench.core.tracking._assets import AssetVersion
from autobench.core.tracking._registry import TrackingRegistry, track

_ABSENT: Any = None


@dataclass(frozen=True, slots=True)
class FieldAsset:
    """One parameter of a tool or field of a type, as tracked."""

    name: str
    type: str | None = None
    required: bool = True
    default: Any = _ABSENT
    description: str | None = None
    examples: tuple[Any, ...] = ()
    alias: str | None = None
    constraints: tuple[str, ...] = ()

    @classmethod
    def from_state(cls, name: str, state: Mapping[str, Any]) -> FieldAsset:
        """The field ``name`` of a tracked state's ``params`` / ``fields`` entry."""
        examples = state.get("examples") or ()
        constraints = state.get("constraints") or ()
        return cls(
            name=name,
            type=state.get("type"),
            required=bool(state.get("required", "default" not in state)),
            default=state.get("default", _ABSENT),
            description=state.get("description"),
            examples=tuple(examples) if isinstance(examples, list | tuple) else (examples,),
            alias=state.get("alias"),
            constraints=tuple(str(item) for item in constraints),
        )


@dataclass(frozen=True, slots=True)
class ToolAsset:
    """A tracked tool: ``name``, ``qualname``, ``doc``, ``parameters`` (in signature order),
    ``returns`` (the return annotation), and the exact ``version`` it was read from."""

    name: str
    qualname: str
    doc: str | None
    parameters: tuple[FieldAsset, ...]
    returns: str | None
    version: AssetVersion

    @classmethod
    def of(cls, asset: Any, *, registry: TrackingRegistry | None = None) -> ToolAsset:
        """The view of a tracked tool (see the module docstring for ``asset`` and errors)."""
        version = _version(asset, "tool", registry)
        state = version.state
        params = state.get("params") or {}
        returns = state.get("returns") or {}
        return cls(
            name=str(state.get("name", version.name)),
            qualname=str(state.get("qualname", version.name)),
            doc=state.get("doc"),
            parameters=tuple(FieldAsset.from_state(key, value) for key, value in params.items()),
            returns=returns.get("type") if isinstance(returns, Mapping) else None,
            version=version,
        )


@dataclass(frozen=True, slots=True)
class TypeAsset:
    """A tracked type: ``name``, ``qualname``, ``model`` (``pydantic``, ``dataclass``, ...),
    ``fields`` (in declaration order), ``schema`` (its JSON Schema, when it has one) and the
    exact ``version`` it was read from."""

    name: str
    qualname: str
    model: str | None
    fields: tuple[FieldAsset, ...]
    schema: Mapping[str, Any] | None
    version: AssetVersion

    @classmethod
    def of(cls, asset: Any, *, registry: TrackingRegistry | None = None) -> TypeAsset:
        """The view of a tracked type (see the module docstring for ``asset`` and errors)."""
        version = _version(asset, "type", registry)
        state = version.state
        fields = state.get("fields") or {}
        schema = state.get("schema")
        return cls(
            name=str(state.get("name", version.name)),
            qualname=str(state.get("qualname", version.name)),
            model=state.get("model"),
            fields=tuple(FieldAsset.from_state(key, value) for key, value in fields.items()),
            schema=schema if isinstance(schema, Mapping) else None,
            version=version,
        )

    def field(self, name: str) -> FieldAsset:
        """The field called ``name``; raises ``KeyError`` when the type has none."""
        for found in self.fields:
            if found.name == name:
                return found
        raise KeyError(f"{self.name} has no field {name!r}")


def _version(asset: Any, kind: str, registry: TrackingRegistry | None) -> AssetVersion:
    version = (registry or track).version_of(asset)
    if version.kind != kind:
        raise TypeError(f"{version.name!r} is a tracked {version.kind}, not a {kind}")
    return version
