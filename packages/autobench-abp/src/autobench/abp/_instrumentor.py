"""What an instrumentor declares and returns: identity, compatibility, the install handle.

An instrumentor (the :class:`~autobench.abp.Instrumentor` protocol, beside the
runtime it receives in ``_runtime``) is any object with an ``info``
(:class:`InstrumentorInfo`), a ``check()`` returning :class:`Compatibility`, and
``install(runtime)`` returning an :class:`InstrumentationHandle` whose
``close()`` undoes the installation. :class:`~autobench.abp.InstrumentationManager`
checks the target version before ``install`` is ever called.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from importlib import metadata
from types import TracebackType

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from autobench.abp._model import InstrumentationScope

_PACKAGE_VERSION = "0.1.0"

logger = logging.getLogger("autobench.abp.instrumentation")


class CaptureMechanism(StrEnum):
    """How an instrumentor captures evidence, in order of preference."""

    MANUAL = "manual"
    HOOK = "hook"
    WRAPPER = "wrapper"
    PATCH = "patch"


class AbstractionLayer(StrEnum):
    """Which layer of the stack an instrumentor observes."""

    APPLICATION = "application"
    FRAMEWORK = "framework"
    CLIENT = "client"
    TRANSPORT = "transport"


class CompatibilityState(StrEnum):
    """Whether an instrumentor can be installed here.

    ``compatible`` and ``degraded`` (some optional feature missing) install;
    ``unavailable`` (target not installed), ``unsupported`` (target version
    outside the supported range) and ``conflicting`` (something else owns the
    patch point) do not.
    """

    COMPATIBLE = "compatible"
    DEGRADED = "degraded"
    UNAVAILABLE = "unavailable"
    UNSUPPORTED = "unsupported"
    CONFLICTING = "conflicting"


_INSTALLABLE = frozenset({CompatibilityState.COMPATIBLE, CompatibilityState.DEGRADED})


@dataclass(frozen=True, slots=True)
class Compatibility:
    """The result of a compatibility check (or a diagnostic raised while uninstalling)."""

    state: CompatibilityState
    reason: str = ""
    instrumentor: str | None = None
    target_version: str | None = None

    @property
    def status(self) -> CompatibilityState:
        """The state (another name for :attr:`state`)."""
        return self.state

    @property
    def installable(self) -> bool:
        """``True`` for ``compatible`` and ``degraded``."""
        return self.state in _INSTALLABLE

    @classmethod
    def compatible(cls, reason: str = "", **details: str | None) -> Compatibility:
        """Everything the instrumentor needs is present."""
        return cls(CompatibilityState.COMPATIBLE, reason, **details)

    @classmethod
    def degraded(cls, reason: str, **details: str | None) -> Compatibility:
        """Installable, with the feature ``reason`` names missing."""
        return cls(CompatibilityState.DEGRADED, reason, **details)

    @classmethod
    def unavailable(cls, reason: str, **details: str | None) -> Compatibility:
        """The target package is not installed."""
        return cls(CompatibilityState.UNAVAILABLE, reason, **details)

    @classmethod
    def unsupported(cls, reason: str, **details: str | None) -> Compatibility:
        """The target is installed in a version outside the supported range."""
        return cls(CompatibilityState.UNSUPPORTED, reason, **details)

    @classmethod
    def conflicting(cls, reason: str, **details: str | None) -> Compatibility:
        """Another owner replaced or holds the patch point."""
        return cls(CompatibilityState.CONFLICTING, reason, **details)


@dataclass(frozen=True, slots=True)
class InstrumentorInfo:
    """Stable identity and declared behaviour of an instrumentor.

    ``supported_versions`` is a PEP 440 specifier (``">=2,<3"``) checked
    against the installed version of ``target_distribution``; without a target
    the instrumentor observes application code and is always compatible.
    ``capabilities`` lists features such as ``sync``, ``async``, ``streaming``
    and ``native_hook``.
    """

    id: str
    version: str
    target_distribution: str | None = None
    supported_versions: str | None = None
    mechanism: CaptureMechanism = CaptureMechanism.PATCH
    layer: AbstractionLayer = AbstractionLayer.APPLICATION
    span_kinds: tuple[str, ...] = ()
    semantic_families: tuple[str, ...] = ()
    capabilities: tuple[str, ...] = ()
    source_convention: str | None = None
    optional_dependencies: tuple[str, ...] = ()
    package: str = "autobench"
    """Distribution that provides the instrumentor (a third party names its own)."""
    package_version: str | None = None
    """Its version; ``None`` with the default ``package`` means this Autobench's version."""

    def __post_init__(self) -> None:
        if not self.id:
            raise ValueError("an instrumentor id is a non-empty string")
        if self.supported_versions is not None:
            try:
                SpecifierSet(self.supported_versions)
            except InvalidSpecifier as exc:
                raise ValueError(
                    f"instrumentor {self.id!r}: invalid supported_versions "
                    f"{self.supported_versions!r}: {exc}"
                ) from None

    @property
    def key(self) -> tuple[str, str]:
        """``(id, version)``: installs with the same key share one installation."""
        return (self.id, self.version)

    def scope(self, target_version: str | None = None) -> InstrumentationScope:
        """The :class:`InstrumentationScope` stamped on spans of this instrumentor."""
        return InstrumentationScope(
            name=self.id,
            version=self.version,
            package=self.package,
            package_version=self.package_version
            or (_PACKAGE_VERSION if self.package == "autobench" else None),
            mechanism=str(self.mechanism),
            layer=str(self.layer),
            target_package=self.target_distribution,
            target_version=target_version,
            source_convention=self.source_convention,
        )


