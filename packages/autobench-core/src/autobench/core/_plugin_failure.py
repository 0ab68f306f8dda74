"""What to say when an ``autobench`` plugin fails to load: the entry point, the
distribution that declared it, and the plugin's own file and line."""

from __future__ import annotations

import importlib.metadata

import pluggy

from autobench.core._hookspecs import ENTRY_POINT_GROUP


def _where(error: BaseException) -> str:
    """`` at FILE:LINE``: a syntax error's own file and line, else the innermost frame of
    ``error``'s traceback outside the import machinery (the plugin's own line that
    failed), or ``""`` when there is none."""
    if isinstance(error, SyntaxError) and error.filename and error.lineno:
        column = f":{error.offset}" if error.offset else ""
        return f" at {error.filename}:{error.lineno}{column}"
    found = ""
    trace = error.__traceback__
    while trace is not None:
        code = trace.tb_frame.f_code
        if not code.co_filename.startswith("<frozen "):
            found = f" at {code.co_filename}:{trace.tb_lineno}"
        trace = trace.tb_next
    return found


def _failing_entry_point(manager: pluggy.PluginManager) -> str:
    """``the 'autobench' plugin 'name = value' (from distribution D V)`` for the entry
    point of the group that did not register: the first whose load fails again, else the
    first unregistered (its module loaded, its registration failed); ``an 'autobench'
    plugin`` when none is found."""
    pending = [
        (distribution, entry_point)
        for distribution in importlib.metadata.distributions()
        for entry_point in distribution.entry_points
        if entry_point.group == ENTRY_POINT_GROUP
        and not manager.has_plugin(entry_point.name)
        and not manager.is_blocked(entry_point.name)
    ]
    if not pending:
        return "an 'autobench' plugin"
    found = pending[0]
    for distribution, entry_point in pending:
        try:
            entry_point.load()
        except Exception:
            found = (distribution, entry_point)
            break
    distribution, entry_point = found
    metadata = distribution.metadata
    return (
        f"the 'autobench' plugin '{entry_point.name} = {entry_point.value}'"
        f" (from distribution {metadata['Name']} {metadata['Version']})"
    )


def plugin_failure(manager: pluggy.PluginManager, error: BaseException) -> str:
    """The message of an ``autobench`` plugin that failed to load with ``error``, while
    ``manager`` was loading the group's entry points."""
    return (
        f"{_failing_entry_point(manager)} failed to load"
        f"{_where(error)}: {type(error).__name__}: {error}"
    )
