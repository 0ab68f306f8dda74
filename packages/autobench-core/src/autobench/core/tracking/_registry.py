"""The tracking registry: content-hashed versions of prompts, tools, types and other assets.

:class:`TrackingRegistry` keeps every tracked asset with its version history in
memory; the decorators return the object they receive (or, for the class
decorators that transform a class, what the transformer returned), so static
typing is unchanged. ``track`` is the process-wide default registry.
"""

from __future__ import annotations

import builtins
import dataclasses as _dataclasses
import difflib
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, dataclass_transform, overload

from autobench.abp import AutobenchError
from autobench.core.tracking._assets import AssetVersion, TrackedAsset
from autobench.core.tracking._describe import (
    content_hash,
    describe_callable,
    describe_class,
    jsonable,
    qualified_name,
    short_hash,
    source_of,
    text_hash,
)
from autobench.core.tracking._export import write_assets
from autobench.records import render_sections

_F = TypeVar("_F", bound=Callable[..., Any])
_C = TypeVar("_C", bound=builtins.type)
_V = TypeVar("_V")
_MISSING: Any = object()

SEMANTICS = {"prompt": "prompt.version", "tool": "agent.tool"}
"""Semantic type of the asset kinds that have one."""


class TrackedPrompt:
    """A tracked prompt text: ``raw`` (and ``str(prompt)``) is the text, ``version`` its hash."""

    __slots__ = ("asset_id", "name", "raw", "source_path", "version")

    def __init__(
        self, *, name: str, raw: str, version: str, asset_id: str, source_path: str | None
    ) -> None:
        self.name = name
        self.raw = raw
        self.version = version
        self.asset_id = asset_id
        self.source_path = source_path

    def __str__(self) -> str:
        return self.raw

    def __repr__(self) -> str:
        return f"TrackedPrompt(name={self.name!r}, version={self.version!r})"


