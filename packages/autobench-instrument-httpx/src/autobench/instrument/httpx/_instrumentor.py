"""The HTTPX instrumentor: compatibility of both flavours, install and exact uninstall.

Two distributions share one API: ``httpx`` 0.28 (what most libraries use)
and ``httpx2`` (its successor, used by the OpenAI SDK 3.x). Each is checked
on its own against :data:`~autobench.instrument.httpx.package.SUPPORTED`, by
package metadata only (nothing is imported before ``install``), and only the
flavours inside their range are patched.

The seam is a public method patch (mechanism ``patch``) of ``Client.send``
and ``AsyncClient.send`` of each patched flavour, through the ABP
:class:`~autobench.abp._patching.MethodPatch` (exact restoration, stacking
with other owners, conflict diagnostics). When ``httpx`` is aliased to
``httpx2`` (``httpx2.alias_httpx()``) the shared classes are patched once.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import replace
from types import ModuleType

from autobench.abp import (
    Compatibility,
    CompatibilityState,
    InstrumentationError,
    InstrumentationHandle,
    InstrumentationRuntime,
    InstrumentorInfo,
    check_target,
)
from autobench.abp._patching import MethodPatch
from autobench.instrument.httpx import package
from autobench.instrument.httpx._capture import CapturePlan, Settings
from autobench.instrument.httpx._send import SendContext, async_send_factory, sync_send_factory
from autobench.instrument.httpx._streams import StreamSpan, stream_types


def flavour_checks(
    supported: Mapping[str, str], info: InstrumentorInfo = package.INFO
) -> list[tuple[str, Compatibility]]:
    """``(distribution, compatibility)`` for each flavour of ``supported``, from metadata only.

    States: ``compatible`` (installed inside its range), ``unsupported``
    (installed outside it, or with an unreadable version), ``unavailable``.
    """
    return [
        (name, check_target(replace(info, target_distribution=name, supported_versions=spec)))
        for name, spec in supported.items()
    ]


def combine(checks: list[tuple[str, Compatibility]], instrumentor: str) -> Compatibility:
    """One :class:`Compatibility` from the per-flavour checks.

    ``compatible`` when every installed flavour is inside its range (at least
    one installed); ``degraded`` when one is inside and another outside;
    ``unsupported`` when only flavours outside their range are installed;
    ``unavailable`` when none is installed. Reasons name the versions.
    """
    good = [(name, found) for name, found in checks if found.installable]
    bad = [found for _, found in checks if found.state is CompatibilityState.UNSUPPORTED]
    if good:
        using = ", ".join(f"{name} {found.target_version}" for name, found in good)
        if bad:
            reasons = "; ".join(found.reason for found in bad)
            return Compatibility.degraded(
                f"{reasons}: not instrumented; instrumenting {using}", instrumentor=instrumentor
            )
        return Compatibility.compatible(f"instrumenting {using}", instrumentor=instrumentor)
    if bad:
        return Compatibility.unsupported(
            "; ".join(found.reason for found in bad), instrumentor=instrumentor
        )
    if not checks:
        return Compatibility.unavailable(
            "no HTTPX flavour is configured", instrumentor=instrumentor
        )
    names = " nor ".join(name for name, _ in checks)
    return Compatibility.unavailable(
        f"neither {names} is installed" if len(checks) > 1 else f"{names} is not installed",
        instrumentor=instrumentor,
    )


class _Installation:
    """The patches of one install and the stream spans still open; closed once."""

    __slots__ = ("patches", "registry", "runtime")

    def __init__(self, runtime: InstrumentationRuntime) -> None:
        self.runtime = runtime
        self.patches: list[MethodPatch] = []
        self.registry: set[StreamSpan] = set()

    def patch_flavour(self, module: ModuleType, context: SendContext) -> None:
        sync_stream, async_stream = stream_types(module)
        client, async_client = module.Client, module.AsyncClient
        self.patches.append(MethodPatch(client, "send", sync_send_factory(context, sync_stream)))
        self.patches.append(
            MethodPatch(async_client, "send", async_send_factory(context, async_stream))
        )

    def close(self) -> Compatibility | None:
        """Abandon open streams, restore every patch; return the first conflict found."""
        for state in list(self.registry):
            state.abandon()
        found = [diagnostic for patch in reversed(self.patches) if (diagnostic := patch.restore())]
        self.patches.clear()
        for diagnostic in found[1:]:
            self.runtime.report(diagnostic)
        return found[0] if found else None


class HTTPXInstrumentor:
    """ABP instrumentor for ``httpx`` and ``httpx2`` clients (transport layer).

    ``settings`` is the core's ``HTTPXInstrumentation`` (any object with a
    ``capture`` of that shape; ``None``: path hash, no headers, no bodies).
    ``supported`` overrides the version ranges of
    :data:`~autobench.instrument.httpx.package.SUPPORTED` (read at each check
    when not given). Raises ``ValueError`` for invalid capture settings.
    """

    def __init__(
        self, settings: Settings | None = None, *, supported: Mapping[str, str] | None = None
    ) -> None:
        self.info: InstrumentorInfo = package.INFO
        self.settings = settings
        self._supported = None if supported is None else dict(supported)
        CapturePlan.from_settings(settings)  # validate now, before any install

    @property
    def supported(self) -> dict[str, str]:
        """Distribution -> PEP 440 range checked before patching."""
        return dict(package.SUPPORTED if self._supported is None else self._supported)

    def check(self) -> Compatibility:
        """Both flavours' versions, by package metadata (see :func:`combine`)."""
        return combine(flavour_checks(self.supported, self.info), self.info.id)

    def install(self, runtime: InstrumentationRuntime) -> InstrumentationHandle:
        """Patch ``send`` of every supported flavour's ``Client`` and ``AsyncClient``.

        Versions are checked again first; raises
        :class:`~autobench.abp.InstrumentationError` (nothing patched) when no
        flavour is installed inside its range or none can be imported.
        """
        checks = flavour_checks(self.supported, self.info)
        names = [name for name, found in checks if found.installable]
        if not names:
            raise InstrumentationError(combine(checks, self.info.id))
        plan = CapturePlan.from_settings(self.settings, runtime.capture_policy)
        installation = _Installation(runtime)
        context = SendContext(runtime, plan, installation.registry)
        seen: set[int] = set()
        try:
            for name in names:
                try:
                    module = importlib.import_module(name)
                except ImportError as exc:
                    runtime.report(
                        Compatibility.degraded(
                            f"{name} could not be imported: {exc}", instrumentor=self.info.id
                        )
                    )
                    continue
                if id(module.Client) in seen:  # httpx aliased to httpx2: one set of classes
                    continue
                seen.add(id(module.Client))
                installation.patch_flavour(module, context)
        except BaseException:
            installation.close()
            raise
        if not installation.patches:
            raise InstrumentationError(
                Compatibility.unsupported(
                    f"none of {', '.join(names)} could be imported", instrumentor=self.info.id
                )
            )
        return InstrumentationHandle(installation.close, info=self.info)
