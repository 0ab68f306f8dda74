"""Autobench: a YAML-first benchmark and evidence framework.

The public API is the union of the ``__all__`` of the modules in
``_PUBLIC_MODULES``, re-exported here lazily (PEP 562): ``from autobench import
Case`` imports only the module that declares ``Case``. The first name looked up
reads those ``__all__`` lists from the modules' source, as a type checker does,
without importing them. A name needing a distribution that is not installed
raises an ``ImportError`` naming the distribution to install. This file belongs
to ``autobench-core``; the other distributions add subpackages
(``autobench.abp``, ``autobench.records``, ``autobench.report``,
``autobench.cli``) found through the extended ``__path__``.
"""

from __future__ import annotations

import importlib
import importlib.util
from pkgutil import extend_path
from typing import TYPE_CHECKING, Any

__path__ = extend_path(__path__, __name__)

# The public modules, each with the distribution providing it. Each module's `__all__` is
# its public face; every name in it is a name of `autobench`, and no name is in two of them.
_PUBLIC_MODULES: tuple[tuple[str, str], ...] = (
    ("autobench.abp", "autobench-abp"),
    ("autobench.records", "autobench-records"),
    ("autobench.core.spec", "autobench-core"),
    ("autobench.core.planning", "autobench-core"),
    ("autobench.core.runtime", "autobench-core"),
    ("autobench.core.builder", "autobench-core"),
    ("autobench.core.scoring", "autobench-core"),
    ("autobench.core.derive", "autobench-core"),
    ("autobench.core.postderive", "autobench-core"),
    ("autobench.core.policies", "autobench-core"),
    ("autobench.core.pricing", "autobench-core"),
    ("autobench.core.measurement", "autobench-core"),
    ("autobench.core.tracking", "autobench-core"),
    ("autobench.core.instrumentation", "autobench-core"),
    ("autobench.core.native", "autobench-core"),
    ("autobench.core.packs", "autobench-core"),
    ("autobench.core.bridges", "autobench-core"),
    ("autobench.core.data", "autobench-core"),
    ("autobench.core.feedback", "autobench-core"),
    ("autobench.report", "autobench-report"),
)

_index: dict[str, str] = {}  # public name -> module, filled on the first lookup
_missing: list[str] = []  # distributions of public modules that are not installed


def _declared(module: str) -> list[str] | None:
    """``module.__all__``, read from its source like a type checker does (the module is
    imported only when that is not a literal); None when the module is not installed."""
    try:
        spec = importlib.util.find_spec(module)
    except ModuleNotFoundError:
        return None
    if spec is None:
        return None
    if spec.origin is not None and spec.origin.endswith(".py"):
        import ast

        with open(spec.origin, "rb") as source:
            tree = ast.parse(source.read(), spec.origin)
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
            ):
                try:
                    return list(ast.literal_eval(node.value))
                except ValueError:
                    break
    return list(importlib.import_module(module).__all__)


def _public_index() -> dict[str, str]:
    if not _index and not _missing:
        for module, distribution in _PUBLIC_MODULES:
            names = _declared(module)
            if names is None:
                if distribution not in _missing:
                    _missing.append(distribution)
                continue
            _index.update(dict.fromkeys(names, module))
    return _index


def _distribution_of(module: str) -> str | None:
    for public, distribution in _PUBLIC_MODULES:
        if module == public or module.startswith(public + "."):
            return distribution
    return None


def _not_installed(name: str, distribution: str, relation: str) -> ImportError:
    from autobench.core.distributions import install_hint

    return ImportError(
        f"autobench.{name} {relation} the {distribution!r} distribution, which is not "
        f"installed; {install_hint(distribution)}"
    )


def __getattr__(name: str) -> Any:
    if name == "__all__":
        return sorted(_public_index())
    if name == "__version__":  # read on use: importing autobench imports no subpackage
        from autobench.core.distributions import __version__

        return __version__
    if name.startswith("_"):
        raise AttributeError(f"module 'autobench' has no attribute {name!r}")
    module_name = _public_index().get(name)
    if module_name is None:
        if _missing:  # the name may be declared by a distribution that is not installed
            relation = "is not in the installed distributions; if public, it is provided by"
            raise _not_installed(name, _missing[0], relation)
        raise AttributeError(f"module 'autobench' has no attribute {name!r}")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        distribution = _distribution_of(exc.name or "")
        if distribution is None:
            raise
        raise _not_installed(name, distribution, "needs") from exc
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*_public_index(), "__version__"})


if TYPE_CHECKING:  # pragma: no cover - the static view: what each public module's __all__ names
    from autobench.abp import *  # noqa: F403
    from autobench.core.bridges import *  # noqa: F403
    from autobench.core.builder import *  # noqa: F403
    from autobench.core.data import *  # noqa: F403
    from autobench.core.derive import *  # noqa: F403
    from autobench.core.distributions import __version__ as __version__
    from autobench.core.feedback import *  # noqa: F403
    from autobench.core.instrumentation import *  # noqa: F403
    from autobench.core.measurement import *  # noqa: F403
    from autobench.core.native import *  # noqa: F403
    from autobench.core.packs import *  # noqa: F403
    from autobench.core.planning import *  # noqa: F403
    from autobench.core.policies import *  # noqa: F403
    from autobench.core.postderive import *  # noqa: F403
    from autobench.core.pricing import *  # noqa: F403
    from autobench.core.runtime import *  # noqa: F403
    from autobench.core.scoring import *  # noqa: F403
    from autobench.core.spec import *  # noqa: F403
    from autobench.core.tracking import *  # noqa: F403
    from autobench.records import *  # noqa: F403
    from autobench.report import *  # noqa: F403
