"""Renewing the stamps of an index whose sources were copied, not changed.

A copied or restored record directory (``cp -r``, ``rsync``, a checkout) gives every
source a new inode and new times: its index is still fresh, by the sha256 of each source,
but every read hashes every source again (about 0.1 s per 10,000 run files here, paid by
each ``report``). :func:`restamp_index` (``autobench index DIR`` on a fresh index) stores
the current stamps of the sources whose bytes are unchanged, so that later reads only
stat them. A source whose bytes differ leaves everything as it was: the index is stale
and is rebuilt, not restamped.
"""

from __future__ import annotations

import os
from pathlib import Path

from autobench.index._layout import (
    FILES,
    FORMAT,
    index_root,
    read_manifest,
    records_version,
)
from autobench.index._load import read_parquet
from autobench.index._sources import (
    STAMP_COLUMNS,
    Source,
    sha256_of,
    sources_table,
    stamp_of,
    stored_stamps,
)


def restamp_index(record_dir: Path | str) -> int:
    """Store the current stamps of the sources of ``record_dir``'s index whose stamp
    changed but whose sha256 did not; return how many were renewed (0: none needed it, or
    the index is not this format, is damaged, or a source changed, was added or was
    removed; the index is then left untouched). Each new stamp is taken before its file
    is hashed, so a file written meanwhile has a newer stamp than the stored one and is
    hashed again by the next check. The ``files`` table is replaced atomically (a
    temporary file renamed over it). Raises ``OSError`` when it cannot be written."""
    root = Path(record_dir)
    manifest = read_manifest(root)
    if (
        manifest is None
        or manifest.get("format") != FORMAT
        or manifest.get("autobench_records") != records_version()
    ):
        return 0
    files = index_root(root) / FILES
    try:
        table = read_parquet(files, [*STAMP_COLUMNS, "sha256"])
        stored = stored_stamps(table)
    except (OSError, ValueError, KeyError):
        return 0
    digests = table.column("sha256").to_pylist()
    prefix = os.path.join(os.fspath(root), "")
    sources: list[Source] = []
    renewed = 0
    for (relative, was), digest in zip(stored, digests, strict=True):
        stamp = stamp_of(prefix + relative)
        if stamp == was:
            sources.append(Source(relative, stamp, digest))
            continue
        if stamp is None or was is None or sha256_of(prefix + relative) != digest:
            return 0  # removed, added or changed: stale, for a rebuild to handle
        sources.append(Source(relative, stamp, digest))
        renewed += 1
    if renewed:
        import pyarrow.parquet as pq

        staged = files.with_name(f".{FILES}.{os.getpid()}.tmp")
        try:
            pq.write_table(sources_table(sources), staged)
            os.replace(staged, files)
        finally:
            staged.unlink(missing_ok=True)
    return renewed
