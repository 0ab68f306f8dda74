"""Large datasets are read one case at a time (``core.spec._yaml_stream``), with the same
cases, the same located errors and notes as when the whole document is composed."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobench.core.planning import dataset_hash
from autobench.core.spec import CaseList, SpecError, load_benchmark_spec
from autobench.core.spec import _yaml_stream as stream
from autobench.records import Case, render_input_sections

CASES = 10_000

HEAD = """\
benchmark:
  big:
    dataset:
      cases:
"""

TAIL = """\
    run:
      python: "m:f"
    variants:
      v1: {}
"""


def case_lines(count: int, bad: dict[int, list[str]] | None = None) -> list[str]:
    """Three lines per case (``id``, ``input``, ``expected``); ``bad`` replaces a case's."""
    lines: list[str] = []
    for index in range(count):
        lines += (bad or {}).get(index) or [
            f"        - id: case-{index}",
            f"          input: {{n: {index}}}",
            f"          expected: {{value: {index * 2}}}",
        ]
    return lines


def write_spec(root: Path, lines: list[str], tail: str = TAIL) -> Path:
    spec = root / "autobench.yaml"
    spec.write_text(HEAD + "\n".join(lines) + "\n" + tail, encoding="utf-8")
    return spec


def load_whole(spec: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The spec loaded with the whole document composed, as before case-by-case reading."""
    with monkeypatch.context() as patch:
        patch.setattr(stream, "STREAM_FROM_BYTES", 1 << 60)
        return load_benchmark_spec(spec)


def line_of(index: int) -> int:
    """The 1-based line of case ``index``'s ``- id:`` in a spec written by write_spec."""
    return HEAD.count("\n") + 1 + 3 * index


def test_a_large_spec_is_read_case_by_case_and_gives_the_same_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = write_spec(tmp_path, case_lines(CASES))
    text = spec.read_text()
    assert len(text) > stream.STREAM_FROM_BYTES
    document = stream.deferring(stream.SPEC_CASE_PATHS)(text, spec)
    deferred = document.data["benchmark"]["big"]["dataset"]["cases"]
    assert isinstance(deferred, stream.DeferredCases)
    assert (deferred.size, str(deferred.location)) == (CASES, f"{spec}:5:9")

    loaded = load_benchmark_spec(spec)
    assert isinstance(loaded.cases, CaseList)
    assert len(loaded.cases) == CASES
    assert loaded.cases[CASES - 1] == Case(
        id=f"case-{CASES - 1}", input={"n": CASES - 1}, expected={"value": 2 * (CASES - 1)}
    )
    whole = load_whole(spec, monkeypatch)
    assert loaded == whole
    assert loaded.cases == tuple(whole.cases)
    assert dataset_hash(loaded.cases) == dataset_hash(tuple(whole.cases))


@pytest.mark.parametrize(
    ("bad", "where", "message"),
    [
        (
            ["        - id: case-9990", "          input: {n: 1}", "          expectd: 2"],
            (2, 11),
            "unknown key 'expectd' in case 'case-9990' (did you mean 'expected'?)",
        ),
        (
            ["        - id: case-9990", "          input: {n: 1}", "          tags: 5"],
            (2, 17),
            "invalid 'tags' of case 'case-9990': Input should be a list, not an integer",
        ),
        (
            ["        - id: case-12", "          input: {n: 1}", "          expected: 2"],
            (0, 15),
            "duplicate case id 'case-12' (first defined at {spec}:41:15)",
        ),
        (
            [
                "        - id: case-9990",
                "          input: !!python/object:os.system {}",
                "          x: 1",
            ],
            (1, 18),
            "invalid YAML: could not determine a constructor for the tag",
        ),
        (
            ["        - id: case-9990", "          input: {n: 1, n: 2}", "          expected: 2"],
            (1, 25),
            "duplicate key 'n'",
        ),
    ],
    ids=["unknown key", "wrong type", "duplicate id", "unsafe tag", "duplicate key"],
)
def test_a_bad_case_near_the_end_is_located_at_its_line_and_column(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    bad: list[str],
    where: tuple[int, int],
    message: str,
) -> None:
    index = CASES - 10
    spec = write_spec(tmp_path, case_lines(CASES, {index: bad}))
    with pytest.raises(SpecError) as caught:
        load_benchmark_spec(spec)
    error = caught.value
    assert (error.path, error.line, error.column) == (spec, line_of(index) + where[0], where[1])
    assert error.message.startswith(message.format(spec=spec))
    with pytest.raises(SpecError) as whole:
        load_whole(spec, monkeypatch)
    assert str(whole.value) == str(error)


def test_a_dataset_file_read_case_by_case_takes_its_defaults_written_after_its_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = "\n".join(f"  - id: c{i}\n    input: {{n: {i}}}\n    tags: [own]" for i in range(CASES))
    (tmp_path / "cases.yaml").write_text(
        f"version: 3\ncases:\n{cases}\ndefaults:\n  input: {{lang: en}}\n  tags: [base]\n"
        "metadata: {owner: docs}\n",
        encoding="utf-8",
    )
    spec = tmp_path / "autobench.yaml"
    spec.write_text(
        "benchmark:\n  big:\n    dataset:\n      cases: cases.yaml\n"
        "      defaults: {expected: {ok: true}}\n" + TAIL,
        encoding="utf-8",
    )
    loaded = load_benchmark_spec(spec)
    assert isinstance(loaded.cases, CaseList)
    assert loaded.cases[7] == Case(
        id="c7", input={"n": 7, "lang": "en"}, expected={"ok": True}, tags=("base", "own")
    )
    assert (loaded.dataset.version, loaded.dataset.metadata) == ("3", {"owner": "docs"})
    whole = load_whole(spec, monkeypatch)
    assert loaded == whole


def test_a_number_that_loses_its_text_in_a_late_case_is_noted_where_it_is_written(
    tmp_path: Path,
) -> None:
    index = CASES - 3
    bad = ["        - id: late", "          input: {n: 007}", "          expected: 1"]
    spec = write_spec(tmp_path, case_lines(CASES, {index: bad}))
    loaded = load_benchmark_spec(spec)
    assert loaded.scalar_notes == (
        f"`007` at {spec}:{line_of(index) + 1}:22 is read as the number 7; quote it to keep the text",
    )
    spec.write_text(spec.read_text() + "strict_scalars: true\n")
    with pytest.raises(SpecError) as caught:
        load_benchmark_spec(spec)
    assert (caught.value.line, caught.value.column) == (line_of(index) + 1, 22)


def test_a_large_text_with_anchors_is_composed_whole(tmp_path: Path) -> None:
    lines = case_lines(CASES)
    lines[1] = "          input: &first {n: 0}"
    lines[4] = "          input: *first"
    spec = write_spec(tmp_path, lines)
    document = stream.deferring(stream.SPEC_CASE_PATHS)(spec.read_text(), spec)
    assert not isinstance(
        document.data["benchmark"]["big"]["dataset"]["cases"], stream.DeferredCases
    )
    assert load_benchmark_spec(spec).cases[1].input == {"n": 0}


scalars = st.one_of(
    st.integers(-(10**6), 10**6),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text("abcxyz_", min_size=1, max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
case_data = st.fixed_dictionaries(
    {"input": values, "expected": values},
    optional={
        "metadata": st.dictionaries(st.text("mnop", min_size=1, max_size=3), values, max_size=2),
        "tags": st.lists(st.text("tuvw", min_size=1, max_size=3), max_size=3),
    },
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(case_data, min_size=1, max_size=12), st.booleans())
def test_cases_read_one_at_a_time_are_the_cases_of_the_whole_document(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    cases: list[dict[str, Any]],
    flow: bool,
) -> None:
    root = tmp_path_factory.mktemp("roundtrip")
    listed = [{"id": f"case {index}", **case} for index, case in enumerate(cases)]
    text = render_input_sections(
        {"benchmark": {"rt": {"dataset": {"cases": listed}, "run": {"python": "m:f"}}}}
    )
    if flow:  # the case list as one flow sequence
        import json

        text = text.split("    dataset:")[0] + (
            "    dataset:\n      cases: " + json.dumps(listed) + "\n    run: {python: 'm:f'}\n"
        )
    spec = root / "autobench.yaml"
    spec.write_text(text, encoding="utf-8")
    with monkeypatch.context() as patch:
        patch.setattr(stream, "STREAM_FROM_BYTES", 0)
        streamed = load_benchmark_spec(spec)
    whole = load_whole(spec, monkeypatch)
    assert isinstance(streamed.cases, CaseList)
    assert streamed == whole
    assert list(streamed.cases) == [Case.model_validate(case) for case in listed]
    restored = pickle.loads(pickle.dumps(streamed.cases))
    assert restored == streamed.cases and restored.ids == streamed.cases.ids
    assert streamed.cases[1:] == tuple(whole.cases)[1:]
    assert streamed.cases + (whole.cases[0],) == (*whole.cases, whole.cases[0])  # noqa: RUF005


def test_a_case_list_reads_as_the_tuple_of_its_cases() -> None:
    raw = [{"id": "a", "input": 1}, {"id": "b", "tags": ["x", "x"]}]
    cases = CaseList.of(raw)
    as_tuple = tuple(Case.model_validate(item) for item in raw)
    assert cases == as_tuple and as_tuple == tuple(cases)
    assert (len(cases), cases[-1], cases[5:]) == (2, as_tuple[1], ())
    assert cases[-1].tags == ("x",)
    assert cases.ids == ("a", "b")
    with pytest.raises(IndexError):
        cases[2]
    assert repr(cases) == "CaseList(2 cases)"
