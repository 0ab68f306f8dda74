"""One YAML reading path: specs, datasets, pricing files and records read the same text alike."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autobench.core.pricing import PricingError, load_pricing_table
from autobench.core.spec import SpecError, load_benchmark_spec
from autobench.core.spec._yaml import parse_yaml
from autobench.records import RecordFormatError, load_document
from autobench.records._yaml import dump_document

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=20)
)
_KEYS = st.text(st.characters(whitelist_categories=("L", "N")), min_size=1, max_size=8).filter(
    lambda key: key != "id"  # an input's id is its text, whatever it looks like (see below)
)
_DOCUMENTS = st.dictionaries(
    _KEYS,
    st.recursive(
        _SCALARS,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
        max_leaves=12,
    ),
    max_size=5,
)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and (
        a == b
        if not isinstance(a, dict | list)
        else (
            len(a) == len(b)
            and (
                all(_same(x, y) for x, y in zip(a, b, strict=True))
                if isinstance(a, list)
                else all(k in b and _same(v, b[k]) for k, v in a.items())
            )
        )
    )


@settings(max_examples=150, deadline=None)
@given(_DOCUMENTS)
def test_spec_and_record_readers_give_the_same_values(document: dict[str, Any]) -> None:
    """Whatever the writer produces, and the same data as JSON (YAML 1.2 is a superset of
    JSON), the spec reader and the record reader give back the same values, types included."""
    for text in (dump_document(document), json.dumps(document)):
        from_spec = parse_yaml(text, Path("x.yaml")).data
        from_records = load_document(text)
        assert _same(from_spec, document), text
        assert _same(from_records, document), text


def test_a_flow_sequence_of_provider_model_aliases_loads_in_a_dataset_file(
    tmp_path: Path,
) -> None:
    """``[openai:gpt-demo, gpt-demo]`` is two strings in a spec's dataset file as in pricing."""
    (tmp_path / "cases.yaml").write_text(
        "cases:\n  - id: c1\n    input: {aliases: [openai:gpt-demo, gpt-demo]}\n"
    )
    (tmp_path / "autobench.yaml").write_text(
        "benchmark:\n"
        "  aliases:\n"
        "    dataset: {cases: cases.yaml}\n"
        "    run: {python: task:run}\n"
        "    variants: {only: {factors: {models: [openai:gpt-demo, gpt-demo]}}}\n"
    )
    spec = load_benchmark_spec(tmp_path / "autobench.yaml")
    assert spec.dataset.cases[0].input == {"aliases": ["openai:gpt-demo", "gpt-demo"]}
    assert spec.variants[0].factors[0].value == ["openai:gpt-demo", "gpt-demo"]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("a: 1\nb: [1, 2\nc: 3\n", "3:2"),  # an unclosed flow sequence
        ("a: 1\na: 2\n", "2:1"),  # a duplicate key
        ("a: !!python/object:os.system 1\n", "1:4"),  # a tag no reader constructs
    ],
)
def test_every_reader_locates_the_same_fault_at_the_same_place(
    tmp_path: Path, text: str, where: str
) -> None:
    spec = tmp_path / "autobench.yaml"
    spec.write_text(text)
    with pytest.raises(SpecError) as spec_error:
        load_benchmark_spec(spec)
    assert f"autobench.yaml:{where}" in str(spec_error.value)

    with pytest.raises(RecordFormatError) as record_error:
        load_document(text, source="run.yaml")
    assert f"run.yaml:{where}" in str(record_error.value)

    pricing = tmp_path / "pricing.yaml"
    pricing.write_text(text)
    with pytest.raises(PricingError) as pricing_error:
        load_pricing_table(pricing)
    assert f"pricing.yaml:{where}" in str(pricing_error.value)


def test_an_id_in_a_file_people_type_is_its_text() -> None:
    """Records keep types; an input's ``id`` (a case's, a variant's) is the text written."""
    text = "a: {id: false, n: 007}\nb: {id: 007}\n"
    assert parse_yaml(text, Path("x.yaml")).data == {
        "a": {"id": "false", "n": 7},
        "b": {"id": "007"},
    }
    assert load_document(text) == {"a": {"id": False, "n": 7}, "b": {"id": 7}}
