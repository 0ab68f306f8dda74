"""The stamp reader: a child process that ``stat``s the sources of an index.

Run as ``python -I -S _stat_child.py RECORD_DIR`` (the standard library only, so it starts in
a few tens of milliseconds and imports nothing of Autobench's). Its standard input holds
the paths (relative to ``RECORD_DIR``): an 8-byte little-endian count ``n``, then ``n + 1``
little-endian int32 offsets into the bytes that follow (Arrow's string layout). It answers
once every file is read, on its standard output: ``n`` status bytes (``1``: a regular
file, ``0``: absent or not a regular file) then four arrays of ``n`` native int64
(size, modification and change times in nanoseconds, inode; ``0`` where the status is
``0``). On a million files the ``stat`` calls are most of the freshness check (a few
microseconds of kernel time each), and this process makes them on another core while the
reader loads the index (:class:`~autobench.index._sources.StampReader`).
"""

import os
import stat
import sys
from array import array
from collections.abc import Callable
from typing import Any, BinaryIO


def main() -> None:
    """Read the paths, stat each, write the answer (module docstring)."""
    source = sys.stdin.buffer
    count = int.from_bytes(_exactly(source, 8), "little")
    offsets = array("i")
    offsets.frombytes(_exactly(source, 4 * (count + 1)))
    if sys.byteorder != "little":
        offsets.byteswap()
    data = _exactly(source, offsets[count] - offsets[0]) if count else b""
    base = offsets[0] if count else 0
    root = os.open(sys.argv[1], os.O_RDONLY)
    answer = stamp_answer(
        count,
        lambda k: data[offsets[k] - base : offsets[k + 1] - base],
        lambda path: os.stat(path, dir_fd=root),
    )
    out = sys.stdout.buffer
    out.write(answer)
    out.flush()


def stamp_answer(
    count: int,
    path_at: Callable[[int], Any],
    lookup: Callable[[Any], os.stat_result],
) -> bytes:
    """The answer for ``count`` paths (module docstring): ``path_at(k)`` gives the k-th path
    (``None`` or empty: absent), ``lookup`` stats one. Also used by the reader itself when
    it reads the stamps in its own process."""
    status = bytearray(count)
    columns = [array("q", bytes(8 * count)) for _ in range(4)]
    size, mtime, ctime, inode = columns
    regular = stat.S_ISREG
    for k in range(count):
        path = path_at(k)
        if not path:
            continue
        try:
            info = lookup(path)
        except (OSError, ValueError):
            continue
        if regular(info.st_mode):
            status[k] = 1
            size[k] = info.st_size
            mtime[k] = info.st_mtime_ns
            ctime[k] = info.st_ctime_ns
            inode[k] = info.st_ino
    return bytes(status) + b"".join(column.tobytes() for column in columns)


def _exactly(source: BinaryIO, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = source.read(left)
        if not chunk:
            raise SystemExit("the paths ended early")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


if __name__ == "__main__":
    main()
