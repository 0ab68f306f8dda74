"""Editor schemas of the YAML files users write: benchmark specs, datasets, pricing.

:func:`editor_schemas` builds them from the models the loader validates with
(file name -> JSON schema, draft 2020-12); :func:`write_editor_schemas`
writes them into a directory, conventionally ``schemas/<version>/`` of a
checkout, where a file's ``# yaml-language-server: $schema=<relative path>``
header points. Only the built-in scorer, deriver and post-deriver kinds are
described unless a plugin manager is passed.
"""

from __future__ import annotations

import functools
import json
import os
from importlib import metadata
from pathlib import Path
from typing import Any

import pluggy

from autobench.core.plugins import new_plugin_manager
from autobench.core.schemas._benchmark import benchmark_schema
from autobench.core.schemas._files import dataset_schema, pricing_schema

BENCHMARK_SCHEMA = "benchmark_schema.json"
DATASET_SCHEMA = "dataset_schema.json"
PRICING_SCHEMA = "pricing_schema.json"


@functools.cache
def schema_version() -> str:
    """The version the schemas describe: the installed ``autobench-core`` version."""
    try:
        return metadata.version("autobench-core")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source tree without metadata
        return "0.1.0"


def editor_schemas(manager: pluggy.PluginManager | None = None) -> dict[str, dict[str, Any]]:
    """File name -> schema, for :data:`BENCHMARK_SCHEMA`, :data:`DATASET_SCHEMA` and
    :data:`PRICING_SCHEMA`. ``manager`` defaults to the built-ins alone (no entry points),
    so the result does not depend on the plugins installed."""
    manager = manager or new_plugin_manager(load_entry_points=False)
    return {
        BENCHMARK_SCHEMA: benchmark_schema(manager),
        DATASET_SCHEMA: dataset_schema(),
        PRICING_SCHEMA: pricing_schema(),
    }


def schema_text(schema: dict[str, Any]) -> str:
    """The canonical text of a schema file: 2-space JSON, keys in order, trailing newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def default_schema_dir(base: Path | str = ".") -> Path:
    """``<base>/schemas/<version>``: where a checkout keeps its editor schemas."""
    return Path(base) / "schemas" / schema_version()


def write_editor_schemas(
    directory: Path | str, manager: pluggy.PluginManager | None = None
) -> list[Path]:
    """Write every editor schema into ``directory`` (created if missing); returns the paths.

    Each file is replaced atomically (temporary file in the same directory, then
    rename), so an editor never reads half a schema. Raises ``OSError`` when the
    directory cannot be created or written.
    """
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in editor_schemas(manager).items():
        path = target / name
        temporary = target / f".{name}.{os.getpid()}.tmp"
        try:
            temporary.write_text(schema_text(schema), encoding="utf-8")
            os.replace(temporary, path)
        finally:
            temporary.unlink(missing_ok=True)
        written.append(path)
    return written


__all__ = [
    "BENCHMARK_SCHEMA",
    "DATASET_SCHEMA",
    "PRICING_SCHEMA",
    "default_schema_dir",
    "editor_schemas",
    "schema_text",
    "schema_version",
    "write_editor_schemas",
]
