"""The fast reader of record files: whatever it accepts, it reads as the YAML parser does.

Three kinds of input: documents the record writer produced from generated values (the
reader must accept the writer's layout and agree with the parser), real run and
experiment record files mutated at random (the reader must decline whatever the parser
rejects, and agree wherever both read), and hand-written texts for each construct.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from _canonical import canonical
from _factories import experiment_for, trivial_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autobench.records import (
    RecordFormatError,
    _canonical,
    experiment_record_to_yaml,
    run_record_to_yaml,
)
from autobench.records._canonical import _SLOT, NOT_CANONICAL, read_canonical
from autobench.records._codec import run_record_from_yaml
from autobench.records._yaml import dump_record, load_document

TEXT = st.text(
    st.characters(
        codec="utf-8",
        exclude_categories=("Cs", "Cc"),
        include_characters="\n '\"#:-|>[]{}!&*%@`?,\\é😀",
    ),
    max_size=24,
)
"""Printable text with the characters YAML treats specially, line breaks included."""

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=True)
    | TEXT
    | st.datetimes(min_value=dt.datetime(1900, 1, 1), timezones=st.just(dt.UTC))
    | st.dates()
    | st.sampled_from(["true", "null", "1.5", "0o17", "2024-01-01", "~", "<<", "=", "- x", "a: b"])
)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(TEXT, children, max_size=3),
    max_leaves=12,
)
SECTIONS = st.dictionaries(
    st.from_regex(r"[a-z_]{1,10}", fullmatch=True), VALUES, min_size=1, max_size=4
)


def both(text: str) -> tuple[object, object]:
    """The fast reader's document and the parser's (or the parser's error)."""
    fast = read_canonical(text)
    try:
        full: object = load_document(text)
    except RecordFormatError as error:
        full = error
    return fast, full


def _one_line_keys(value: object) -> bool:
    """Whether every mapping key in ``value`` is one line (the writer gives a key holding a
    line break an explicit ``? key`` entry, which is outside the layout)."""
    if isinstance(value, dict):
        return all("\n" not in k and _one_line_keys(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_one_line_keys(item) for item in value)
    return True


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SECTIONS)
def test_the_writers_documents_read_as_the_parser_reads_them(sections: dict) -> None:
    text = dump_record("run", 1, sections)
    fast, full = both(text)
    assert not isinstance(full, Exception)
    if _one_line_keys(sections):
        assert fast is not NOT_CANONICAL, text
    if fast is not NOT_CANONICAL:
        assert canonical(fast) == canonical(full)


ALPHABET = [*list("abc :#-'\"|>[]{}!&*%\\\n"), "  ", "- ", ": ", "\t", "---", "|+", "|2", "'"]


@st.composite
def mutated(draw: st.DrawFn, texts: list[str]) -> str:
    text = draw(st.sampled_from(texts))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "delete", "duplicate line"]))
        if action == "insert":
            text = text[:at] + draw(st.sampled_from(ALPHABET)) + text[at:]
        elif action == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 6)) :]
        else:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            end = len(text) if end == -1 else end + 1
            text = text[:end] + text[start:end] + text[end:]
    return text


def _record_texts() -> list[str]:
    run = trivial_run()
    document = {
        "notes": "first line\nsecond: with colon\n  indented\n",
        "quoted": "it's 'quoted' and \"double\" # not a comment",
        "plain": "a - b",
        "keep": "tail\n\n",
        "lead": "  leading spaces\nsecond\n",
        "empty": [],
        "none": {},
        "items": [{"name": "x", "tags": ["a", "b"]}, ["nested", "list"], None, "- dash"],
        "keys": {"n": 1, "on": "x", "a: b": 2.5, "it's": None, "#": [{"y": 3}], "1": "one"},
    }
    return [
        run_record_to_yaml(run),
        experiment_record_to_yaml(
            experiment_for([("ticket_1", "route_v1"), ("ticket_2", "route_v1")])
        ),
        dump_record("run", 1, {"extra": document}),
    ]


