"""Persist a :class:`TrackingRegistry` as YAML: ``index.yaml`` plus one history file per asset.

``index.yaml`` (record type ``asset_index``) lists each asset with its kind, name,
semantic type, current version and history file; each history file (record type
``asset``) holds the asset's current description and every version with its
parent, state, hashes, source and changes (changed paths and a unified diff).
Files are replaced atomically (temporary file, fsync, rename).
"""

from __future__ import annotations

import hashlib
import os
import re
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from autobench.core.tracking._assets import AssetVersion, TrackedAsset
from autobench.records import render_sections

ASSET_INDEX_RECORD_VERSION = 1
ASSET_RECORD_VERSION = 1
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


class AssetSource(Protocol):
    """What :func:`write_assets` reads of a registry (a ``TrackingRegistry`` is one)."""

    def assets(self) -> Sequence[TrackedAsset]:
        """Every asset, in the order first tracked."""
        ...

    def version_of(self, asset: Any) -> AssetVersion:
        """The version of a tracked object; ``LookupError`` when it is not tracked."""
        ...


def _record_text(record_type: str, version: int, sections: dict[str, Any]) -> str:
    # No JSON schema is published for asset records yet, so no schema comment line.
    return f"record:\n  type: {record_type}\n  version: {version}\n{render_sections(sections)}"


def asset_file_name(asset_id: str) -> str:
    """``tool.create_car`` -> ``tool_create_car.yaml``.

    The readable name is the id with unsafe characters replaced by ``_``; when that
    loses information (``a/b`` and ``a_b``, or ids that differ only in letter case),
    10 hex digits of the id's sha256 are appended, so distinct assets never share a file,
    also on case-insensitive file systems.
    """
    readable = _UNSAFE.sub("_", asset_id).strip("_") or "asset"
    if readable.replace("_", ".", 1) == asset_id:
        return readable + ".yaml"
    return _hashed(readable, asset_id)


def _hashed(readable: str, asset_id: str) -> str:
    digest = hashlib.sha256(asset_id.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{readable}-{digest}.yaml"


def _file_names(asset_ids: list[str]) -> dict[str, str]:
    """A file name per asset id; names that would coincide ignoring letter case get the
    id's hash too, so a case-insensitive file system still keeps them apart."""
    names = {asset_id: asset_file_name(asset_id) for asset_id in asset_ids}
    folded: dict[str, int] = {}
    for name in names.values():
        folded[name.lower()] = folded.get(name.lower(), 0) + 1
    return {
        asset_id: _hashed(name.removesuffix(".yaml"), asset_id)
        if folded[name.lower()] > 1
        else name
        for asset_id, name in names.items()
    }


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


def _asset_section(registry: AssetSource, asset: TrackedAsset) -> dict[str, Any]:
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


def write_assets(registry: AssetSource, directory: Path) -> Path:
    """Write ``registry`` (a ``TrackingRegistry``) into ``directory`` (created if needed);
    returns ``index.yaml``'s path. Raises ``OSError`` when a file cannot be written."""
    directory.mkdir(parents=True, exist_ok=True)
    index: dict[str, Any] = {}
    assets = list(registry.assets())
    file_names = _file_names([asset.id for asset in assets])
    for asset in assets:
        file_name = file_names[asset.id]
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
