"""The export's preview reads the written file back a block at a time (the content is
never held whole): what it keeps and counts is what ``str.splitlines`` gives for the whole
text, wherever the blocks are cut (a ``\\r\\n`` across two blocks is one line end)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autobench.cli import _export

pieces = st.lists(
    st.sampled_from(["a", "bc", "\n", "\r", "\r\n", "\x0b", "\x1c", "\x85", "\u2028", "é", "xyz"]),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(parts=pieces, block=st.integers(1, 9))
def test_the_head_is_what_splitlines_gives(parts: list[str], block: int) -> None:
    text = "".join(parts)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_export, "READ_SIZE", block)
        patch.setattr(_export, "PREVIEW_LINES", 3)
        head, lines, first, characters = _export._head(io.StringIO(text, newline=""))
    expected = text.splitlines()
    assert lines == len(expected)
    assert characters == len(text)
    assert first == (len(expected[0]) if expected else 0)
    # lines are kept to their first READ_SIZE characters (a line end may add one more)
    assert [line[:block] for line in head] == [line[:block] for line in expected[:4]]


def test_a_long_line_is_counted_whole_and_kept_in_part() -> None:
    text = "x" * 50 + "\r\n" + "y" * 7
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_export, "READ_SIZE", 8)
        head, lines, first, characters = _export._head(io.StringIO(text, newline=""))
    assert (lines, first, characters) == (2, 50, 59)
    assert head == ["x" * 8, "y" * 7]
