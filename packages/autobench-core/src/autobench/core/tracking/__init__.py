"""Asset tracking: content-hashed versions of prompts, tools, types and other assets.

``track`` (the default :class:`TrackingRegistry`) versions what an application
uses; ``ctx.attach_tracked_asset(asset)`` copies an exact version into the
run record; :func:`write_assets` persists the history as YAML.
"""

from autobench.core.tracking._describe import canonical_json, content_hash
from autobench.core.tracking._export import (
    ASSET_INDEX_RECORD_VERSION,
    ASSET_RECORD_VERSION,
    write_assets,
)
from autobench.core.tracking._registry import (
    AssetVersion,
    TrackedAsset,
    TrackedPrompt,
    TrackingRegistry,
    UntrackedAssetError,
    track,
)
from autobench.core.tracking._views import FieldAsset, ToolAsset, TypeAsset

__all__ = [
    "ASSET_INDEX_RECORD_VERSION",
    "ASSET_RECORD_VERSION",
    "AssetVersion",
    "FieldAsset",
    "ToolAsset",
    "TrackedAsset",
    "TrackedPrompt",
    "TrackingRegistry",
    "TypeAsset",
    "UntrackedAssetError",
    "canonical_json",
    "content_hash",
    "track",
    "write_assets",
]
