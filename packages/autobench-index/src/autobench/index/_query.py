"""``query``: DuckDB SQL over the indexes of one or many record directories.

Each table of the index (``runs``, ``observations``, ``scores``, ``spans``,
``llm_calls``) is a view over the Parquet files of every experiment found, read with
hive partitioning, so ``benchmark`` and ``experiment`` are columns of every table. An
experiment whose index is missing or stale is indexed first: a query never reads an
index its YAML records no longer match.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from autobench.abp import AutobenchError
from autobench.index._layout import index_root, read_manifest
from autobench.index._live import build_index
from autobench.index._load import index_status
from autobench.index._tables import TABLES

EXPERIMENT_FILE = "experiment.yaml"
SEARCH_DEPTH = 3
"""How deep below a given directory record directories are looked for
(``.autobench/<benchmark>/<experiment>/`` is two levels below ``.autobench``)."""
_NOT_RECORDS = frozenset({"cases", "index", "derived", "schemas", "artifacts"})


class QueryError(AutobenchError, ValueError):
    """A query DuckDB refuses (the message is DuckDB's), or no experiment to query."""


@dataclass(frozen=True, slots=True)
class QueryResult:
    """The result of a query: column names and rows (tuples of Python values), and the
    record directories it read."""

    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]
    experiments: tuple[Path, ...]


def record_dirs(directories: Iterable[Path | str]) -> list[Path]:
    """The record directories (holding ``experiment.yaml``) at or below each of
    ``directories`` (at most :data:`SEARCH_DEPTH` levels down; a record directory's own
    subdirectories are not searched), sorted, each once."""
    found: set[Path] = set()

    def walk(directory: Path, depth: int) -> None:
        if (directory / EXPERIMENT_FILE).is_file():
            found.add(directory)
            return
        if depth == 0:
            return
        try:
            children = sorted(p for p in directory.iterdir() if p.is_dir())
        except OSError:
            return
        for child in children:
            if child.name not in _NOT_RECORDS and not child.name.startswith("."):
                walk(child, depth - 1)

    for directory in directories:
        walk(Path(directory), SEARCH_DEPTH)
    return sorted(found)


def fresh_partitions(
    directories: Iterable[Path | str], say: Callable[[str], object] = lambda _: None
) -> list[Path]:
    """The index partition directory of every experiment found under ``directories``,
    (re)building each missing or stale index first (``say`` is told which, and why)."""
    partitions = []
    for record in record_dirs(directories):
        status = index_status(record)
        if not status.fresh:
            say(f"indexing {record} ({status.reason})")
            build_index(record)
        manifest = read_manifest(record)
        if manifest is None:  # removed under our feet
            raise QueryError(f"the index of {record} disappeared while it was read")
        partitions.append(index_root(record) / str(manifest["partition"]))
    return partitions


def _sql_list(paths: Sequence[Path]) -> str:
    return "[" + ", ".join("'" + str(path).replace("'", "''") + "'" for path in paths) + "]"


def connect(partitions: Sequence[Path]) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with one view per index table over ``partitions``
    (a table no partition has, such as ``llm_calls`` without LLM calls, is still a view:
    over the empty files)."""
    connection = duckdb.connect(":memory:")
    for table in TABLES:
        files = [partition / f"{table}.parquet" for partition in partitions]
        files = [path for path in files if path.is_file()]
        if not files:
            continue
        connection.execute(
            f"CREATE VIEW {table} AS SELECT * FROM read_parquet({_sql_list(files)}, "
            "hive_partitioning = true, hive_types_autocast = false, union_by_name = true)"
        )
    return connection


def query(
    directories: Iterable[Path | str],
    sql: str,
    *,
    say: Callable[[str], object] = lambda _: None,
) -> QueryResult:
    """Run ``sql`` (DuckDB's dialect) over the indexes of every experiment recorded at or
    below ``directories`` (see :func:`record_dirs`, :func:`fresh_partitions`). Raises
    :class:`QueryError` when there is no experiment or DuckDB refuses the query, and what
    :func:`build_index` raises for a record it cannot read."""
    directories = list(directories)
    found = record_dirs(directories)
    if not found:
        named = ", ".join(str(d) for d in directories)
        raise QueryError(f"no recorded experiment (experiment.yaml) at or below {named}")
    partitions = fresh_partitions(found, say)
    connection = connect(partitions)
    try:
        relation = connection.execute(sql)
        description = relation.description or []
        rows = relation.fetchall()
    except duckdb.Error as error:
        raise QueryError(str(error)) from None
    finally:
        connection.close()
    return QueryResult(tuple(item[0] for item in description), rows, tuple(found))
