"""Frames between the recording process and the record writer process: an 8-byte
little-endian length (a frame of runs with large artifacts may pass 4 GiB), then that many bytes of a pickle (trusted: both ends are the same
Autobench, parent and child, over their own pipes)."""

from __future__ import annotations

import os
import select
import struct

_LENGTH = struct.Struct("<Q")

READY = "ready"
"""The record writer process's first answer: it started (its imports done) and stores runs."""
READ_SIZE = 1 << 20


def write_frame(descriptor: int, payload: bytes) -> None:
    """Write one frame to ``descriptor`` whole (raises ``OSError``, such as
    ``BrokenPipeError`` when the other end is gone). The payload is never copied: a
    frame carrying a run's large artifacts costs no second copy of them."""
    header = _LENGTH.pack(len(payload))
    sent = os.writev(descriptor, (header, payload))
    while sent < len(header):  # the header itself cut short
        sent += os.write(descriptor, header[sent:])
    view = memoryview(payload)[sent - len(header) :]
    while view:
        view = view[os.write(descriptor, view) :]


class FrameReader:
    """Reads frames from a pipe's descriptor (blocking). A frame larger than
    :data:`READ_SIZE` is read straight into its own buffer (a ``bytearray``): it is
    in memory once."""

    def __init__(self, descriptor: int) -> None:
        self._descriptor = descriptor
        self._buffer = bytearray()
        self._large: bytearray | None = None
        self._ended = False

    def read(self) -> list[bytes | bytearray] | None:
        """Every whole frame that can be read now, waiting for the first; ``None`` at the
        end of input (a partial frame left by a writer that died is dropped)."""
        frames = self._complete()
        while not frames:
            if self._ended or not self._fill():
                return None
            frames = self._complete()
        while not self._ended and select.select([self._descriptor], [], [], 0)[0]:
            if not self._fill():
                break
            frames += self._complete()
        return frames

    def _fill(self) -> bool:
        # The buffer starts at a frame (``_complete`` took the whole ones before it).
        if len(self._buffer) >= _LENGTH.size:
            (length,) = _LENGTH.unpack_from(self._buffer)
            if length > READ_SIZE:
                return self._fill_large(length)
        chunk = os.read(self._descriptor, READ_SIZE)
        if not chunk:
            self._ended = True
            return False
        self._buffer += chunk
        return True

    def _fill_large(self, length: int) -> bool:
        """Read the frame of ``length`` bytes the buffer starts with into its own buffer."""
        frame = bytearray(length)
        have = len(self._buffer) - _LENGTH.size
        frame[:have] = self._buffer[_LENGTH.size :]
        self._buffer.clear()
        view = memoryview(frame)
        while have < length:
            got = os.readv(self._descriptor, [view[have:]])
            if not got:  # the writer died mid-frame: it is dropped
                self._ended = True
                return False
            have += got
        self._large = frame
        return True

    def _complete(self) -> list[bytes | bytearray]:
        frames: list[bytes | bytearray] = []
        if self._large is not None:
            frames.append(self._large)
            self._large = None
        buffer, start = self._buffer, 0
        while len(buffer) - start >= _LENGTH.size:
            (length,) = _LENGTH.unpack_from(buffer, start)
            end = start + _LENGTH.size + length
            if len(buffer) < end:
                break
            frames.append(bytes(buffer[start + _LENGTH.size : end]))
            start = end
        if start:
            del buffer[:start]
        return frames
