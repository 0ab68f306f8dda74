"""The instrumentation manager: checked, reference-counted installs.

:meth:`InstrumentationManager.install` checks the target distribution's
version before the instrumentor touches anything, installs each
``(id, version)`` once however many owners ask for it, and undoes the
installation when the last owner's handle closes (or the manager closes).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from types import TracebackType

from autobench.abp._errors import AutobenchError
from autobench.abp._instrumentor import (
    Compatibility,
    CompatibilityState,
    InstrumentationHandle,
    InstrumentorInfo,
    check_target,
)
from autobench.abp._runtime import InstrumentationRuntime, Instrumentor


class InstrumentationError(AutobenchError, RuntimeError):
    """An instrumentor could not be installed; :attr:`compatibility` says why."""

    def __init__(self, compatibility: Compatibility) -> None:
        super().__init__(
            f"{compatibility.instrumentor or 'instrumentor'}: {compatibility.state}: "
            f"{compatibility.reason}"
        )
        self.compatibility = compatibility


@dataclass(slots=True)
class _Installation:
    info: InstrumentorInfo
    inner: InstrumentationHandle
    runtime: InstrumentationRuntime
    owners: int = 0


class InstrumentationManager:
    """Installs instrumentors for a benchmark's lifetime; a context manager.

    ``capture_policy`` is handed to every instrumentor through its
    :class:`InstrumentationRuntime`.
    """

    def __init__(self, *, capture_policy: object | None = None) -> None:
        self.capture_policy = capture_policy
        self._lock = threading.RLock()
        self._installations: dict[str, _Installation] = {}
        self.diagnostics: list[Compatibility] = []

    def check(self, instrumentor: Instrumentor) -> Compatibility:
        """Target version first (no import, no patch), then the instrumentor's own ``check()``."""
        info = instrumentor.info
        target = check_target(info)
        if not target.installable:
            return target
        try:
            own = instrumentor.check()
        except Exception as exc:
            return Compatibility.unsupported(
                f"check() raised {type(exc).__name__}: {exc}",
                instrumentor=info.id,
                target_version=target.target_version,
            )
        if own.target_version is None and own.instrumentor is None:
            own = Compatibility(own.state, own.reason, info.id, target.target_version)
        return own

    def install(self, instrumentor: Instrumentor) -> InstrumentationHandle:
        """Install ``instrumentor`` (or take another reference to its installation).

        Raises :class:`InstrumentationError` when the check is not installable,
        or when another version of the same id is installed (``conflicting``).
        """
        info = instrumentor.info
        with self._lock:
            current = self._installations.get(info.id)
            if current is not None and current.info.version != info.version:
                raise InstrumentationError(
                    Compatibility.conflicting(
                        f"version {current.info.version} is already installed",
                        instrumentor=info.id,
                    )
                )
            if current is None:
                compatibility = self.check(instrumentor)
                if not compatibility.installable:
                    raise InstrumentationError(compatibility)
                runtime = InstrumentationRuntime(
                    info,
                    target_version=compatibility.target_version,
                    capture_policy=self.capture_policy,
                )
                if compatibility.state is CompatibilityState.DEGRADED:
                    runtime.report(compatibility)
                current = _Installation(info, instrumentor.install(runtime), runtime)
                self._installations[info.id] = current
            current.owners += 1
        return InstrumentationHandle(lambda: self._release(info.id), info=info)

    def _release(self, instrumentor_id: str) -> Compatibility | None:
        with self._lock:
            current = self._installations.get(instrumentor_id)
            if current is None:
                return None
            current.owners -= 1
            if current.owners > 0:
                return None
            del self._installations[instrumentor_id]
        current.inner.close()
        found = [*current.runtime.diagnostics, *current.inner.diagnostics]
        self.diagnostics.extend(found)
        conflicts = [d for d in found if d.state is CompatibilityState.CONFLICTING]
        return conflicts[0] if conflicts else None

    def owners(self, instrumentor_id: str) -> int:
        """How many open handles share the installation of ``instrumentor_id``."""
        with self._lock:
            current = self._installations.get(instrumentor_id)
            return 0 if current is None else current.owners

    @property
    def installed(self) -> tuple[InstrumentorInfo, ...]:
        """The instrumentors currently installed, in install order."""
        with self._lock:
            return tuple(item.info for item in self._installations.values())

    def close(self) -> None:
        """Uninstall everything, whatever handles are still open."""
        with self._lock:
            installations = list(self._installations.values())
            self._installations.clear()
        for item in reversed(installations):
            item.inner.close()
            self.diagnostics.extend([*item.runtime.diagnostics, *item.inner.diagnostics])

    def __enter__(self) -> InstrumentationManager:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
