"""The stamp reader: a child process that ``stat``s the sources of an index and compares
each with the stamp stored for it.

Run as ``python -I -S _stat_child.py RECORD_DIR`` (the standard library only, so it starts in
a few tens of milliseconds and imports nothing of Autobench's). Its standard input holds an
8-byte little-endian count ``n``; the paths (relative to ``RECORD_DIR``) as ``n + 1``
little-endian int32 offsets into the bytes that follow (Arrow's string layout); then what
is stored of each source (:func:`suspects`): ``n`` bytes (``0``: stored as absent, ``1``:
stored with a stamp, ``2``: stored as present without a whole stamp) and four arrays of ``n``
native int64 (size, modification and change times in nanoseconds, inode; any value where
the byte is not ``1``). It answers once every file is read, on its standard output: ``n``
bytes, ``1`` for a source whose stamp differs from the stored one (or that appeared or
vanished), ``0`` for one that is as stored. On a million files the ``stat`` calls are most of
the freshness check (a few microseconds of kernel time each), and this process makes them on
another core while the reader loads the index
(:class:`~autobench.index._sources.StampReader`), which then holds no path or stamp of its
own meanwhile.
"""

import os
import stat
import sys
from array import array
from collections.abc import Iterable, Sequence
from itertools import pairwise
from typing import Any, BinaryIO

ABSENT, STAMPED, UNSTAMPED = 0, 1, 2
"""What is stored of a source: absent, present with its stamp, present without a whole one
(always a suspect)."""


def main() -> None:
    """Read the paths and the stored stamps, stat each path, write the answer (module
    docstring)."""
    source = sys.stdin.buffer
    count = int.from_bytes(_exactly(source, 8), "little")
    offsets = array("i")
    offsets.frombytes(_exactly(source, 4 * (count + 1)))
    if sys.byteorder != "little":
        offsets.byteswap()
    data = _exactly(source, offsets[count] - offsets[0]) if count else b""
    base = offsets[0] if count else 0
    stored = _exactly(source, count)
    stamps = []
    for _ in range(4):
        column = array("q")
        column.frombytes(_exactly(source, 8 * count))
        stamps.append(column)
    paths = (data[start - base : end - base] for start, end in pairwise(offsets))
    root = os.open(sys.argv[1], os.O_RDONLY)
    out = sys.stdout.buffer
    out.write(suspects(paths, stored, stamps, root))
    out.flush()


def suspects(
    paths: Iterable[Any], stored: Sequence[int], stamps: Sequence[Sequence[int]], dir_fd: int | None
) -> bytearray:
    """For each of ``paths`` (``None`` or empty: no file), ``1`` when its file now differs
    from what is stored of it, else ``0``: ``stored[k]`` (:data:`ABSENT`, :data:`STAMPED`,
    :data:`UNSTAMPED`) and, when stamped, ``stamps`` (size, modification and change times in
    nanoseconds, inode; one sequence each). A source differs when it is a regular file now
    and was stored absent or without a whole stamp, when it is none now and was stored
    present, or when its stamp is another. Each path is ``stat``ed relative to ``dir_fd``
    (``None``: as it is). Also used by the reader itself when it reads the stamps in its
    own process."""
    found = bytearray(len(stored))
    size, mtime, ctime, inode = stamps
    regular = stat.S_ISREG
    lookup = os.stat
    k = -1
    for k, path in enumerate(paths):
        info = None
        if path:
            try:
                info = lookup(path, dir_fd=dir_fd)
            except (OSError, ValueError):
                info = None
        if info is None or not regular(info.st_mode):
            if stored[k] != ABSENT:
                found[k] = 1
        elif (
            stored[k] != STAMPED
            or info.st_size != size[k]
            or info.st_mtime_ns != mtime[k]
            or info.st_ctime_ns != ctime[k]
            or info.st_ino != inode[k]
        ):
            found[k] = 1
    if k + 1 != len(stored):
        raise ValueError(f"{k + 1} paths for {len(stored)} stored sources")
    return found


def _exactly(source: BinaryIO, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = source.read(left)
        if not chunk:
            raise SystemExit("the input ended early")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


if __name__ == "__main__":
    main()
