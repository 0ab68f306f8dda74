"""The integrations Autobench knows, found without importing any SDK.

An integration is an instrumentor distribution (``autobench-instrument-httpx``,
...) whose import package ``autobench.instrument.<id>`` has:

* a ``package`` module with ``INFO``, the :class:`~autobench.abp.InstrumentorInfo`
  (identity, layer, mechanism, supported versions). It imports only ABP, so
  listing integrations never imports an SDK;
* a ``create(settings)`` factory returning the :class:`~autobench.abp.Instrumentor`.
  Its module imports the SDK only when the instrumentor is installed.

The built-in integrations are listed here whether or not their
distribution is installed, so that the doctor can say what to install. Third
parties add :class:`IntegrationEntry` values through the
``autobench_instrumentors`` hook.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import metadata
from typing import Any, Required, TypedDict

from autobench.abp import Compatibility, InstrumentationManager, Instrumentor, InstrumentorInfo
from autobench.core.distributions import install_hint
from autobench.core.native._settings import (
    SETTINGS_MODELS,
    IntegrationSettings,
)


@dataclass(frozen=True, slots=True)
class IntegrationEntry:
    """How to find one integration: ``id`` (YAML key), the ``distribution`` that provides it,
    its import ``module`` (``package`` and ``create`` live there), the pip ``extra`` of
    ``autobench`` that installs it, and the SDK ``targets`` it instruments."""

    id: str
    distribution: str
    module: str
    extra: str | None = None
    targets: tuple[str, ...] = ()
    settings: type[IntegrationSettings] | None = None

    def install_hint(self) -> str:
        """What to install to get this integration."""
        return install_hint(self.distribution)


class IntegrationFields(TypedDict, total=False):
    """The fields of an :class:`IntegrationEntry` as a plain mapping: what an instrumentor
    distribution's ``autobench_instrumentors`` hook may return without importing the core."""

    id: Required[str]
    distribution: Required[str]
    module: Required[str]
    extra: str | None
    targets: Sequence[str]
    settings: type[IntegrationSettings] | None


BUILTIN_INTEGRATIONS: tuple[IntegrationEntry, ...] = (
    IntegrationEntry(
        "pydantic_ai",
        "autobench-instrument-pydantic-ai",
        "autobench.instrument.pydantic_ai",
        "pydantic-ai",
        ("pydantic-ai-slim",),
        SETTINGS_MODELS["pydantic_ai"],
    ),
    IntegrationEntry(
        "openai",
        "autobench-instrument-openai",
        "autobench.instrument.openai",
        "openai",
        ("openai",),
        SETTINGS_MODELS["openai"],
    ),
    IntegrationEntry(
        "openai_agents",
        "autobench-instrument-openai-agents",
        "autobench.instrument.openai_agents",
        "openai-agents",
        ("openai-agents",),
        SETTINGS_MODELS["openai_agents"],
    ),
    IntegrationEntry(
        "httpx",
        "autobench-instrument-httpx",
        "autobench.instrument.httpx",
        "httpx",
        ("httpx", "httpx2"),
        SETTINGS_MODELS["httpx"],
    ),
    IntegrationEntry(
        "opentelemetry",
        "autobench-opentelemetry",
        "autobench.opentelemetry._import",
        "opentelemetry",
        ("opentelemetry-sdk",),
        SETTINGS_MODELS["opentelemetry"],
    ),
)
"""The built-in integrations, in the order discovery installs them."""


def merged_entries(
    contributed: Iterable[IntegrationEntry | Mapping[str, Any]],
) -> tuple[IntegrationEntry, ...]:
    """The built-in entries followed by the contributed ones. A contribution is an
    :class:`IntegrationEntry` or a mapping of its fields (so an instrumentor distribution
    needs no import of the core to announce itself); one with a built-in id replaces the
    built-in entry but keeps its settings model. Raises ``TypeError`` for anything else."""
    entries = {entry.id: entry for entry in BUILTIN_INTEGRATIONS}
    for item in contributed:
        if isinstance(item, Mapping):
            fields = dict(item)
            fields["targets"] = tuple(fields.get("targets", ()))
            item = IntegrationEntry(**fields)
        if not isinstance(item, IntegrationEntry):
            raise TypeError(
                f"an autobench_instrumentors plugin returned {item!r}, not an IntegrationEntry"
            )
        known = entries.get(item.id)
        if known is not None and item.settings is None:
            item = replace(item, settings=known.settings)
        entries[item.id] = item
    return tuple(entries.values())


