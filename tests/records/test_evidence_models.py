from __future__ import annotations

import pytest
from pydantic import ValidationError

from autobench.records import Case, FactorValue, Observation, ObservationKind, Variant


def test_factor_mapping_form_and_bare_values_round_trip() -> None:
    variant = Variant(
        id="v",
        factors={
            "model": {"value": "gpt", "semantic": "llm.model.name", "optimize": True},
            "temperature": 0.2,
            "config": {"depth": 3},
            "tricky": {"value": 1, "other": 2},
        },
    )
    assert variant.factor("temperature") == 0.2
    assert variant.factor("config") == {"depth": 3}
    assert variant.factor("tricky") == {"value": 1, "other": 2}
    assert variant.factors[0] == FactorValue(
        name="model", value="gpt", semantic_type="llm.model.name", optimize=True
    )
    dumped = variant.model_dump(exclude_defaults=True)
    assert dumped["factors"]["temperature"] == 0.2
    assert Variant.model_validate(dumped) == variant


def test_a_bare_mapping_value_that_looks_structured_is_written_structured() -> None:
    variant = Variant(id="v", factors=[FactorValue(name="x", value={"value": 5})])
    dumped = variant.model_dump()
    assert Variant.model_validate(dumped).factor("x") == {"value": 5}


def test_missing_factor_is_a_key_error_naming_the_variant() -> None:
    with pytest.raises(KeyError, match="variant 'v' has no factor 'model'"):
        Variant(id="v").factor("model")


def test_duplicate_factor_names_are_refused() -> None:
    with pytest.raises(ValidationError, match="repeats factor names: a"):
        Variant(id="v", factors=[{"name": "a", "value": 1}, {"name": "a", "value": 2}])


def test_case_tags_are_deduplicated_in_order() -> None:
    assert Case(id="c", tags=["b", "a", "b"]).tags == ("b", "a")


def test_factor_observation_cannot_declare_a_direction() -> None:
    with pytest.raises(ValidationError, match="cannot declare an optimisation direction"):
        Observation(id="o", name="m", kind=ObservationKind.FACTOR, direction="maximize")