RECORD_TEXTS = _record_texts()


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(RECORD_TEXTS))
def test_a_mutated_record_is_declined_or_read_as_the_parser_reads_it(text: str) -> None:
    fast, full = both(text)
    if isinstance(full, Exception):
        assert fast is NOT_CANONICAL
    elif fast is not NOT_CANONICAL:
        assert canonical(fast) == canonical(full)


def test_real_records_are_read_by_the_fast_reader() -> None:
    for text in RECORD_TEXTS:
        fast, full = both(text)
        assert fast is not NOT_CANONICAL
        assert canonical(fast) == canonical(full)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: |\n  one\n  two\n", {"a": "one\ntwo\n"}),
        ("a: |-\n  one\n\n  two\n", {"a": "one\n\ntwo"}),
        ("a: |+\n  one\n\n\nb: 1\n", {"a": "one\n\n\n", "b": 1}),
        ("a: |2\n    indented\n  not\n", {"a": "  indented\nnot\n"}),
        ("- |\n  item\n- x\n".replace("- ", "l:\n- ", 1), {"l": ["item\n", "x"]}),
        ("a: 'it''s'\n", {"a": "it's"}),
        ('a: "\\u00e9\\t\\ud83d\\ude00\\x41\\N"\n', {"a": "é\t😀A\x85"}),
        ("'n': 1\n\"y\": 2\n", {"n": 1, "y": 2}),
        ("a: 2026-12-02 14:43:09.538055+00:00\n", None),
        ("a: 2026-12-02\n", {"a": dt.date(2026, 12, 2)}),
        ("a: .inf\nb: -.inf\nc: 1.0e-05\n", {"a": float("inf"), "b": float("-inf"), "c": 1e-05}),
        ("a: 0x1f\n", NOT_CANONICAL),  # a spelling the writer never uses: the parser reads it
        ("a:\n  b:\n  - 1\n  - - 2\n    - 3\n  c: {}\n", {"a": {"b": [1, [2, 3]], "c": {}}}),
        ("# comment\n\na: x # not plain\n", NOT_CANONICAL),
        ("a: 1\na: 2\n", NOT_CANONICAL),
        ("a: !decimal '1.5'\n", NOT_CANONICAL),
        ("a: &x 1\nb: *x\n", NOT_CANONICAL),
        ("a: [1, 2]\n", NOT_CANONICAL),
        ("a: >\n  folded\n", NOT_CANONICAL),
        ("a: 'two\n  lines'\n", NOT_CANONICAL),
        ("a: plain\n  continued\n", NOT_CANONICAL),
        ("---\na: 1\n", NOT_CANONICAL),
        ("a: 1", NOT_CANONICAL),
        ("a:\tb\n", NOT_CANONICAL),
        ("<<: 1\n", NOT_CANONICAL),
        ("1: one\n", NOT_CANONICAL),
    ],
)
def test_each_construct(text: str, expected: object) -> None:
    fast, full = both(text)
    if expected is NOT_CANONICAL:
        assert fast is NOT_CANONICAL
        return
    assert not isinstance(full, Exception)
    assert canonical(fast) == canonical(full)
    if expected is not None:
        assert canonical(fast) == canonical(expected)


def test_a_duplicate_key_still_fails_with_its_location(tmp_path) -> None:
    text = run_record_to_yaml(trivial_run()).replace(
        "  status:", "  benchmark: again\n  status:", 1
    )
    assert read_canonical(text) is NOT_CANONICAL
    with pytest.raises(RecordFormatError, match="duplicate key") as raised:
        run_record_from_yaml(text, source=tmp_path / "run.yaml")
    assert raised.value.line is not None


