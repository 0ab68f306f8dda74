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

import contextlib
import hashlib
import os
import stat
import subprocess
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from autobench.index._arrow import (
    FALSE,
    CastOptions,
    SetLookupOptions,
    call,
    column_array,
    combined,
    string_array,
)
from autobench.index._stat_child import suspects

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


class StampReader:
    """Whether the sources listed in a ``files`` table are as stored, read while the caller
    does other work: by a child process (:mod:`autobench.index._stat_child`, started here,
    which makes the ``stat`` calls on another core and compares each stamp with the stored
    one), or in this process when it cannot be started. ``file`` is the table, open (kept
    open until :meth:`close`: the rows read again later are of the same table, even when
    another one is renamed over it meanwhile); it is read here for the child's input and
    which of the paths ``side`` it holds (:attr:`stored_side`), then no column of it is held
    until a source differs (at a million sources, its paths and stamps were 157 MB of the
    load's peak). :meth:`first_change` waits for the answer; :meth:`close` stops the child
    and closes the table. Raises ``OSError``, ``KeyError`` or ``ValueError`` (pyarrow's
    errors) for a table that cannot be read."""

    def __init__(self, record_dir: Path, file: pq.ParquetFile, side: Iterable[str] = ()) -> None:
        self.root = Path(record_dir)
        self.file = file
        self._child: subprocess.Popen[bytes] | None = None
        table = file.read(columns=STAMP_COLUMNS)
        paths = combined(table.column("path"))
        self.count = len(paths)
        wanted = sorted(set(side))
        self.stored_side: set[str] = set()
        if wanted:
            held = call("is_in", paths, options=SetLookupOptions(string_array(wanted)))
            self.stored_side = set(call("filter", paths, held).to_pylist())
        if self.count >= CHILD_FROM:
            self._child = _start_child(self.root, paths, _stored(table))
        del table, paths
        pa.default_memory_pool().release_unused()  # the table's pages, before the load's

    def close(self) -> None:
        """Stop the child if it still runs (the caller no longer needs the answer), and close
        the table."""
        child, self._child = self._child, None
        if child is not None:
            with contextlib.suppress(OSError):
                child.kill()
            if child.stdout is not None:
                with contextlib.suppress(OSError):
                    child.stdout.close()
            child.wait()
        self.file.close()

    def _suspects(self) -> list[int]:
        """The rows of the sources whose file is not as stored, ascending."""
        count = self.count
        answer = None
        child, self._child = self._child, None
        if child is not None:
            try:
                assert child.stdout is not None
                with child.stdout:
                    answer = child.stdout.read()
            except OSError:
                answer = None
            if child.wait() != 0 or answer is None or len(answer) != count:
                answer = None
        if answer is None:  # no child, or it failed: the same in this process
            table = self.file.read(columns=STAMP_COLUMNS)
            prefix = os.path.join(os.fspath(self.root), "")
            paths = combined(table.column("path")).to_pylist()
            full = (prefix + relative if relative else None for relative in paths)
            kinds, *stamps = _stored(table)
            answer = bytes(suspects(full, kinds, [_int64s(part) for part in stamps], None))
        found = pa.Array.from_buffers(pa.uint8(), count, [None, pa.py_buffer(answer)])
        rows: list[int] = call("indices_nonzero", found).to_pylist()
        return rows

    def first_change(
        self, digests: Callable[[], Mapping[str, str | None]]
    ) -> tuple[str | None, set[str]]:
        """What differs first between the stored sources and the files now (a phrase
        naming the file), or ``None`` when every stored source is unchanged; and
        :attr:`stored_side`. A file whose stamp is unchanged is not read; one whose stamp
        differs is hashed and compared with its stored sha256 (``digests()``, called once,
        at the first such file)."""
        rows = self._suspects()
        if not rows:
            return None, self.stored_side
        stored = self.file.read(columns=STAMP_COLUMNS)
        prefix = os.path.join(os.fspath(self.root), "")
        known: list[Mapping[str, str | None]] = []
        for row in rows:
            relative = stored.column(0)[row].as_py()
            change = _confirmed(prefix, relative, _stored_stamp(stored, row), digests, known)
            if change is not None:
                return change, self.stored_side
        return None, self.stored_side


