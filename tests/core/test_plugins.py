from __future__ import annotations

import types
from typing import Any, ClassVar, Literal

import pytest

from autobench.core.plugins import ScorerRegistry, hookimpl, new_plugin_manager, scorer_registry
from autobench.core.scoring import BUILTIN_SCORERS, ScorerSpec, ScoringCall
from autobench.records import ScoreRecord


class LengthScorer(ScorerSpec):
    """A third-party scorer kind: the length of the value at ``path``."""

    keyword: ClassVar[str] = "length"
    kind: Literal["length"] = "length"
    path: str

    async def score(self, call: ScoringCall) -> Any:
        return len(call.resolve(self.path))


def _third_party_plugin() -> types.ModuleType:
    module = types.ModuleType("acme_autobench_plugin")

    @hookimpl
    def autobench_scorers() -> list[type[ScorerSpec]]:
        return [LengthScorer]

    module.autobench_scorers = autobench_scorers  # type: ignore[attr-defined]
    return module


def test_builtin_scorers_arrive_through_the_public_hook() -> None:
    manager = new_plugin_manager(load_entry_points=False)
    contributions = {
        manager.get_name(impl.plugin): impl.function()
        for impl in manager.hook.autobench_scorers.get_hookimpls()
    }
    assert contributions == {"autobench.builtin": BUILTIN_SCORERS}
    assert set(scorer_registry().by_keyword) >= {"value", "pass", "exact"}


def test_a_third_party_scorer_kind_is_validated_like_a_builtin() -> None:
    manager = new_plugin_manager(load_entry_points=False)
    manager.register(_third_party_plugin(), name="acme")
    registry = ScorerRegistry.from_manager(manager)
    assert registry.by_keyword["length"] is LengthScorer
    scorer = registry.validate({"kind": "length", "name": "answer_length", "path": "output.answer"})
    assert isinstance(scorer, LengthScorer)
    assert (
        registry.validate({"kind": "exact", "name": "e", "actual": "a", "expected": "b"}).kind
        == "exact"
    )


def test_unknown_kind_names_the_known_kinds() -> None:
    with pytest.raises(
        ValueError,
        match="unknown scorer kind 'fuzzy'; known kinds: exact, expected_action, judge, output, pass_fail, python, schema",
    ):
        scorer_registry().validate({"kind": "fuzzy", "name": "x"})


def test_two_plugins_claiming_one_keyword_are_refused() -> None:
    class Clash(LengthScorer):
        kind: Literal["other"] = "other"  # type: ignore[assignment]
        keyword: ClassVar[str] = "exact"

    with pytest.raises(ValueError, match="registered twice"):
        ScorerRegistry([*BUILTIN_SCORERS, Clash])


async def test_scores_resolve_paths() -> None:
    from autobench.records import Case, Variant

    call = ScoringCall(case=Case(id="c"), variant=Variant(id="v"), output={"answer": "four"})
    assert await LengthScorer(name="n", path="output.answer").score(call) == 4
    assert isinstance(
        await BUILTIN_SCORERS[2](name="e", actual="output.answer", expected="output.answer").score(
            call
        ),
        ScoreRecord,
    )