def test_an_anchor_defined_twice_is_read_as_yaml_says() -> None:
    """Valid YAML (an alias names the latest definition), found by the mutation test above:
    read without a warning, which the suite turns into an error."""
    text = "a: &x 1\nb: &x 2\nc: *x\n"
    assert load_document(text) == {"a": 1, "b": 2, "c": 2}
    assert read_canonical(text) is NOT_CANONICAL


SLOT_VALUES = st.one_of(
    st.sampled_from(
        [
            "x",
            "x  ",
            "1",
            "-7",
            "1.5",
            "1e3",
            ".nan",
            "-.inf",
            "true",
            "False",
            "null",
            "~",
            "2024-01-01",
            "2026-12-02 14:43:09.5+00:00",
            "2026-13-02 14:43:09",
            "0o17",
            "0x1F",
            "a: b",
            "a:b",
            "x #c",
            "x#c",
            "- x",
            "-",
            "?",
            ":",
            "<<",
            "=",
            "&anchor x",
            "*alias",
            "!tag x",
            ">",
            "%x",
            "@x",
            "`x",
            "x]",
            "x}",
            "é😀",
            "a, b",
        ]
    ),
    TEXT.map(lambda text: text.replace("\n", "")).filter(
        lambda text: text[:1] not in ("", " ", "'", '"', "|", "[", "{")
    ),
)
"""Values for the value slots of a skeleton: plain scalars of every kind, and texts the
reader declines (a comment, a nested key, indicators); none empty or starting as a value
that is not a slot (a quote, a literal, a flow collection), so the skeleton stays."""


def _slots(text: str) -> list[str]:
    return _canonical._SLOT.split("\n" + text)


def _template_of(text: str) -> object:
    parts = _slots(text)
    skeleton = "\x00".join(parts[0::3] + parts[1::3])
    return _canonical._SKELETONS.known.get(skeleton)


@contextmanager
def fresh_skeletons() -> Iterator[_canonical._Skeletons]:
    """The reader with no skeleton known (nor line reads pending) inside the block: what
    other tests read before does not decide which path a text takes."""
    kept = _canonical._SKELETONS
    _canonical._SKELETONS = fresh = _canonical._Skeletons()
    try:
        yield fresh
    finally:
        _canonical._SKELETONS = kept


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(RECORD_TEXTS),
    st.lists(st.tuples(st.integers(0, 200), SLOT_VALUES), min_size=1, max_size=4),
)
def test_texts_of_a_known_skeleton_read_as_the_parser_reads_them(
    text: str, changes: list[tuple[int, str]]
) -> None:
    # The first text of a skeleton is read line by line, the second compiles its template;
    # texts differing from it in slot values only are then built by the template.
    parts = _slots(text)
    values = parts[2::3]
    for at, value in changes:
        values[at % len(values)] = value
    parts[2::3] = values
    changed = "".join(parts)[1:]
    with fresh_skeletons():
        read_canonical(text)
        assert read_canonical(text) == load_document(text)
        template = _template_of(text)  # compiled, or refused (a slot in a literal block)
        assert isinstance(template, tuple) or template is _canonical._NO_TEMPLATE
        assert _template_of(changed) is _template_of(text)  # the same skeleton
        fast, full = both(changed)
    if isinstance(full, Exception):
        assert fast is NOT_CANONICAL
    elif fast is not NOT_CANONICAL:
        assert canonical(fast) == canonical(full)


@fresh_skeletons()
def test_a_repeated_skeleton_is_read_by_its_template_into_fresh_documents() -> None:
    text = run_record_to_yaml(trivial_run())
    first = read_canonical(text)
    assert read_canonical(text) == first
    build, _ = _template_of(text)  # compiled the second time
    other = text.replace("passed", "failed")
    assert _template_of(other) is _template_of(text)
    document = read_canonical(other)
    assert document == load_document(other) and document != first
    document["run"]["status"] = "changed"
    document["scores"].append("more")
    again = read_canonical(other)
    assert again == load_document(other) and again is not document
    assert callable(build)


