"""``autobench schema``: write the editor schemas of benchmark, dataset and pricing YAML."""

from __future__ import annotations

import os
from pathlib import Path

import click

from autobench.cli._console import stdout_console
from autobench.core.plugins import new_plugin_manager
from autobench.core.schemas import (
    BENCHMARK_SCHEMA,
    default_schema_dir,
    schema_version,
    write_editor_schemas,
)


def checkout_root(start: Path) -> Path:
    """The nearest directory from ``start`` upwards that holds ``.git``, else ``start``."""
    start = start.resolve()
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return start


@click.command("schema")
@click.option(
    "--dir",
    "directory",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Directory to write into (default: schemas/<version>/ at the root of the git "
    "checkout holding the current directory, or under the current directory).",
)
@click.option(
    "--with-plugins",
    is_flag=True,
    help="Include the scorer, deriver and post-deriver kinds of the installed plugins (the "
    "judge: kind of autobench-judge, a metric pack's kinds), so an editor completes and checks "
    "them too. Without it the schemas hold the built-in kinds alone, the same on every machine "
    "(what a checkout keeps under schemas/).",
)
def schema_command(directory: Path | None, with_plugins: bool) -> None:
    """Write the JSON schemas editors use to complete and check Autobench YAML.

    Writes benchmark_schema.json (autobench.yaml, both the authoring DSL and the
    structured form), dataset_schema.json (dataset files) and
    pricing_schema.json (pricing files). Existing files are replaced atomically.
    Point a YAML file at its schema with a first line such as:

    \b
        # yaml-language-server: $schema=schemas/<version>/benchmark_schema.json

    The path is relative to the YAML file.
    """
    target = directory or default_schema_dir(checkout_root(Path.cwd()))
    try:
        manager = new_plugin_manager() if with_plugins else None
        written = write_editor_schemas(target, manager)
    except OSError as error:
        raise click.ClickException(
            f"cannot write the schemas into {target}: {error.strerror or error}"
        ) from None
    console = stdout_console()
    for path in written:
        console.print(f"wrote {path}")
    header = Path(os.path.relpath(target / BENCHMARK_SCHEMA, Path.cwd())).as_posix()
    console.print(
        f"Autobench {schema_version()} schemas. First line of an autobench.yaml here:\n"
        f"# yaml-language-server: $schema={header}",
        soft_wrap=True,
    )
