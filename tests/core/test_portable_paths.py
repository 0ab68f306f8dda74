"""How a record names a file of the writing machine: relative to the spec's directory, or by a
placeholder for the interpreter's own trees, never by its absolute path."""

from __future__ import annotations

import json
import re
import tempfile
import textwrap
from pathlib import Path

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autobench.core.runtime import collect_benchmark_source_files
from autobench.core.runtime._portable import _SEPARATORS, _matcher, portable_path, portable_text
from autobench.core.spec import load_benchmark_spec


def test_files_of_the_interpreter_get_placeholders_and_others_a_relative_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    base = tmp_path / "home" / "bench"
    assert portable_path(base / "tasks" / "t.py", base) == "tasks/t.py"
    assert portable_path(tmp_path / "home" / "lib" / "m.py", base) == "../lib/m.py"
    assert portable_path(Path(json.__file__), base) == "<stdlib>/json/__init__.py"
    assert portable_path(Path(pydantic.__file__), base) == "<site-packages>/pydantic/__init__.py"


def test_text_keeps_names_that_only_begin_like_the_spec_directory(tmp_path: Path) -> None:
    base = tmp_path / "bench"
    text = f'File "{base}/t.py" / {base}x/t.py / {base}'
    first, second, third = portable_text(text, base).split(" / ")
    assert (first, third) == ('File "t.py"', ".")
    assert second.endswith("benchx/t.py") and second != "x/t.py"


def test_the_home_directory_is_the_one_of_the_moment_of_each_rewrite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The places are made once per spec directory, home and temporary directory (a run
    with errors rewrites three texts): a later home is still rewritten as ``~``, and the
    earlier one no longer is."""
    base = tmp_path / "bench"
    first, second = tmp_path / "first", tmp_path / "second"
    text = f"{first}/notes.txt and {second}/notes.txt"
    monkeypatch.setenv("HOME", str(first))
    for _ in range(2):
        home, other = portable_text(text, base).split(" and ")
        assert home == "~/notes.txt" and other.endswith("/second/notes.txt")
    monkeypatch.setenv("HOME", str(second))
    other, home = portable_text(text, base).split(" and ")
    assert home == "~/notes.txt" and other.endswith("/first/notes.txt")


def _rewritten_place_by_place(text: str, places: tuple[tuple[str, str], ...]) -> str:
    """The rule as first written: a pattern per place, the longest directory first."""
    separators = re.escape(_SEPARATORS)
    pattern = re.compile(
        "|".join(
            f"(?<![\\w.\\-])({re.escape(directory)})(?:([{separators}])|(?![\\w.\\-]))"
            for directory, _ in places
        )
    )

    def replace(match: re.Match[str]) -> str:
        groups = match.groups()
        index = next(i for i in range(0, len(groups), 2) if groups[i] is not None)
        replacement, separator = places[index // 2][1], groups[index + 1]
        if replacement == "":
            return "" if separator else "."
        return replacement + ("/" if separator else "")

    return pattern.sub(replace, text)


_BASE = Path(tempfile.gettempdir()) / "bench"
_PIECES = [
    directory + tail
    for directory, _ in _matcher(_BASE)[0]
    for tail in ("", "/", "/t.py", "x", ".d", "-", " ")
] + ["x", ".", "-", " ", "/", "a/b", "\n", '"', "File ", "~"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12))
def test_one_pattern_rewrites_as_a_pattern_per_place(pieces: list[str]) -> None:
    """The places' single pattern (and the check that skips a text naming none of them)
    rewrites every text as the pattern per place did: the most specific place wins, a
    name that only begins like a place is kept."""
    text = "".join(pieces)
    places = _matcher(_BASE)[0]
    assert portable_text(text, _BASE) == _rewritten_place_by_place(text, places)


def test_a_task_module_beside_the_spec_directory_is_keyed_relative_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "beside_task.py").write_text("def run(ctx, case):\n    return {}\n")
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    (tmp_path / "bench").mkdir()
    spec_file = tmp_path / "bench" / "autobench.yaml"
    spec_file.write_text(
        textwrap.dedent(
            """\
            benchmark:
              b:
                cases: [{id: c1}]
                run: {python: "beside_task:run"}
                variants: {v1: {}}
            """
        )
    )
    files = collect_benchmark_source_files(load_benchmark_spec(spec_file), spec_path=spec_file)
    assert list(files) == ["autobench.yaml", "../lib/beside_task.py"]