class UntrackedAssetError(AutobenchError, LookupError):
    """Raised when an object, or asset id, is not known to the registry."""


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, Mapping) and value:
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat.update(_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    return {prefix: value}


def changed_paths(old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[str, ...]:
    """Dotted paths whose value differs between two states."""
    before, after = _flatten(old), _flatten(new)
    return tuple(
        sorted(
            key
            for key in before.keys() | after.keys()
            if before.get(key, _MISSING) != after.get(key, _MISSING)
        )
    )


def state_yaml(state: Mapping[str, Any]) -> str:
    """The canonical YAML of a state (the text diffs are computed from)."""
    text = render_sections(dict(state))
    return "".join(line for line in text.splitlines(keepends=True) if line.strip())


def state_diff(old: AssetVersion, new_state: Mapping[str, Any], new_version: str) -> str:
    """Unified diff (``--- <old version>`` / ``+++ <new version>``) of two states' YAML."""
    lines = difflib.unified_diff(
        state_yaml(old.state).splitlines(),
        state_yaml(new_state).splitlines(),
        fromfile=old.version,
        tofile=new_version,
        lineterm="",
    )
    return "\n".join(lines) + "\n"


class TrackingRegistry:
    """Tracked assets and their version histories; safe to use from several threads."""

    def __init__(self) -> None:
        self._assets: dict[str, TrackedAsset] = {}
        self._objects: dict[int, tuple[Any, AssetVersion]] = {}
        self._lock = threading.RLock()

    # -- reading -----------------------------------------------------------------

    def assets(self) -> tuple[TrackedAsset, ...]:
        """Every tracked asset, in the order first tracked."""
        with self._lock:
            return tuple(self._assets.values())

    def get(self, asset: Any) -> TrackedAsset:
        """The :class:`TrackedAsset` of an asset id, tracked object or :class:`TrackedPrompt`."""
        with self._lock:
            asset_id = self.version_of(asset).asset_id
            return self._assets[asset_id]

    def version_of(self, asset: Any) -> AssetVersion:
        """The exact version of ``asset``: a :class:`TrackedPrompt` or :class:`AssetVersion`
        gives its own; an asset id its current version; a tracked object (function, class,
        value) the version recorded when it was tracked. Raises :class:`UntrackedAssetError`."""
        with self._lock:
            if isinstance(asset, AssetVersion):
                return asset
            if isinstance(asset, TrackedAsset):
                return asset.current
            if isinstance(asset, TrackedPrompt):
                tracked = self._assets.get(asset.asset_id)
                if tracked is not None:
                    for version in reversed(tracked.versions):
                        if version.version == asset.version:
                            return version
                raise UntrackedAssetError(f"prompt {asset.name!r} is not tracked by this registry")
            entry = self._objects.get(id(asset))
            if entry is not None and entry[0] is asset:
                return entry[1]
            if isinstance(asset, str) and asset in self._assets:
                return self._assets[asset].current
        raise UntrackedAssetError(f"{asset!r} is not a tracked asset (track it with `track`)")

    def clear(self) -> None:
        """Forget every asset (tests and long-lived processes)."""
        with self._lock:
            self._assets.clear()
            self._objects.clear()

    # -- recording ---------------------------------------------------------------

    def record(
        self,
        kind: str,
        name: str,
        state: Mapping[str, Any],
        *,
        target: Any = _MISSING,
        version: str | None = None,
        parent_version: str | None = None,
        source_path: str | None = None,
        source_hash: str | None = None,
    ) -> AssetVersion:
        """Add ``state`` as the newest version of asset ``<kind>.<name>`` (no new version when
        it equals the current one) and return that version."""
        asset_id = f"{kind}.{name}"
        full = {"kind": kind, "name": name, **state}
        digest = content_hash(full)
        number = version or short_hash(digest)
        with self._lock:
            tracked = self._assets.get(asset_id)
            if tracked is None:
                tracked = TrackedAsset(
                    id=asset_id, kind=kind, name=name, semantic=SEMANTICS.get(kind)
                )
                self._assets[asset_id] = tracked
            current = tracked.versions[-1] if tracked.versions else None
            if current is not None and current.version == number and current.content_hash == digest:
                result = current
            else:
                parent = parent_version or (current.version if current is not None else None)
                result = AssetVersion(
                    asset_id=asset_id,
                    kind=kind,
                    name=name,
                    version=number,
                    content_hash=digest,
                    state=full,
                    parent=parent,
                    source_path=source_path,
                    source_hash=source_hash,
                    changes=changed_paths(current.state, full) if current else ("initial",),
                    diff=state_diff(current, full, number) if current else None,
                )
                tracked.versions.append(result)
            if target is not _MISSING:
                tracked.target = target
                self._objects[id(target)] = (target, result)
            return result

    def prompt(
        self,
        name: str,
        text: str | None = None,
        *,
        path: str | Path | None = None,
        source: str | Path | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> TrackedPrompt:
        """Track a prompt given inline (``text``) or read from a UTF-8 file (``path``, or its
        alias ``source``); exactly one of them is required."""
        file = path if path is not None else source
        if (text is None) == (file is None):
            raise ValueError("track.prompt needs exactly one of text= or path=")
        source_path: str | None = None
        if file is not None:
            source_path = str(file)
            text = Path(file).read_text(encoding="utf-8")
        assert text is not None
        state: dict[str, Any] = {"text": text}
        if metadata:
            state["metadata"] = jsonable(metadata)
        recorded = self.record(
            "prompt",
            name,
            state,
            source_path=source_path,
            source_hash=text_hash(text) if source_path else None,
        )
        prompt = TrackedPrompt(
            name=name,
            raw=text,
            version=recorded.version,
            asset_id=recorded.asset_id,
            source_path=source_path,
        )
        with self._lock:
            self._assets[recorded.asset_id].target = prompt
            self._objects[id(prompt)] = (prompt, recorded)
        return prompt

    def tool(self, function: _F) -> _F:
        """Track a tool callable (signature, annotations, doc, source hash); returns it unchanged."""
        state = describe_callable(function)
        source_path = _source_path(function)
        name = getattr(function, "__name__", None) or qualified_name(function)
        self.record(
            "tool",
            name,
            state,
            target=function,
            source_path=source_path,
            source_hash=state.get("source_hash"),
        )
        return function

    def _track_type(self, cls: _C, decorator: Mapping[str, Any] | None = None) -> _C:
        state = describe_class(cls)
        if decorator is not None:
            state["decorator"] = dict(decorator)
        self.record("type", cls.__name__, state, target=cls, source_path=_source_path(cls))
        return cls

    def decorate_type(
        self, decorator: Callable[..., Any], /, *args: Any, **options: Any
    ) -> Callable[[_C], _C]:
        """A class decorator applying ``decorator(cls, *args, **options)`` then tracking the
        result as a type; the decorator and its options are stored in the asset."""

        def apply(cls: _C) -> _C:
            result = decorator(cls, *args, **options)
            metadata: dict[str, Any] = {"name": qualified_name(decorator)}
            if args:
                metadata["args"] = jsonable(list(args))
            if options:
                metadata["options"] = jsonable(options)
            return self._track_type(result, metadata)

        return apply

    @overload
    def asset(self, name: str, value: _V, *, kind: str = ..., version: str | None = ...,
              parent_version: str | None = ..., source_path: str | None = ...,
              metadata: Mapping[str, Any] | None = ...) -> _V: ...  # fmt: skip

    @overload
    def asset(self, name: str | None = ..., *, kind: str = ..., version: str | None = ...,
              parent_version: str | None = ..., source_path: str | None = ...,
              metadata: Mapping[str, Any] | None = ...) -> Callable[[_V], _V]: ...  # fmt: skip

    def asset(
        self,
        name: str | None = None,
        value: Any = _MISSING,
        *,
        kind: str = "asset",
        version: str | None = None,
        parent_version: str | None = None,
        source_path: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Any:
        """Track any value (configuration, routing table, policy, callable) as ``<kind>.<name>``
        and return it unchanged; without ``value`` it is a decorator (name defaults to the
        decorated object's ``__name__``). ``version`` overrides the content hash."""

        def track_value(target: Any) -> Any:
            asset_name = name or getattr(target, "__name__", None)
            if not asset_name:
                raise ValueError("track.asset needs a name for values without __name__")
            if isinstance(target, builtins.type):
                state = describe_class(target)
            elif callable(target):
                state = describe_callable(target)
            else:
                state = {"value": jsonable(target)}
            if metadata:
                state["metadata"] = jsonable(metadata)
            self.record(
                kind,
                asset_name,
                state,
                target=target,
                version=version,
                parent_version=parent_version,
                source_path=source_path or _source_path(target),
                source_hash=state.get("source_hash"),
            )
            return target

        if value is _MISSING:
            return track_value
        return track_value(value)

    def write_assets(self, directory: str | Path) -> Path:
        """Write ``index.yaml`` and one history file per asset into ``directory``; returns
        the index path. See :func:`autobench.core.tracking.write_assets`."""
        return write_assets(self, Path(directory))

    # ``type`` and ``dataclass`` last: inside the class body they shadow the builtins.

    def type(self, cls: _C) -> _C:
        """Track a class (pydantic model, dataclass, enum, typed class); returns it unchanged."""
        return self._track_type(cls)

    @overload
    def dataclass(self, cls: _C, /) -> _C: ...

    @overload
    def dataclass(self, /, **options: Any) -> Callable[[_C], _C]: ...

    @dataclass_transform()
    def dataclass(self, cls: Any = None, /, **options: Any) -> Any:
        """``dataclasses.dataclass`` (with ``options``) plus tracking as a type asset."""
        apply = self.decorate_type(_dataclasses.dataclass, **options)
        return apply if cls is None else apply(cls)


def _source_path(obj: Any) -> str | None:
    return source_of(obj)[0]


track = TrackingRegistry()
"""The process-wide default registry (``from autobench import track``)."""
