"""Names of a package imported on first use (PEP 562), for packages that the plugin manager
imports in every command but whose modules pull in heavy dependencies (pyarrow, Ray, the
runtime) that most commands never need."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` for ``package``: the name ``name`` is read from the
    submodule ``package.<where[name]>``, imported on first use. Any other name raises
    ``AttributeError`` as a missing module attribute does."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    return __getattr__
