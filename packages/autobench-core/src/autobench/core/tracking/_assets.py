"""The tracked-asset data: :class:`AssetVersion` (one version) and :class:`TrackedAsset`
(an asset and its history).

The registry (``_registry``) creates them and the YAML export (``_export``) writes
them. They live apart from both so that the registry imports the export and the export
imports only this module: the import graph has no cycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class AssetVersion:
    """One version of a tracked asset: its canonical ``state`` and how it differs from the last.

    ``version`` is the first 12 hex digits of ``content_hash`` (the sha256 of the
    canonical JSON of ``state``) unless set by hand; ``changes`` lists the dotted
    paths of ``state`` that changed (``("initial",)`` for the first version) and
    ``diff`` is a unified diff of the YAML of the parent and this state.
    """

    asset_id: str
    kind: str
    name: str
    version: str
    content_hash: str
    state: Mapping[str, Any]
    parent: str | None = None
    source_path: str | None = None
    source_hash: str | None = None
    changes: tuple[str, ...] = ("initial",)
    diff: str | None = None


@dataclass(slots=True)
class TrackedAsset:
    """An asset and its version history (oldest first). ``target`` is the tracked object."""

    id: str
    kind: str
    name: str
    semantic: str | None = None
    versions: list[AssetVersion] = field(default_factory=list)
    target: Any = None

    @property
    def current(self) -> AssetVersion:
        return self.versions[-1]

    @property
    def version(self) -> str:
        return self.current.version
