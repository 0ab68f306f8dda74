"""The distributions that make up Autobench, in dependency order (nothing imported but sys: cheap
for the CLI)."""

import sys

__version__ = "0.1.0"
"""The version of autobench-core, and of every distribution built from the same source
(``autobench.__version__``)."""

DISTRIBUTIONS: tuple[str, ...] = (
    "autobench",
    "autobench-abp",
    "autobench-records",
    "autobench-core",
    "autobench-report",
    "autobench-cli",
)


def install_hint(distribution: str) -> str:
    """How to install ``distribution`` (one of Autobench's): its wheel built from the same
    Autobench source as the installed autobench-core, named by file path, so that pip takes
    only its third-party requirements from the package index. Never by name: another
    project publishes under Autobench's names on the public index."""
    wheel = f"{distribution.replace('-', '_')}-{__version__}-*.whl"
    return (
        f"install the {distribution} wheel built from the same Autobench source as "
        f"autobench-core, by its path (pip install <wheel directory>/{wheel}), "
        f"not by name from a package index"
    )


def package_directories() -> tuple[str, ...]:
    """The directories of the ``autobench`` package: one per distribution in an editable
    install (its extended ``__path__``). The package is always imported before any of its
    subpackages, so this reads it from ``sys.modules`` instead of importing the facade."""
    return tuple(sys.modules["autobench"].__path__)
