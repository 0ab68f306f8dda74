"""``write_export`` encodes a text a chunk at a time: the file holds the text's UTF-8 bytes
and the size returned is theirs, for any text and chunk size."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autobench.report import _files, write_export


@settings(max_examples=60, deadline=None)
@given(text=st.text(st.characters(exclude_categories=["Cs"]), max_size=40), chunk=st.integers(1, 7))
def test_a_text_is_written_as_its_utf8_bytes(text: str, chunk: int) -> None:
    with pytest.MonkeyPatch.context() as patch, tempfile.TemporaryDirectory() as scratch:
        patch.setattr(_files, "_CHUNK", chunk)
        target = Path(scratch) / "deep" / "out.txt"
        size = write_export(target, text)
        assert target.read_bytes() == text.encode("utf-8")
        assert size == len(text.encode("utf-8"))


def test_bytes_are_written_as_they_are(tmp_path: Path) -> None:
    data = bytes(range(256)) * 3
    assert write_export(tmp_path / "out.bin", data) == len(data)
    assert (tmp_path / "out.bin").read_bytes() == data