def _stored(table: pa.Table) -> list[memoryview]:
    """What the stamp reader is given of each source of a ``files`` table (read with
    :data:`STAMP_COLUMNS`), as five pieces over the buffers of Arrow arrays: a byte each
    (absent, stamped, or present without a whole stamp: :mod:`~autobench.index._stat_child`),
    then its size, modification and change times and inode, native int64 each (0 for a
    null)."""
    present = call("cast", call("coalesce", table.column("present"), FALSE), options=_UINT8)
    stamped = call("is_valid", table.column("size"))
    for name in STAMP_COLUMNS[3:]:
        stamped = call("and", stamped, call("is_valid", table.column(name)))
    unstamped = call("cast", call("invert", stamped), options=_UINT8)
    # absent: 0; present: 1, or 2 without a whole stamp
    kinds = call("multiply", present, call("add", unstamped, _UINT8_ONE))
    parts = [_values_of(combined(kinds), 1)]
    for name in STAMP_COLUMNS[2:]:
        parts.append(_values_of(combined(call("coalesce", table.column(name), _ZERO)), 8))
    return parts


def _values_of(values: pa.Array, width: int) -> memoryview:
    """The values of a fixed-width array without nulls (``width`` bytes each), as they are
    in its buffer."""
    start = width * values.offset
    return memoryview(values.buffers()[1])[start : start + width * len(values)]


def _int64s(data: memoryview) -> array[int]:
    values = array("q")
    values.frombytes(data)
    return values


_UINT8 = CastOptions.safe(pa.uint8())
_UINT8_ONE = pa.Array.from_buffers(pa.uint8(), 1, [None, pa.py_buffer(bytes([1]))])[0]
_ZERO = pa.Array.from_buffers(pa.int64(), 1, [None, pa.py_buffer(bytes(8))])[0]


CHILD_FROM = 20_000
"""Sources from which their stamps are read by a child process: below, starting it (some
30 ms here) costs more than the ``stat`` calls it saves this process."""

_CHILD = Path(__file__).with_name("_stat_child.py")
_CHILD_POSSIBLE = (
    bool(sys.executable)
    and not getattr(sys, "frozen", False)  # a bundled application is not a plain interpreter
    and os.stat in os.supports_dir_fd
)
"""Whether this interpreter can run the child: a plain Python whose ``os.stat`` takes a
directory descriptor (not on Windows, where the stamps are read in this process)."""


def _start_child(
    root: Path, paths: pa.Array, stored: list[memoryview]
) -> subprocess.Popen[bytes] | None:
    """The stamp reader child for ``paths`` (a string array) under ``root``, its input
    written (``stored``: what is stored of each, :func:`_stored`); ``None`` when it cannot
    be started (the answer is then made here)."""
    if not isinstance(paths, pa.StringArray) or not _CHILD_POSSIBLE:
        return None
    count, offset = len(paths), paths.offset
    buffers = paths.buffers()
    offsets = array("i")
    offsets.frombytes(memoryview(buffers[1])[4 * offset : 4 * (offset + count + 1)])
    data = memoryview(buffers[2])[offsets[0] : offsets[count]] if count else b""
    try:
        child = subprocess.Popen(
            [sys.executable, "-I", "-S", str(_CHILD), os.fspath(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except (OSError, ValueError):
        return None
    try:
        assert child.stdin is not None
        child.stdin.write(count.to_bytes(8, "little"))
        child.stdin.write(offsets.tobytes())
        child.stdin.write(data)
        for part in stored:
            child.stdin.write(part)
        child.stdin.close()
    except OSError:  # it died: the stamps are read here
        child.kill()
        child.wait()
        return None
    return child


def first_change(
    record_dir: Path,
    files: Path,
    digests: Callable[[], Mapping[str, str | None]],
    side: Iterable[str] = (),
) -> tuple[str | None, set[str]]:
    """:meth:`StampReader.first_change` of the ``files`` table at ``files``. Raises
    ``OSError``, ``KeyError`` or ``ValueError`` (pyarrow's errors) for a table that cannot be
    read."""
    reader = StampReader(record_dir, pq.ParquetFile(files), side)
    try:
        return reader.first_change(digests)
    finally:
        reader.close()


def _stored_stamp(table: pa.Table, row: int) -> Stamp | None:
    here, size, mtime, ctime, inode = (table.column(k)[row].as_py() for k in range(1, 6))
    return (size, mtime, ctime, inode) if here else None


def _confirmed(
    prefix: str,
    relative: str,
    was: Stamp | None,
    digests: Callable[[], Mapping[str, str | None]],
    known: list[Mapping[str, str | None]],
) -> str | None:
    """Whether the source ``relative``, stored with stamp ``was``, really changed: the
    phrase naming the change, else ``None`` (its stamp is the stored one after all, or its
    bytes hash to the stored sha256; ``known`` caches ``digests()``)."""
    path = prefix + relative
    stamp = stamp_of(path)
    if stamp == was:
        return None
    if stamp is None:
        return f"{relative} was removed"
    if was is None:
        return f"{relative} was added"
    if not known:
        known.append(digests())
    if sha256_of(path) != known[0].get(relative):
        return f"{relative} changed"
    return None
