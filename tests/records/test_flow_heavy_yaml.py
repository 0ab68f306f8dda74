"""Texts with many flow collections (a dataset with ``input: {n: 1}`` per case) are read by
libyaml when they do not nest deeply, with the same values and marks as ruamel's own parser
gives; a text nested past libyaml's safe depth is still refused, located, never a crash."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from autobench.records import RecordFormatError, compose_yaml, construct_yaml, load_document
from autobench.records._yaml import _PureLoader
from autobench.records._yaml_limits import C_PARSER_SAFE_DEPTH, nesting_bound


def _pure(text: str) -> Any:
    loader = _PureLoader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def _cases(count: int) -> str:
    lines = ["cases:"]
    for index in range(count):
        lines += [f"  - id: case-{index}", f"    input: {{n: {index}, tags: [a, b]}}"]
    return "\n".join(lines) + "\n"


def test_a_dataset_of_many_flow_mappings_reads_as_ruamels_parser_reads_it() -> None:
    text = _cases(6_000)
    assert nesting_bound(text) > C_PARSER_SAFE_DEPTH  # the case this is about
    fast, pure = compose_yaml(text), _pure(text)
    assert construct_yaml(fast) == construct_yaml(pure)
    last_fast = fast.value[0][1].value[-1].value[1][1]
    last_pure = pure.value[0][1].value[-1].value[1][1]
    assert (last_fast.start_mark.line, last_fast.start_mark.column) == (
        last_pure.start_mark.line,
        last_pure.start_mark.column,
    )
    assert type(fast).__module__ == type(pure).__module__  # both ruamel node trees


_leaf = st.one_of(st.integers(-5, 5), st.sampled_from(["a", "b c", "]", "}", "x#y"]))
_value = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from("pqrs"), inner, max_size=3)
    ),
    max_leaves=12,
)


def _flow(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(map(_flow, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {_flow(item)}" for key, item in value.items()) + "}"
    if isinstance(value, str):
        return '"' + value + '"'
    return str(value)


@settings(max_examples=8, deadline=None)
@given(st.lists(_value, min_size=1, max_size=6), st.integers(1_700, 2_500))
def test_flow_heavy_texts_read_the_same_either_way(values: list[object], repeat: int) -> None:
    rows = [f"- {_flow(values[index % len(values)])}" for index in range(repeat)]
    rows.append("- " + "[" * 6 + "]" * 6)  # six levels deep at one place
    text = "\n".join(rows * 3) + "\n"
    if nesting_bound(text) <= C_PARSER_SAFE_DEPTH:
        text += "- [" + ", ".join(["{}"] * (C_PARSER_SAFE_DEPTH)) + "]\n"
    assert construct_yaml(compose_yaml(text)) == construct_yaml(_pure(text))


DEEP = """
import sys
from autobench.records import RecordFormatError, load_document
text = "x: " + "[" * 30000 + "]" * 30000 + "\\n"
try:
    load_document(text, source="deep.yaml")
except RecordFormatError as error:
    print("refused", error.line, error.column)
"""


def test_a_text_nested_past_libyamls_safe_depth_is_refused_not_crashed() -> None:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(DEEP)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("refused 1 "), done.stdout


def test_a_shallow_but_bracket_heavy_text_still_reports_syntax_errors_located() -> None:
    text = _cases(3_000) + "  - id: broken\n    input: {n: [1, 2}\n"
    try:
        load_document(text, source="cases.yaml")
    except RecordFormatError as error:
        assert (error.line, error.column) == (6_003, 21)
    else:  # pragma: no cover - the assertion above is the test
        raise AssertionError("a malformed flow sequence was read")
