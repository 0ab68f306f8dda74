from __future__ import annotations

from pathlib import PurePosixPath

from hypothesis import given
from hypothesis import strategies as st

from autobench.records import run_record_path, safe_segment
from autobench.records._atomic import parent_text, path_text

_ALLOWED = set("abcdefghijklmnopqrstuvwxyz0123456789_.-")


@given(st.text(max_size=400))
def test_segments_are_portable(identifier: str) -> None:
    segment = safe_segment(identifier)
    assert 0 < len(segment) <= 80
    assert set(segment) <= _ALLOWED
    assert not segment.startswith(".")
    assert segment not in (".", "..")


@given(st.text(max_size=60), st.text(max_size=60))
def test_distinct_ids_map_to_distinct_segments_even_ignoring_case(first: str, second: str) -> None:
    if first != second:
        assert safe_segment(first).lower() != safe_segment(second).lower()


def test_hostile_ids_stay_inside_and_plain_ids_stay_readable() -> None:
    for identifier in [
        "../../etc/passwd",
        "a/b",
        "CON",
        "nul.txt",
        ".hidden",
        "é" * 300,
        "x" * 300,
        "Case",
        "case",
    ]:
        path = run_record_path(identifier, "v")
        assert path.startswith("cases/") and ".." not in path.split("/")
    assert safe_segment("refund_request") == "refund_request"
    assert safe_segment("Case") != safe_segment("case")


PATH_TEXT = st.lists(
    st.sampled_from(["", ".", "..", "a", "b.c", ".hidden", "x y"]), max_size=6
).map("/".join) | st.text(alphabet="/.ab", max_size=12)


@given(PATH_TEXT, st.booleans())
def test_a_path_as_text_is_what_pathlib_makes_of_it(text: str, absolute: bool) -> None:
    # The record writer handles its files' paths as text (autobench.records._atomic): the
    # same text and the same parent as a PurePosixPath, whatever the slashes and dots.
    text = "/" + text if absolute else text or "."
    assert path_text(text) == str(PurePosixPath(text))
    normal = path_text(text)
    assert parent_text(normal) == str(PurePosixPath(normal).parent)
