"""Task resolution: from a spec's ``module:function`` target to a callable.

The module rule (relative to the spec's ``base_dir`` first, then the normal
import path) is shared with every other ``module:attribute`` target and
documented in :mod:`autobench.core._targets`. The task's target must resolve
to a callable that can be called as ``task(ctx, case)``: its signature binds two
positional arguments (every other parameter has a default or is keyword-only with
one); a class, a coroutine function or a callable object qualifies when it does.
Every failure raises :class:`TaskResolutionError` (:class:`TaskSignatureError` for
the signature) before any run starts.
"""

from __future__ import annotations

import importlib.util
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autobench.core._targets import TargetResolutionError, module_file_under, resolve_target
from autobench.core.spec import BenchmarkSpec


class TaskResolutionError(TargetResolutionError):
    """The spec's task could not be turned into a callable (missing task, import
    error, missing attribute, or a target that is not callable).

    ``module`` is the task's module name (``None`` when the spec has no task);
    the underlying exception, if any, is the ``__cause__``.
    """


class TaskSignatureError(TaskResolutionError):
    """The spec's task resolves to a callable whose signature cannot take ``(ctx, case)``."""


def resolve_task(spec: BenchmarkSpec) -> Callable[..., Any]:
    """The task callable of ``spec`` (see the module docstring for the rule).

    Raises :class:`TaskResolutionError` naming the target, the directory
    searched and the underlying error, and :class:`TaskSignatureError` when the
    callable cannot be called with two positional arguments; both start with the
    ``file:line:column`` of the target when the spec was read from YAML.
    """
    if spec.task is None:
        raise TaskResolutionError(
            f"benchmark {spec.benchmark.id!r} has no task: set run.python or task.target to 'module:function'"
        )
    target = spec.task.target
    value = resolve_target(
        target, spec.base_dir, what="task", where=spec.task.origin, error=TaskResolutionError
    )
    module_name = target.partition(":")[0]
    if not callable(value):
        where = f"{spec.task.origin}: " if spec.task.origin else ""
        raise TaskResolutionError(
            f"{where}task {target!r} resolves to an object of type {type(value).__name__}, "
            "which is not callable",
            module=module_name,
        )
    check_task_signature(value, target, spec.task.origin)
    return value


def check_task_signature(task: Callable[..., Any], target: str, where: str | None = None) -> None:
    """Raise :class:`TaskSignatureError` when ``task`` cannot be called as ``task(ctx, case)``
    (:meth:`inspect.Signature.bind` with two positional arguments fails); ``where``
    (``file:line:column``) prefixes the message. A callable whose signature Python cannot
    tell (some builtins) passes."""
    try:
        signature = inspect.signature(task)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(None, None)
    except TypeError as exc:
        prefix = f"{where}: " if where else ""
        name = getattr(task, "__name__", type(task).__name__)
        raise TaskSignatureError(
            f"{prefix}task {target!r} cannot be called as task(ctx, case): its signature is "
            f"{name}{signature} ({exc}); expected two positional parameters, ctx and case, "
            "with every other parameter keyword-only or given a default",
            module=target.partition(":")[0],
        ) from None


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
        found = module_file_under(spec.base_dir, module_name)
        if found is not None:
            return found
    try:
        module_spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        return None
    if module_spec is None or not module_spec.origin or not Path(module_spec.origin).is_file():
        return None
    return Path(module_spec.origin)
