"""Each task call's own copy of its case (``runtime._case_copy.own_case``): equal to the
planned case, sharing none of its containers, for any JSON-like input."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from autobench.core.runtime._case_copy import own_case
from autobench.records import Case

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _containers(value: Any) -> list[Any]:
    found = [value] if isinstance(value, list | dict) else []
    children = (
        value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    )
    for child in children:
        found += _containers(child)
    return found


@given(JSON, JSON, st.dictionaries(st.text(), JSON, max_size=3))
def test_the_copy_equals_the_case_and_shares_no_container(
    given_input: Any, expected: Any, metadata: dict[str, Any]
) -> None:
    case = Case(id="c", input=given_input, expected=expected, metadata=metadata)
    own = own_case(case)
    assert own == case
    parts = (case.input, case.expected, case.metadata)
    copies = (own.input, own.expected, own.metadata)
    planned = {id(item) for part in parts for item in _containers(part)}
    assert not planned & {id(item) for part in copies for item in _containers(part)}


def test_a_value_pickle_refuses_is_deep_copied() -> None:
    case = Case(id="c", input={"call": lambda: 1, "items": [1]})
    own = own_case(case)
    own.input["items"].append(2)
    assert case.input["items"] == [1]
