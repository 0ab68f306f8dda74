from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from autobench.records import run_record_path, safe_segment

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
