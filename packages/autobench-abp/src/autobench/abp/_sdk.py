"""A base for instrumentors whose SDK side is imported only when they are installed.

Listing integrations, the doctor and ``InstrumentationManager.check`` build
instrumentors and call ``check()``; none of them may import the SDK. A
:class:`DeferredInstrumentor` keeps that rule once for every distribution: its
``check()`` is ``compatible`` without importing anything (the manager has already
compared the installed version with ``info.supported_versions``, from package
metadata), and :meth:`~DeferredInstrumentor.install` checks the version again (an
instrumentor installed without a manager is refused the same way), then imports
``install_module`` and calls its ``install(info, runtime, target_version,
**install_options())``, which patches or registers and returns the handle.
"""

from __future__ import annotations

import importlib
from typing import Any, ClassVar

from autobench.abp._instrumentor import (
    Compatibility,
    InstrumentationHandle,
    InstrumentorInfo,
    check_target,
)
from autobench.abp._manager import InstrumentationError
from autobench.abp._runtime import InstrumentationRuntime


class DeferredInstrumentor:
    """An :class:`~autobench.abp.Instrumentor` whose SDK code lives in ``install_module``.

    Subclasses set ``install_module`` (a module with an ``install`` function of the
    shape above) and return their options from :meth:`install_options`.
    :meth:`install` raises :class:`~autobench.abp.InstrumentationError` when the SDK is
    missing or outside the supported range, before the module is imported.
    """

    install_module: ClassVar[str]

    def __init__(self, info: InstrumentorInfo) -> None:
        self.info = info

    def check(self) -> Compatibility:
        """Always ``compatible``, without importing the SDK (see the module docstring);
        :meth:`install` refuses an SDK that lacks a required seam."""
        return Compatibility.compatible()

    def install_options(self) -> dict[str, Any]:
        """The keyword arguments of ``install_module.install`` (default: none)."""
        return {}

    def install(self, runtime: InstrumentationRuntime) -> InstrumentationHandle:
        """Check the installed version, import ``install_module`` and install through it."""
        target = check_target(self.info)
        if not target.installable:
            raise InstrumentationError(target)
        module = importlib.import_module(self.install_module)
        handle: InstrumentationHandle = module.install(
            self.info, runtime, target.target_version, **self.install_options()
        )
        return handle
