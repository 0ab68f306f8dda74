"""The distributions that make up Autobench, in dependency order (no imports: cheap for the CLI)."""

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
    from autobench import __version__

    wheel = f"{distribution.replace('-', '_')}-{__version__}-*.whl"
    return (
        f"install the {distribution} wheel built from the same Autobench source as "
        f"autobench-core, by its path (pip install <wheel directory>/{wheel}), "
        f"not by name from a package index"
    )