def distribution_version(name: str) -> str | None:
    """The installed version of distribution ``name`` (package metadata only), or ``None``."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


@dataclass(frozen=True, slots=True)
class IntegrationStatus:
    """What the environment offers of one integration.

    ``installed`` is the version of its distribution (``None``: not installed);
    ``info`` its declared :class:`InstrumentorInfo` when installed; ``targets`` the
    installed version of each SDK it instruments; ``compatibility`` whether it can be
    installed here (without installing it); ``supported`` the SDK versions it supports.
    """

    entry: IntegrationEntry
    installed: str | None
    info: InstrumentorInfo | None
    targets: dict[str, str | None]
    compatibility: Compatibility
    supported: str | None = None
    """The supported SDK versions: ``INFO.supported_versions``, or the ``SUPPORTED`` ranges
    per target of an integration that instruments several SDKs."""

    @property
    def name(self) -> str:
        return self.entry.id


def integration_info(entry: IntegrationEntry) -> InstrumentorInfo | None:
    """``INFO`` of the integration's ``package`` module, or ``None`` when its distribution is
    not installed. Imports nothing but that module (never the SDK)."""
    if distribution_version(entry.distribution) is None:
        return None
    info = getattr(_package(entry), "INFO", None)
    if not isinstance(info, InstrumentorInfo):
        raise TypeError(f"{entry.module}.package.INFO is not an InstrumentorInfo")
    return info


def _package(entry: IntegrationEntry) -> Any:
    return importlib.import_module(f"{entry.module}.package")


def _supported(entry: IntegrationEntry, info: InstrumentorInfo | None) -> str | None:
    ranges = getattr(_package(entry), "SUPPORTED", None)
    if isinstance(ranges, dict):
        return "; ".join(f"{target} {spec}" for target, spec in ranges.items())
    return None if info is None else info.supported_versions


def create_instrumentor(
    entry: IntegrationEntry, settings: IntegrationSettings | None
) -> Instrumentor:
    """The integration's instrumentor for ``settings`` (``None``: its defaults). Imports the
    integration's module; raises ``ImportError`` when its distribution is not installed."""
    module = importlib.import_module(entry.module)
    factory: Any = module.create
    instrumentor: Instrumentor = factory(settings)
    return instrumentor


def status_of(entry: IntegrationEntry) -> IntegrationStatus:
    """The :class:`IntegrationStatus` of ``entry``: installed distribution and SDKs, and the
    compatibility the instrumentor itself reports (its version checks read package
    metadata; no SDK is imported or patched)."""
    targets = {name: distribution_version(name) for name in entry.targets}
    installed = distribution_version(entry.distribution)
    if installed is None:
        return IntegrationStatus(
            entry,
            None,
            None,
            targets,
            Compatibility.unavailable(
                f"{entry.distribution} is not installed ({entry.install_hint()})",
                instrumentor=entry.id,
            ),
        )
    info: InstrumentorInfo | None = None
    supported: str | None = None
    try:
        info = integration_info(entry)
        supported = _supported(entry, info)
        compatibility = _check(create_instrumentor(entry, None))
    except Exception as exc:  # a broken integration is a status, never a crash of the doctor
        compatibility = Compatibility.unsupported(
            f"{entry.module} could not be loaded: {type(exc).__name__}: {exc}",
            instrumentor=entry.id,
        )
    return IntegrationStatus(entry, installed, info, targets, compatibility, supported)


def _check(instrumentor: Instrumentor) -> Compatibility:
    return InstrumentationManager().check(instrumentor)
