from __future__ import annotations

import pytest

from autobench.records import (
    DEFAULT_SEMANTIC_REGISTRY,
    Semantic,
    SemanticDefinition,
    SemanticRegistry,
)


def test_catalog_constants_are_all_defined_in_the_default_registry() -> None:
    constants = {value for name, value in vars(Semantic).items() if name.isupper()}
    assert len(constants) > 50
    missing = sorted(
        constant for constant in constants if constant not in DEFAULT_SEMANTIC_REGISTRY
    )
    assert missing == []


@pytest.mark.parametrize(
    "family",
    [
        "llm.",
        "money.",
        "time.",
        "result.",
        "quality.",
        "agent.",
        "prompt.",
        "dataset.",
        "operation.",
        "workflow.",
    ],
)
def test_every_family_named_by_the_spec_has_types(family: str) -> None:
    assert any(name.startswith(family) for name in DEFAULT_SEMANTIC_REGISTRY.names())


def test_aliases_and_parents() -> None:
    registry = DEFAULT_SEMANTIC_REGISTRY
    assert registry.normalize("quality.answer") == Semantic.QUALITY_SCORE
    assert registry.is_a(Semantic.AGENT_TOOL_ARGUMENT_CORRECTNESS, Semantic.QUALITY_CORRECTNESS)
    assert registry.is_a(Semantic.AGENT_TOOL_ARGUMENT_CORRECTNESS, Semantic.QUALITY_SCORE)
    assert registry.is_a("optimization.cost", "money.cost")
    assert not registry.is_a("money.cost", "optimization.cost")
    assert registry.unit_of(Semantic.TIME_FIRST_CHUNK) == "s"
    assert registry.normalize("not.registered") == "not.registered"


def test_custom_entries_merge_over_builtins() -> None:
    custom = SemanticRegistry(
        types={"search.ndcg": SemanticDefinition(parent="quality.score", shape="number")},
        aliases={"ndcg_at_10": "search.ndcg"},
    )
    merged = DEFAULT_SEMANTIC_REGISTRY.merged(custom)
    assert merged.is_a("ndcg_at_10", "quality.score")
    assert merged.custom_entries(DEFAULT_SEMANTIC_REGISTRY) == custom
    assert "search.ndcg" not in DEFAULT_SEMANTIC_REGISTRY


def test_parent_cycle_is_refused() -> None:
    with pytest.raises(ValueError, match="cycle"):
        SemanticRegistry(
            types={"a.b": SemanticDefinition(parent="c.d"), "c.d": SemanticDefinition(parent="a.b")}
        )
