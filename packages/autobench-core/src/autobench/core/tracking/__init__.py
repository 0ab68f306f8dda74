"""Asset tracking: content-hashed versions of prompts, tools, types and other assets.

``track`` (the default :class:`TrackingRegistry`) versions what an application
uses; ``ctx.attach_tracked_asset(asset)`` copies an exact version into the
run record; :func:`write_assets` persists the history as YAML.
"""

from autobench.core.tracking._describe import canonical_json as canonical_json
from autobench.core.tracking._describe import content_hash as content_hash
from autobench.core.tracking._export import ASSET_INDEX_RECORD_VERSION as ASSET_INDEX_RECORD_VERSION
from autobench.core.tracking._export import ASSET_RECORD_VERSION as ASSET_RECORD_VERSION
from autobench.core.tracking._export import write_assets as write_assets
from autobench.core.tracking._registry import (
    AssetVersion,
    TrackedPrompt,
    TrackingRegistry,
    UntrackedAssetError,
    track,
)
from autobench.core.tracking._registry import TrackedAsset as TrackedAsset
from autobench.core.tracking._views import FieldAsset, ToolAsset, TypeAsset

__all__ = [
    "AssetVersion",
    "FieldAsset",
    "ToolAsset",
    "TrackedPrompt",
    "TrackingRegistry",
    "TypeAsset",
    "UntrackedAssetError",
    "track",
]
