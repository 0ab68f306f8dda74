"""The stamps and hashes of the run files a live index read: :class:`RunSources`.

The live index stamps and hashes each run file it reads (its row in the ``files`` table).
Kept as a :class:`~autobench.index._sources.Source` a run in a dictionary by path, that
took about 450 bytes a run while the runs went on (450 MB at a million runs); here each
planned run has a fixed place, its plan position (``run.index`` of the file), in arrays
made once for the plan: 73 bytes a planned run, and the ``files`` rows of the plan are
Arrow arrays over those buffers at the end, no object made per run. A run file whose
position is outside the plan is kept by path; one found at another planned run's path than
its position's, or a second file at one position, is *misplaced*: the live index then
builds the index from the YAML instead.
"""

from __future__ import annotations

import binascii
from array import array
from collections.abc import Sequence

import pyarrow as pa

from autobench.index._arrow import column_array
from autobench.index._sources import SCHEMA, Source, Stamp

_DIGEST = 32
"""Bytes of a sha256."""

_ABSENT, _STAMPED, _UNSTAMPED = 0, 1, 2
"""A planned run's state: not read; read, with a stamp; read from what was not a regular
file (no stamp, as :func:`~autobench.index._sources.read_stamped` gives it)."""


_READ_BITS = bytes.maketrans(b"\x00\x01\x02", b"011")
_STAMPED_BITS = bytes.maketrans(b"\x00\x01\x02", b"010")


def _bitmap(state: bytearray, bits: bytes) -> pa.Buffer:
    """The LSB-first bitmap (Arrow's layout) of ``state`` mapped to ``0``/``1`` by
    ``bits``, in C: the bits as a base-2 numeral, highest first."""
    numeral = state.translate(bits)[::-1]
    packed = int(numeral, 2) if numeral else 0
    return pa.py_buffer(packed.to_bytes((len(state) + 7) // 8, "little"))


class RunSources:
    """The sources of the run files read, for a plan of ``count`` runs (module docstring)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._state = bytearray(count)
        self._keys = array("q", bytes(8 * count))  # the hash of the path read there
        self._stamps = [array("q", bytes(8 * count)) for _ in range(4)]
        self._digests = bytearray(_DIGEST * count)
        self.outside: dict[str, Source] = {}
        """Sources of run files whose position is not in the plan, by path."""
        self.misplaced = False

    def add(self, position: int, path: str, stamp: Stamp | None, digest: bytes) -> None:
        """The run file at ``path`` (relative to the record directory), which says it is
        planned run ``position``, read with ``stamp``; ``digest``: the sha256 of its bytes."""
        if not 0 <= position < self.count:
            self.outside[path] = Source(path, stamp, digest.hex())
            return
        if self._state[position] != _ABSENT:
            self.misplaced = True  # two files say they are the same planned run
        self._state[position] = _UNSTAMPED if stamp is None else _STAMPED
        self._keys[position] = hash(path)
        if stamp is not None:
            for column, value in zip(self._stamps, stamp, strict=True):
                column[position] = value
        self._digests[_DIGEST * position : _DIGEST * (position + 1)] = digest

    def read(self, position: int) -> bool:
        """Whether planned run ``position``'s file was read."""
        return self._state[position] != _ABSENT

    def read_at(self, position: int, path: str) -> bool:
        """Whether planned run ``position``'s file was read at ``path`` (its planned path);
        one read at another path marks the sources :attr:`misplaced`."""
        if self._state[position] == _ABSENT:
            return False
        if self._keys[position] != hash(path):
            self.misplaced = True
            return False
        return True

    def source(self, position: int, path: str) -> Source:
        """The source of planned run ``position`` (read, at ``path``)."""
        state = self._state[position]
        stamp = None
        if state == _STAMPED:
            size, mtime, ctime, inode = (column[position] for column in self._stamps)
            stamp = (size, mtime, ctime, inode)
        digest = self._digests[_DIGEST * position : _DIGEST * (position + 1)].hex()
        return Source(path, stamp, digest)

    def table(self, paths: Sequence[str | None] | pa.ChunkedArray) -> pa.Table:
        """The ``files`` rows of the plan whose record paths are ``paths`` (plan order):
        a read run's stamp and sha256, an unread one absent (``present`` false, nulls)."""
        count = self.count
        stamped_valid = _bitmap(self._state, _STAMPED_BITS)
        read_valid = _bitmap(self._state, _READ_BITS)
        stamped = pa.Array.from_buffers(pa.bool_(), count, [None, stamped_valid])
        stamps = [
            pa.Array.from_buffers(pa.int64(), count, [stamped_valid, pa.py_buffer(column)])
            for column in self._stamps
        ]
        offsets = array("i", range(0, 2 * _DIGEST * count + 1, 2 * _DIGEST))
        digests = pa.Array.from_buffers(
            pa.string(),
            count,
            [read_valid, pa.py_buffer(offsets), pa.py_buffer(binascii.hexlify(self._digests))],
        )
        if not isinstance(paths, pa.ChunkedArray):
            paths = pa.chunked_array([column_array(paths, pa.string())], pa.string())
        columns = [paths, stamped, *stamps, digests]
        return pa.Table.from_arrays(columns, schema=SCHEMA)
