"""Frames between the recording process and the record writer process
(autobench.records._commit_frames) over a real pipe: any sequence of payloads, small or larger
than the reader's chunk, written by another thread, reads back whole and in order, however
the pipe cuts them; the end of input after whole frames is the end, and a frame cut short by
a writer that died is dropped, never returned in part."""

from __future__ import annotations

import os
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from autobench.records._commit_frames import READ_SIZE, FrameReader, write_frame

_SIZES = st.one_of(
    st.integers(min_value=0, max_value=300),
    st.integers(min_value=READ_SIZE - 8, max_value=READ_SIZE + 70_000),
)


def _payload(size: int, seed: int) -> bytes:
    return bytes((seed + index) % 251 for index in range(min(size, 997))) * (size // 997) + bytes(
        (seed + index) % 251 for index in range(size % 997)
    )


def _read_all(descriptor: int) -> list[bytes]:
    reader = FrameReader(descriptor)
    frames: list[bytes] = []
    while (batch := reader.read()) is not None:
        frames.extend(bytes(frame) for frame in batch)
    return frames


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(_SIZES, st.integers(0, 250)), max_size=6))
def test_frames_read_back_whole_and_in_order(sizes: list[tuple[int, int]]) -> None:
    payloads = [_payload(size, seed) for size, seed in sizes]
    read_end, write_end = os.pipe()

    def write() -> None:
        try:
            for payload in payloads:
                write_frame(write_end, payload)
        finally:
            os.close(write_end)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert _read_all(read_end) == payloads
    finally:
        writer.join()
        os.close(read_end)


@settings(max_examples=25, deadline=None)
@given(_SIZES, st.integers(min_value=1, max_value=7))
def test_a_frame_cut_short_is_dropped(size: int, cut: int) -> None:
    whole, partial = _payload(300, 1), _payload(size + 8, 2)
    read_end, write_end = os.pipe()

    def write() -> None:
        try:
            write_frame(write_end, whole)
            header = (len(partial)).to_bytes(8, "little")
            data = header + partial
            view = memoryview(data)[: len(data) - cut]  # the writer died mid-frame
            while view:
                view = view[os.write(write_end, view) :]
        finally:
            os.close(write_end)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert _read_all(read_end) == [whole]
    finally:
        writer.join()
        os.close(read_end)
