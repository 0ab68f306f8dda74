"""Run import-linter (``lint-imports``) over every distribution of the ``autobench`` namespace.

    uv run python tools/lint_imports.py [lint-imports options]

The contracts are ``[tool.importlinter]`` in the root ``pyproject.toml``.
import-linter's graph builder (grimp) finds a root package's directories with
``importlib.util.find_spec``. ``autobench`` is a pkgutil-style namespace: its
``__init__.py`` belongs to autobench-core and adds the other distributions'
directories (abp, records, report, cli, instrument-*) to ``__path__`` only when it
runs, so ``find_spec`` alone names autobench-core's directory and the contracts
would see a third of the code. This script imports ``autobench`` (cheap: the facade
is lazy), lets its module spec list every directory of the extended ``__path__``,
and runs import-linter's own command unchanged.
"""

from __future__ import annotations

import sys

from importlinter.cli import lint_imports_command

import autobench


def see_whole_namespace() -> list[str]:
    """Make ``find_spec("autobench")`` list every installed distribution's directory;
    returns them."""
    spec = autobench.__spec__
    assert spec is not None and spec.submodule_search_locations is not None
    spec.submodule_search_locations[:] = list(autobench.__path__)
    return list(spec.submodule_search_locations)


if __name__ == "__main__":
    see_whole_namespace()
    sys.exit(lint_imports_command())
