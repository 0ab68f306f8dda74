"""autobench-index: a columnar index (Parquet) beside YAML record directories.

``build_index(DIR)`` writes ``DIR/index/`` (tables ``runs``, ``observations``,
``scores``, ``spans``, ``llm_calls``, hive-partitioned by benchmark and experiment, each
row tied to its run file's sha256); ``load_index(DIR)`` gives the replayed experiment
from it when it is fresh; ``query(dirs, sql)`` runs DuckDB SQL over the indexes of many
record directories. The YAML records stay the source of truth: an index whose sources
changed is stale and never read. See docs/scale.md.
"""

from autobench.index._build import IndexBuilt, build_index
from autobench.index._layout import index_root
from autobench.index._load import IndexStatus, index_status, load_index
from autobench.index._tables import SCHEMAS, TABLES

__all__ = [
    "SCHEMAS",
    "TABLES",
    "IndexBuilt",
    "IndexStatus",
    "build_index",
    "index_root",
    "index_status",
    "load_index",
]