def installed_version(distribution: str) -> str | None:
    """The installed version of ``distribution``, or ``None`` when it is not installed."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def check_target(info: InstrumentorInfo) -> Compatibility:
    """Check the installed target distribution against ``info.supported_versions``.

    Nothing is imported or patched: only package metadata is read.
    """
    if info.target_distribution is None:
        return Compatibility.compatible(instrumentor=info.id)
    found = installed_version(info.target_distribution)
    if found is None:
        return Compatibility.unavailable(
            f"{info.target_distribution} is not installed", instrumentor=info.id
        )
    if info.supported_versions:
        try:
            supported = Version(found) in SpecifierSet(info.supported_versions)
        except InvalidVersion:
            supported = False
        if not supported:
            return Compatibility.unsupported(
                f"{info.target_distribution} {found} is outside {info.supported_versions}",
                instrumentor=info.id,
                target_version=found,
            )
    return Compatibility.compatible(instrumentor=info.id, target_version=found)


CloseCallback = Callable[[], Compatibility | None]


class InstrumentationHandle:
    """Undoes one installation when closed; also a context manager.

    ``close_callback`` runs once, on the first :meth:`close`. It may return a
    :class:`Compatibility` diagnostic (for example ``conflicting`` when a
    foreign wrapper replaced the patch); non-compatible results are kept in
    :attr:`diagnostics` and logged.
    """

    __slots__ = ("_callback", "_closed", "diagnostics", "info")

    def __init__(
        self,
        close_callback: CloseCallback | Callable[[], object],
        *,
        info: InstrumentorInfo | None = None,
    ) -> None:
        self._callback = close_callback
        self._closed = False
        self.info = info
        self.diagnostics: list[Compatibility] = []

    def __repr__(self) -> str:
        name = None if self.info is None else self.info.id
        return f"InstrumentationHandle({name!r}, closed={self._closed})"

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> Compatibility | None:
        """Undo the installation (only the first call does anything).

        Returns the first diagnostic the close produced, so one handle's
        ``close`` can serve as another handle's ``close_callback``.
        """
        if self._closed:
            return None
        self._closed = True
        outcome = self._callback()
        if (
            isinstance(outcome, Compatibility)
            and outcome.state is not CompatibilityState.COMPATIBLE
        ):
            self.diagnostics.append(outcome)
            logger.warning("instrumentation %s: %s", outcome.state, outcome.reason)
            return outcome
        return None

    def __enter__(self) -> InstrumentationHandle:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
