"""The plugins a command works with: the :class:`AutobenchPlugins` an embedding application
(or a test) gives the command as its click object, else the process default.

    cli.main(args, obj=AutobenchPlugins(my_plugin))      # or CliRunner().invoke(cli, args, obj=...)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from autobench.core.plugins import AutobenchPlugins


def command_plugins() -> AutobenchPlugins:
    """The :class:`AutobenchPlugins` of the running command's context (``obj``), else
    :func:`~autobench.core.plugins.default_plugins`."""
    from autobench.core.plugins import AutobenchPlugins, default_plugins

    context = click.get_current_context(silent=True)
    found = None if context is None else context.find_object(AutobenchPlugins)
    return default_plugins() if found is None else found


def check_executor(name: str | None, plugins: AutobenchPlugins) -> None:
    """Refuse an ``--executor`` the plugins do not know: a usage error (exit 2) naming the
    known executors."""
    if name is not None and name not in plugins.executors:
        raise click.BadParameter(
            f"unknown executor {name!r}; known executors: {', '.join(plugins.executors.names())}",
            param_hint="'--executor'",
        )
