"""The live index's run sources by plan position (``RunSources``): their ``files`` rows are
the rows ``sources_table`` makes of the same sources, and a run file read at another planned
run's path, or twice at one position, is found misplaced."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from autobench.index._run_sources import RunSources
from autobench.index._sources import Source, sources_table

STAMPS = st.none() | st.tuples(*[st.integers(0, 2**62)] * 4)


@given(
    states=st.lists(st.none() | STAMPS.map(lambda stamp: ("read", stamp)), max_size=40),
    outside=st.integers(-3, 3),
)
def test_the_files_rows_are_those_of_the_same_sources(
    states: list[tuple[str, tuple[int, int, int, int] | None] | None], outside: int
) -> None:
    paths = [f"cases/c{position}/a/run.yaml" for position in range(len(states))]
    sources = RunSources(len(states))
    expected = []
    for position, (path, state) in enumerate(zip(paths, states, strict=True)):
        if state is None:
            expected.append(Source(path, None, None))
            continue
        digest = hashlib.sha256(path.encode()).digest()
        sources.add(position, path, state[1], digest)
        expected.append(Source(path, state[1], digest.hex()))
    sources.add(len(states) + abs(outside), "elsewhere.yaml", None, bytes(32))
    assert sources.table(paths).equals(sources_table(expected))
    assert list(sources.outside) == ["elsewhere.yaml"]
    for position, path in enumerate(paths):
        assert sources.read(position) == (states[position] is not None)
        assert sources.read_at(position, path) == (states[position] is not None)
        if states[position] is not None:
            assert sources.source(position, path) == expected[position]
    assert not sources.misplaced


def test_a_run_file_at_another_runs_path_or_position_is_misplaced() -> None:
    sources = RunSources(3)
    sources.add(0, "a/run.yaml", (1, 2, 3, 4), bytes(32))
    assert sources.read_at(0, "a/run.yaml") and not sources.misplaced
    assert not sources.read_at(0, "b/run.yaml")
    assert sources.misplaced
    twice = RunSources(3)
    twice.add(1, "b/run.yaml", None, bytes(32))
    twice.add(1, "c/run.yaml", None, bytes(32))
    assert twice.misplaced
