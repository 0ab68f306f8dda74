"""The files an index is built from, and whether they are still what they were.

Replay reads ``experiment.yaml``, every planned ``run.yaml``, the summaries
(``summary*.yaml``), the post-derived records (``post_derived*.yaml``) and the derived
records under ``derived/``: these are the index's sources. Each is stored with its
stamp (size, modification and change times, inode) and the sha256 of its bytes; a
planned run file that did not exist is stored as absent. A source is unchanged when its
stamp is the same, or else when the sha256 of its bytes is; a source added or removed is
a change.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from autobench.index._arrow import column_array

EXPERIMENT_FILE = "experiment.yaml"
_SIDE_PATTERNS = ("summary*.yaml", "post_derived*.yaml")
_DERIVED = "derived"

SCHEMA = pa.schema(
    [
        ("path", pa.string()),
        ("present", pa.bool_()),
        ("size", pa.int64()),
        ("mtime_ns", pa.int64()),
        ("ctime_ns", pa.int64()),
        ("inode", pa.int64()),
        ("sha256", pa.string()),
    ]
)


Stamp = tuple[int, int, int, int]
"""``(size, mtime_ns, ctime_ns, inode)`` of a file."""


@dataclass(frozen=True, slots=True)
class Source:
    """One source file: ``path`` relative to the record directory (POSIX), its stamp and
    sha256 (all ``None`` when the file is absent)."""

    path: str
    stamp: Stamp | None
    sha256: str | None


def stamp_of(path: Path | str) -> Stamp | None:
    """``(size, mtime_ns, ctime_ns, inode)`` of the regular file at ``path``, or ``None``."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def sha256_of(path: Path | str) -> str | None:
    """The sha256 (hex) of the bytes of ``path``; ``None`` when it cannot be read."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except (OSError, ValueError):
        return None
    try:
        digest = hashlib.sha256()
        for chunk in _chunks(fd, os.fstat(fd).st_size):
            digest.update(chunk)
        return digest.hexdigest()
    except OSError:
        return None
    finally:
        os.close(fd)


def read_stamped(path: Path | str) -> tuple[bytes, Stamp | None]:
    """The bytes of the file at ``path`` and its stamp (``None`` unless a regular file),
    taken from the open file just before it is read, as :func:`read_sources` stamps a
    source before hashing it. Raises ``OSError`` when it cannot be read."""
    fd = os.open(path, _READ_FLAGS)
    try:
        info = os.fstat(fd)
        data = b"".join(_chunks(fd, info.st_size))
    finally:
        os.close(fd)
    if not stat.S_ISREG(info.st_mode):
        return data, None
    return data, (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
"""Read-only, the bytes as stored (binary on Windows), not inherited by child processes."""
_CHUNK = 1 << 20


def _chunks(fd: int, size: int) -> Iterator[bytes]:
    """The bytes of the open file ``fd`` in a few reads: a small file (a run record: a
    kilobyte or two) in one read of its size, without the 256 KiB buffer
    ``hashlib.file_digest`` allocates per file, which costs more here than hashing the
    file (``size``: its size when opened; a file that grew meanwhile is read to its
    end)."""
    want = min(size + 1, _CHUNK)  # one byte more: a short read, the end, as a rule
    while chunk := os.read(fd, want):
        yield chunk
        # after a short read, the check for the end allocates no large buffer
        want = _CHUNK if len(chunk) == want else 4096


def side_files(record_dir: Path) -> list[str]:
    """The sources besides ``experiment.yaml`` and the run files, sorted."""
    root = Path(record_dir)
    found = {p for pattern in _SIDE_PATTERNS for p in root.glob(pattern) if p.is_file()}
    derived = root / _DERIVED
    if derived.is_dir():
        found.update(p for p in derived.rglob("*") if p.is_file())
    return sorted(p.relative_to(root).as_posix() for p in found)


def read_sources(record_dir: Path, paths: Iterable[str]) -> list[Source]:
    """The :class:`Source` of each of ``paths`` (relative to ``record_dir``), stamped just
    before its bytes are hashed."""
    root = Path(record_dir)
    sources = []
    for relative in paths:
        path = root / relative
        stamp = stamp_of(path)
        digest = None if stamp is None else sha256_of(path)
        sources.append(Source(relative, stamp if digest is not None else None, digest))
    return sources


def sources_table(sources: Iterable[Source]) -> pa.Table:
    """The ``files`` table of ``sources``."""
    rows = list(sources)
    stamps = [s.stamp or (None, None, None, None) for s in rows]
    columns: list[list[Any]] = [
        [s.path for s in rows],
        [s.stamp is not None for s in rows],
        [t[0] for t in stamps],
        [t[1] for t in stamps],
        [t[2] for t in stamps],
        [t[3] for t in stamps],
        [s.sha256 for s in rows],
    ]
    arrays = [
        column_array(column, field.type) for column, field in zip(columns, SCHEMA, strict=True)
    ]
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


STAMP_COLUMNS = ["path", "present", "size", "mtime_ns", "ctime_ns", "inode"]
"""The columns of the ``files`` table that the freshness check reads (not ``sha256``)."""


def stored_stamps(table: pa.Table) -> list[tuple[str, Stamp | None]]:
    """``(path, stamp)`` of every source of a ``files`` table (read with at least
    :data:`STAMP_COLUMNS`); the stamp is ``None`` for a file that was absent."""
    path, present, size, mtime, ctime, inode = (
        table.column(name).to_pylist() for name in STAMP_COLUMNS
    )
    return [
        (p, (s, m, c, i) if here else None)
        for p, here, s, m, c, i in zip(path, present, size, mtime, ctime, inode, strict=True)
    ]


def first_change(
    record_dir: Path,
    stored: Iterable[tuple[str, Stamp | None]],
    digests: Callable[[], Mapping[str, str | None]],
) -> str | None:
    """What differs first between the ``stored`` ``(path, stamp)`` pairs and the files
    under ``record_dir`` now (a phrase naming the file), or ``None`` when every stored
    source is unchanged. A file whose stamp is unchanged is not read; one whose stamp
    differs is hashed and compared with its stored sha256 (``digests()``, called once,
    at the first such file: the hashes are not read while every stamp matches)."""
    prefix = os.path.join(os.fspath(record_dir), "")
    known: Mapping[str, str | None] | None = None
    for relative, was in stored:
        path = prefix + relative  # a string join: 10,000 ``Path / str`` cost more than the stats
        stamp = stamp_of(path)
        if stamp == was:
            continue
        if stamp is None:
            return f"{relative} was removed"
        if was is None:
            return f"{relative} was added"
        if known is None:
            known = digests()
        if sha256_of(path) != known.get(relative):
            return f"{relative} changed"
    return None
