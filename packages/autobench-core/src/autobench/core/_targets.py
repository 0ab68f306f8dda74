"""Resolution of ``module:attribute`` targets (tasks, python scorers, schema models).

Rule (spec, "Tasks And Runtime": a callable resolves relative to the
benchmark file before falling back to import paths):

1. When a ``base_dir`` is given and ``<base_dir>/<module path>.py`` or
   ``<base_dir>/<module path>/__init__.py`` exists, ``base_dir`` goes to the
   front of ``sys.path`` and the module is imported from there. A module of
   the same top-level name already imported from elsewhere (another
   benchmark's ``tasks.py``) is dropped from ``sys.modules`` first, so the
   benchmark always gets its own file.
2. Otherwise the module is imported normally.
3. The part after the colon is an attribute path (``Runner.run_case``),
   followed with ``getattr``.

Failures raise :class:`TargetResolutionError` (or the subclass the caller
names) with the target, the directories searched and the underlying error as
``__cause__``, ending with a did-you-mean when a name close to the missing one
exists (:mod:`autobench.core._target_hints`).
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from typing import Any

from autobench.abp import AutobenchError
from autobench.core._target_hints import attribute_hint, module_hint

TARGET_PATTERN = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
"""``module.sub:attr.path``: dotted identifiers on both sides of one colon."""


class TargetResolutionError(AutobenchError):
    """A ``module:attribute`` target could not be resolved (import error, missing
    attribute, or a value of the wrong kind).

    ``module`` is the target's module name (``None`` when there is no target);
    the underlying exception, if any, is the ``__cause__``.
    """

    def __init__(self, message: str, *, module: str | None = None) -> None:
        super().__init__(message)
        self.module = module


def check_target_syntax(value: str, what: str = "target") -> str:
    """Return ``value`` when it has the form ``module:attribute``; raise ``ValueError`` otherwise."""
    if not TARGET_PATTERN.match(value):
        raise ValueError(f"{what} {value!r} must have the form 'module:attribute'")
    return value


def module_file_under(base_dir: Path, module_name: str) -> Path | None:
    """The file of ``module_name`` under ``base_dir`` (module file or package), or ``None``."""
    relative = Path(*module_name.split("."))
    for candidate in (base_dir / relative.with_suffix(".py"), base_dir / relative / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _loaded_from(module: Any, directory: Path) -> bool:
    origin = getattr(module, "__file__", None)
    if origin is None:
        return False
    try:
        Path(origin).resolve().relative_to(directory.resolve())
    except ValueError:
        return False
    return True


def _forget_foreign_modules(module_name: str, base_dir: Path) -> None:
    top = module_name.partition(".")[0]
    loaded = sys.modules.get(top)
    if loaded is None or _loaded_from(loaded, base_dir):
        return
    for name in [name for name in sys.modules if name == top or name.startswith(top + ".")]:
        del sys.modules[name]


def import_target_module(module_name: str, base_dir: Path | None) -> Any:
    """Import ``module_name``, from ``base_dir`` first (rule 1), else normally (rule 2)."""
    if base_dir is not None and module_file_under(base_dir, module_name) is not None:
        directory = str(base_dir)
        if directory in sys.path:
            sys.path.remove(directory)
        sys.path.insert(0, directory)
        importlib.invalidate_caches()
        _forget_foreign_modules(module_name, base_dir)
    return importlib.import_module(module_name)


def resolve_target(
    target: str,
    base_dir: Path | None,
    *,
    what: str,
    where: str | None = None,
    error: type[TargetResolutionError] = TargetResolutionError,
) -> Any:
    """The object ``target`` (``module:attr.path``) names, resolved per the module rule.

    ``what`` names the target in messages (``task``, ``python scorer 'rubric'``);
    ``where`` (``file:line:column``) prefixes them when known. Raises ``error``
    (a :class:`TargetResolutionError` subclass) naming the target, the
    directory searched and the underlying error.
    """
    prefix = f"{where}: " if where else ""
    module_name, _, attribute_path = target.partition(":")
    searched = f"{base_dir} first, then sys.path" if base_dir is not None else "sys.path"
    try:
        value: Any = import_target_module(module_name, base_dir)
    except Exception as exc:
        hint = ""
        if isinstance(exc, ModuleNotFoundError) and _is_part_of(exc.name, module_name):
            hint = module_hint(exc.name or module_name, base_dir)
        raise error(
            f"{prefix}cannot import module {module_name!r} of {what} {target!r} "
            f"(searched {searched}): {type(exc).__name__}: {exc}{hint}",
            module=module_name,
        ) from exc
    walked = module_name
    for part in attribute_path.split("."):
        owner = value
        try:
            value = getattr(owner, part)
        except AttributeError as exc:
            module_file = getattr(sys.modules.get(module_name), "__file__", None)
            raise error(
                f"{prefix}{what} {target!r}: {walked!r} has no attribute {part!r} "
                f"(module file: {module_file}){attribute_hint(owner, part)}",
                module=module_name,
            ) from exc
        walked = f"{walked}.{part}"
    return value


def _is_part_of(missing: str | None, module_name: str) -> bool:
    """Whether the module an import found missing is ``module_name`` or one of its parents
    (not a module it imports)."""
    return missing is not None and (missing == module_name or module_name.startswith(missing + "."))


_EXCEPTION_NAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def resolve_exception_type(name: str, base_dir: Path | None) -> type[BaseException]:
    """The exception class a dotted ``name`` names: a builtin (``TimeoutError``), or
    ``package.module.Class`` (``openai.RateLimitError``), whose longest importable module
    prefix is imported per the module rule (``base_dir`` first) and the rest followed as
    attributes. Raises ``ValueError`` saying what failed (not importable, no such
    attribute, not an exception class)."""
    if not _EXCEPTION_NAME.match(name):
        raise ValueError(f"{name!r} is not a dotted name (module.Class or a builtin)")
    parts = name.split(".")
    value: Any = None
    if len(parts) == 1:
        import builtins

        value = getattr(builtins, name, None)
        if value is None:
            raise ValueError(f"{name!r} is not a builtin; name a class as module.Class")
    else:
        problem = ""
        for split in range(len(parts) - 1, 0, -1):
            module_name = ".".join(parts[:split])
            try:
                value = import_target_module(module_name, base_dir)
            except ModuleNotFoundError as exc:
                if exc.name is not None and not module_name.startswith(exc.name):
                    problem = f"importing {module_name!r} failed: {type(exc).__name__}: {exc}"
                    break
                problem = problem or f"no module named {parts[0]!r}"
                continue
            except Exception as exc:
                problem = f"importing {module_name!r} failed: {type(exc).__name__}: {exc}"
                break
            try:
                for part in parts[split:]:
                    value = getattr(value, part)
            except AttributeError:
                problem = f"module {module_name!r} has no attribute {'.'.join(parts[split:])!r}"
                value = None
            break
        if value is None:
            raise ValueError(f"cannot resolve {name!r}: {problem}")
    if not (isinstance(value, type) and issubclass(value, BaseException)):
        raise ValueError(f"{name!r} is not an exception class")
    return value
