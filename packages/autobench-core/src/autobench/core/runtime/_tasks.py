"""Task resolution: from a spec's ``module:function`` target to a callable.

Rule (spec, "Tasks And Runtime": the callable resolves relative to the
benchmark file before falling back to import paths):

1. When the spec has a ``base_dir`` and ``<base_dir>/<module path>.py`` or
   ``<base_dir>/<module path>/__init__.py`` exists, ``base_dir`` goes to the
   front of ``sys.path`` and the module is imported from there. A module of
   the same top-level name already imported from elsewhere (another
   benchmark's ``tasks.py``) is dropped from ``sys.modules`` first, so the
   benchmark always gets its own file.
2. Otherwise the module is imported normally.
3. The part after the colon is an attribute path (``Runner.run_case``),
   followed with ``getattr``; the result must be callable.

Every failure raises :class:`TaskResolutionError` before any run starts.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autobench.core.spec import BenchmarkSpec


class TaskResolutionError(Exception):
    """The spec's task could not be turned into a callable (missing task, import
    error, missing attribute, or a target that is not callable).

    ``module`` is the task's module name (``None`` when the spec has no task);
    the underlying exception, if any, is the ``__cause__``.
    """

    def __init__(self, message: str, *, module: str | None = None) -> None:
        super().__init__(message)
        self.module = module


def _module_file_under(base_dir: Path, module_name: str) -> Path | None:
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


def _import_task_module(module_name: str, base_dir: Path | None) -> Any:
    if base_dir is not None and _module_file_under(base_dir, module_name) is not None:
        directory = str(base_dir)
        if directory in sys.path:
            sys.path.remove(directory)
        sys.path.insert(0, directory)
        importlib.invalidate_caches()
        _forget_foreign_modules(module_name, base_dir)
    return importlib.import_module(module_name)


def resolve_task(spec: BenchmarkSpec) -> Callable[..., Any]:
    """The task callable of ``spec`` (see the module docstring for the rule).

    Raises :class:`TaskResolutionError` naming the target, the directory
    searched and the underlying error.
    """
    if spec.task is None:
        raise TaskResolutionError(
            f"benchmark {spec.benchmark.id!r} has no task: set run.python or task.target to 'module:function'"
        )
    target = spec.task.target
    where = f"{spec.task.origin}: " if spec.task.origin else ""
    module_name, _, attribute_path = target.partition(":")
    searched = f"{spec.base_dir} first, then sys.path" if spec.base_dir is not None else "sys.path"
    try:
        value: Any = _import_task_module(module_name, spec.base_dir)
    except Exception as exc:
        raise TaskResolutionError(
            f"{where}cannot import module {module_name!r} of task {target!r} (searched {searched}): "
            f"{type(exc).__name__}: {exc}",
            module=module_name,
        ) from exc
    walked = module_name
    for part in attribute_path.split("."):
        try:
            value = getattr(value, part)
        except AttributeError as exc:
            raise TaskResolutionError(
                f"{where}task {target!r}: {walked!r} has no attribute {part!r} "
                f"(module file: {getattr(sys.modules.get(module_name), '__file__', None)}): {exc}",
                module=module_name,
            ) from exc
        walked = f"{walked}.{part}"
    if not callable(value):
        raise TaskResolutionError(
            f"{where}task {target!r} resolves to an object of type {type(value).__name__}, "
            "which is not callable",
            module=module_name,
        )
    return value


def is_async_task(task: Callable[..., Any]) -> bool:
    """Whether calling ``task`` returns a coroutine (async functions and async ``__call__``)."""
    return inspect.iscoroutinefunction(task) or inspect.iscoroutinefunction(type(task).__call__)


def task_module_file(spec: BenchmarkSpec) -> Path | None:
    """The file of the task module, found without importing it, or ``None``.

    Looks under ``base_dir`` first, then asks the import system; any failure
    gives ``None``.
    """
    if spec.task is None:
        return None
    module_name = spec.task.target.partition(":")[0]
    if spec.base_dir is not None:
        found = _module_file_under(spec.base_dir, module_name)
        if found is not None:
            return found
    try:
        module_spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        return None
    if module_spec is None or not module_spec.origin or not Path(module_spec.origin).is_file():
        return None
    return Path(module_spec.origin)
