"""Persist a :class:`TrackingRegistry` as YAML: ``index.yaml`` plus one history file per asset.

``index.yaml`` (record type ``asset_index``) lists each asset with its kind, name,
semantic type, current version and history file; each history file (record type
``asset``) holds the asset's current description and every version with its
parent, state, hashes, source and changes (changed paths and a unified diff).
Files are replaced atomically (temporary file, fsync, rename).
"""

from __future__ import annotations

import os
import re
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autobench.records import render_sections

if TYPE_CHECKING:
    from autobench.core.tracking._registry import AssetVersion, TrackedAsset, TrackingRegistry

ASSET_INDEX_RECORD_VERSION = 1
ASSET_RECORD_VERSION = 1
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def _record_text(record_type: str, version: int, sections: dict[str, Any]) -> str:
    # No JSON schema is published for asset records yet, so no schema comment line.
    return f"record:\n  type: {record_type}\n  version: {version}\n{render_sections(sections)}"


def asset_file_name(asset_id: str) -> str:
    """``tool.create_car`` -> ``tool_create_car.yaml``."""
    return _UNSAFE.sub("_", asset_id).strip("_") + ".yaml"


def _version_entry(version: AssetVersion) -> dict[str, Any]:
    entry: dict[str, Any] = {"version": version.version}
    if version.parent is not None:
        entry["parent"] = version.parent
    entry["state"] = dict(version.state)
    hashes = {"content": version.content_hash}
    if version.source_hash is not None:
        hashes["source"] = version.source_hash
    entry["hashes"] = hashes
    if version.source_path is not None:
        entry["source"] = {"path": version.source_path}
    changes: dict[str, Any] = {"fields": list(version.changes)}
    if version.diff is not None:
        changes["diff"] = version.diff
    entry["changes"] = changes
    return entry


def _asset_section(registry: TrackingRegistry, asset: TrackedAsset) -> dict[str, Any]:
    section: dict[str, Any] = {"id": asset.id, "kind": asset.kind, "name": asset.name}
    if asset.semantic is not None:
        section["semantic"] = asset.semantic
    section["current_version"] = asset.version
    for key, value in asset.current.state.items():
        if key not in ("kind", "name"):
            section[key] = value
    returns = section.get("returns")
    if isinstance(returns, dict) and callable(asset.target):
        try:
            annotation = typing.get_type_hints(asset.target).get("return")
        except Exception:
            annotation = None
        if annotation is not None:
            try:
                referenced = registry.version_of(annotation).asset_id
            except LookupError:
                referenced = None
            if referenced is not None:
                section["returns"] = {**returns, "asset_id": referenced}
    return section


def _replace(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(temporary, "w", encoding="utf-8") as stream:
        stream.write(text)
        stream.flush()
        os.fsync(stream.fileno())
    os.replace(temporary, path)


def write_assets(registry: TrackingRegistry, directory: Path) -> Path:
    """Write ``registry`` into ``directory`` (created if needed); returns ``index.yaml``'s path."""
    directory.mkdir(parents=True, exist_ok=True)
    index: dict[str, Any] = {}
    for asset in registry.assets():
        file_name = asset_file_name(asset.id)
        entry: dict[str, Any] = {"kind": asset.kind, "name": asset.name}
        if asset.semantic is not None:
            entry["semantic"] = asset.semantic
        entry["current_version"] = asset.version
        entry["file"] = file_name
        index[asset.id] = entry
        text = _record_text(
            "asset",
            ASSET_RECORD_VERSION,
            {
                "asset": _asset_section(registry, asset),
                "versions": [_version_entry(version) for version in asset.versions],
            },
        )
        _replace(directory / file_name, text)
    index_path = directory / "index.yaml"
    _replace(index_path, _record_text("asset_index", ASSET_INDEX_RECORD_VERSION, {"assets": index}))
    return index_path
