"""autobench-index: a columnar index (Parquet) beside YAML record directories.

``build_index(DIR)`` writes ``DIR/index/`` (tables ``runs``, ``observations``,
``scores``, ``spans``, ``llm_calls``, hive-partitioned by benchmark and experiment, each
row tied to its run file's sha256); ``load_index(DIR)`` gives the replayed experiment
from it when it is fresh; ``query(dirs, sql)`` runs DuckDB SQL over the indexes of many
record directories. The YAML records stay the source of truth: an index whose sources
changed is stale and never read. See docs/scale.md.

The names below are imported on first use (PEP 562), so importing the package (as the
plugin manager does, through ``autobench.index._plugin``) imports neither pyarrow nor
DuckDB.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autobench.abp._lazy import lazy_attributes

if TYPE_CHECKING:
    from autobench.index._build import IndexBuilt
    from autobench.index._layout import index_root
    from autobench.index._live import build_index
    from autobench.index._load import IndexStatus, index_status, load_index
    from autobench.index._query import QueryError, QueryResult, query
    from autobench.index._restamp import restamp_index
    from autobench.index._tables import SCHEMAS, TABLES

_WHERE = {
    "IndexBuilt": "_build",
    "build_index": "_live",
    "index_root": "_layout",
    "IndexStatus": "_load",
    "index_status": "_load",
    "load_index": "_load",
    "QueryError": "_query",
    "QueryResult": "_query",
    "query": "_query",
    "restamp_index": "_restamp",
    "SCHEMAS": "_tables",
    "TABLES": "_tables",
}

__all__ = sorted(_WHERE)

__getattr__ = lazy_attributes(__name__, _WHERE)
