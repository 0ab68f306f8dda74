"""Did-you-mean hints for ``module:attribute`` targets that do not resolve.

A missing attribute is matched against the public callables of the object it was
looked up on (for a module: the callables it defines, not those it imports); a
missing module against the modules beside where it was looked for (the spec's
directory for a top-level name, the parent package for ``pkg.sub``). Matching is
:func:`difflib.get_close_matches` with similarity at least 0.6, the rule of every
other did-you-mean of the spec loader (:func:`autobench.core._keys.did_you_mean`).
"""

from __future__ import annotations

import difflib
import pkgutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

_LISTED = 8
"""How many public callables a hint lists when none is close to the missing name."""


def public_callables(value: Any) -> list[str]:
    """The public (no leading underscore) callable attributes of ``value``, sorted; for a
    module, only the functions and classes it defines (not those it imports), and no
    submodules."""
    own = value.__name__ if isinstance(value, ModuleType) else None
    names = []
    for name in dir(value):
        if name.startswith("_"):
            continue
        try:
            attribute = getattr(value, name)
        except Exception:  # a property that raises is no candidate
            continue
        if isinstance(attribute, ModuleType) or not callable(attribute):
            continue
        defined_in = getattr(attribute, "__module__", own)
        if (
            own is not None
            and isinstance(attribute, (type, *_FUNCTION_TYPES))
            and defined_in != own
        ):
            continue
        names.append(name)
    return sorted(names)


_FUNCTION_TYPES = (type(public_callables), type(len))


def attribute_hint(value: Any, missing: str) -> str:
    """``"; did you mean 'x'?"`` for the public callable of ``value`` closest to ``missing``,
    else the list of its public callables (``"; its public callables: a, b"``), else
    ``"; it defines no public callable"``."""
    names = public_callables(value)
    close = _closest(missing, names)
    if close is not None:
        return f"; did you mean {close!r}?"
    if not names:
        return "; it defines no public callable"
    shown = ", ".join(names[:_LISTED]) + (", ..." if len(names) > _LISTED else "")
    return f"; its public callables: {shown}"


def module_hint(missing: str, base_dir: Path | None) -> str:
    """``"; did you mean 'x'?"`` for the module closest to ``missing`` (a dotted name) among
    the modules of its parent package, or, for a top-level name, those in ``base_dir``;
    ``""`` when none is close or the parent cannot be listed."""
    parent, _, last = missing.rpartition(".")
    if parent:
        package = sys.modules.get(parent)
        search = getattr(package, "__path__", None)
        if search is None:
            return ""
        prefix = parent + "."
    else:
        if base_dir is None:
            return ""
        search, prefix = [str(base_dir)], ""
    close = _closest(last, [info.name for info in pkgutil.iter_modules(list(search))])
    return f"; did you mean '{prefix}{close}'?" if close is not None else ""


def _closest(word: str, names: list[str]) -> str | None:
    found = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    return found[0] if found else None