@fresh_skeletons()
def test_a_slot_inside_a_literal_block_gets_no_template() -> None:
    text = "record:\n  type: run\n  version: 1\nnotes: |\n  key: value\n  more\nafter: x\n"
    for value in ("value", "other", "x #y"):
        changed = text.replace("key: value", f"key: {value}")
        for _ in range(3):
            assert read_canonical(changed) == load_document(changed)
    assert _template_of(text) is _canonical._NO_TEMPLATE


@fresh_skeletons()
def test_texts_that_never_repeat_a_skeleton_are_then_read_line_by_line_for_a_while() -> None:
    texts = [f"record:\n  type: run\n  version: 1\nkey_{n}: {n}\n" for n in range(100)]
    for text in texts[: _canonical.NEW_IN_A_ROW_MAX]:
        assert read_canonical(text) == load_document(text)
    skeletons = _canonical._SKELETONS
    assert skeletons.line_reads == _canonical.LINE_READS
    for text in texts[_canonical.NEW_IN_A_ROW_MAX :]:
        assert read_canonical(text) == load_document(text)
    assert len(skeletons.known) == _canonical.NEW_IN_A_ROW_MAX  # not split meanwhile
    skeletons.line_reads = 0
    repeated = texts[0].replace("key_0: 0", "key_0: 7")
    assert read_canonical(repeated) == load_document(repeated)
    assert isinstance(_template_of(repeated), tuple)  # seen before: compiled now


WRITTEN_FORMS = (
    st.integers(min_value=0, max_value=10**20).map(str)
    | st.from_regex(r"[0-9]{1,20}", fullmatch=True)
    | st.datetimes(min_value=dt.datetime(1, 1, 1), timezones=st.just(dt.UTC)).map(str)
    | st.from_regex(
        r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{6})?\+00:00",
        fullmatch=True,
    )
)


@settings(max_examples=500, deadline=None)
@given(WRITTEN_FORMS)
def test_integers_and_times_as_written_read_as_the_resolver_reads_them(text: str) -> None:
    # Decimal integers and the writer's UTC times skip the resolver's patterns; whatever
    # they read is what the patterns and the builder read.
    fast = _canonical._written(text)
    try:
        slow: object = _canonical._resolved(text)
    except _canonical._Outside:
        slow = NOT_CANONICAL
    if fast is not _canonical._UNKNOWN:
        assert type(fast) is type(slow) and fast == slow, text
        if isinstance(fast, dt.datetime):
            assert fast.utcoffset() == slow.utcoffset()  # type: ignore[union-attr]


def test_the_writers_integers_and_times_take_the_short_path() -> None:
    assert _canonical._written("1234") == 1234
    assert _canonical._written("2026-12-07 10:07:58.021518+00:00") == dt.datetime(
        2026, 12, 7, 10, 7, 58, 21518, tzinfo=dt.UTC
    )
    for other in ("0123", "1_000", "2026-13-07 10:07:58+00:00", "1.5", "x"):
        assert _canonical._written(other) is _canonical._UNKNOWN


_BACKTRACKING_SLOT = re.compile(
    r"(\n *(?:- )*(?:[A-Za-z_][\w.-]*|'[^'\n]*'|\"[^\"\\\n]*\"): )([^\n'\"|\[{ ][^\n]*)(?=\n)"
)
"""The skeleton's line pattern with ordinary (backtracking) repetitions: what ``_SLOT``'s
possessive ones must split alike."""

SLOT_LINES = st.lists(
    st.text(alphabet=st.sampled_from(list(" -:'\"\\\n_.aZ9|[{#")), max_size=12), max_size=8
).map("\n".join)


@settings(max_examples=500, deadline=None)
@given(st.one_of(SLOT_LINES, mutated(RECORD_TEXTS)))
def test_the_skeleton_split_is_the_backtracking_patterns(text: str) -> None:
    assert _SLOT.split("\n" + text) == _BACKTRACKING_SLOT.split("\n" + text)
