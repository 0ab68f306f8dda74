"""The distributions that make up Autobench, in dependency order (no imports: cheap for the CLI)."""

DISTRIBUTIONS: tuple[str, ...] = (
    "autobench",
    "autobench-abp",
    "autobench-records",
    "autobench-core",
    "autobench-report",
    "autobench-cli",
)
