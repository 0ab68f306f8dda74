"""Tracked assets (prompts, tools, output types) bound to the spans of agent runs.

``PydanticAIInstrumentor(assets=[...])`` takes the objects Autobench's tracking
registry gave the user: a ``TrackedPrompt`` or an ``AssetVersion`` (both carry
``asset_id``, ``name`` and ``version``), or a tracked function or class, whose
version the registry (``autobench.core.tracking.track``) looks up. Each becomes an
:class:`AssetRef`, fixed when the instrumentor is built: the version bound is the
one the benchmark started with.

Every agent span gets an ``asset`` reference per asset (``ref_id`` the asset id,
attributes ``version`` and ``kind``), and a ``tool`` asset also goes on the spans
of the tool of its name; the runtime copies ``asset`` references into the run
record's ``asset_versions``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autobench.abp._detached import DetachedSpan

ASSET_REFERENCE = "asset"
"""The reference kind of a tracked asset on a span."""


@dataclass(frozen=True, slots=True)
class AssetRef:
    """One tracked asset version: ``asset_id``, ``name``, ``version`` and ``kind``
    (``prompt``, ``tool``, ``type``, ...)."""

    asset_id: str
    name: str
    version: str
    kind: str

    @classmethod
    def of(cls, asset: Any) -> AssetRef:
        """The reference of ``asset`` (see the module docstring).

        Raises ``TypeError`` for an object that is neither an asset version nor
        tracked (with the registry's own message when it was asked).
        """
        if isinstance(asset, AssetRef):
            return asset
        asset_id, version = getattr(asset, "asset_id", None), getattr(asset, "version", None)
        if isinstance(asset_id, str) and isinstance(version, str):
            kind = getattr(asset, "kind", None)
            return cls(
                asset_id,
                str(getattr(asset, "name", None) or asset_id),
                version,
                kind if isinstance(kind, str) else _kind_of(asset),
            )
        try:
            from autobench.core.tracking import track
        except ImportError:
            raise TypeError(
                f"{asset!r} is not an asset version (no asset_id and version), and "
                "autobench-core, which tracks assets, is not installed"
            ) from None
        try:
            found = track.version_of(asset)
        except LookupError as exc:
            raise TypeError(f"PydanticAI(assets=...): {exc}") from None
        return cls(found.asset_id, found.name, found.version, found.kind)

    def names(self, tool: str) -> bool:
        """Whether this asset is the tool called ``tool`` (its name, or its last dotted part)."""
        return tool in (self.name, self.name.rsplit(".", 1)[-1])

    def bind(self, span: DetachedSpan) -> None:
        """Add this asset's reference to ``span``."""
        span.span.add_reference(
            ASSET_REFERENCE,
            self.asset_id,
            name=self.name,
            attributes={"version": self.version, "kind": self.kind},
        )


def _kind_of(asset: Any) -> str:
    return "prompt" if type(asset).__name__ == "TrackedPrompt" else "asset"
